package cli

import (
	"github.com/spf13/pflag"

	"github.com/star-agent/star-agent/executors/router"
)

// e2bFlags are the flags of --executor e2b.
type e2bFlags struct{}

func (f *e2bFlags) register(fl *pflag.FlagSet) {}

// apply puts the flags into cfg; its errors are usage errors.
func (f *e2bFlags) apply(cfg *router.Config) error { return nil }
