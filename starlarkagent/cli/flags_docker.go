package cli

import (
	"github.com/spf13/pflag"

	"github.com/star-agent/star-agent/executors/router"
)

// dockerFlags are the flags of --executor docker.
type dockerFlags struct{}

func (f *dockerFlags) register(fl *pflag.FlagSet) {}

// apply puts the flags into cfg; its errors are usage errors.
func (f *dockerFlags) apply(cfg *router.Config) error { return nil }
