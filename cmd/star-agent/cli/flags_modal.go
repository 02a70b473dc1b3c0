package cli

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/star-agent/star-agent/executors/modal"
	"github.com/star-agent/star-agent/executors/router"
)

// modalFlags are the flags of --executor modal. Credentials come from the
// environment (MODAL_TOKEN_ID, MODAL_TOKEN_SECRET, MODAL_ENVIRONMENT) or
// ~/.modal.toml, as Modal's SDK reads them, never from flags, so that no
// secret shows in a process listing.
type modalFlags struct {
	image   string
	app     string
	cpu     float64
	network bool
}

func (f *modalFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.image, "modal-image", "", "registry image of the --executor modal sandbox, e.g. python:3.12-slim or an image with your packages; it must have python3 on its PATH (default "+modal.DefaultImage+"); credentials come from MODAL_TOKEN_ID and MODAL_TOKEN_SECRET or ~/.modal.toml")
	fl.StringVar(&f.app, "modal-app", "", "Modal app the --executor modal sandboxes are created in, created if missing (default "+modal.DefaultApp+")")
	fl.Float64Var(&f.cpu, "modal-cpu", 0, "CPU request of the --executor modal sandbox in cores, e.g. 0.5 or 2 (default: Modal's)")
	fl.BoolVar(&f.network, "modal-network", false, "give the --executor modal sandbox outbound network access (blocked by default; tools still work, they run in star-agent)")
}

// apply puts the flags into cfg; its errors are usage errors.
func (f *modalFlags) apply(cfg *router.Config) error {
	if f.cpu < 0 {
		return fmt.Errorf("--modal-cpu %g: give a positive number of cores, e.g. 0.5 or 2", f.cpu)
	}
	cfg.Modal.Image, cfg.Modal.App, cfg.Modal.CPU, cfg.Modal.Network = f.image, f.app, f.cpu, f.network
	return nil
}
