package cli

import (
	"github.com/spf13/pflag"

	"github.com/star-agent/star-agent/executors/router"
)

// e2bFlags are the flags of --executor e2b. The API key, domain and URLs
// come from the environment (E2B_API_KEY, E2B_DOMAIN), never from flags,
// so that no secret shows in a process listing.
type e2bFlags struct {
	template string
}

func (f *e2bFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.template, "e2b-template", "", "E2B sandbox template (name or id) for --executor e2b; it must have python3 on its PATH (default \"base\", E2B's base image); the API key comes from E2B_API_KEY")
}

// apply puts the flags into cfg; its errors are usage errors.
func (f *e2bFlags) apply(cfg *router.Config) error {
	cfg.E2B.Template = f.template
	return nil
}
