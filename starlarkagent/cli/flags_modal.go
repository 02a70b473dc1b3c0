package cli

import (
	"github.com/spf13/pflag"

	"github.com/star-agent/star-agent/executors/router"
)

// modalFlags are the flags of --executor modal.
type modalFlags struct{}

func (f *modalFlags) register(fl *pflag.FlagSet) {}

// apply puts the flags into cfg; its errors are usage errors.
func (f *modalFlags) apply(cfg *router.Config) error { return nil }
