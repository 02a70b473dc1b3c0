package cli

import "github.com/spf13/pflag"

// modelFlags tune the model provider (sampling, limits, timeouts,
// reasoning); newModel (model.go) applies them.
type modelFlags struct{}

func (f *modelFlags) register(fl *pflag.FlagSet) {}
