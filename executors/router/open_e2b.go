package router

import (
	"fmt"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/e2b"
)

// E2BConfig configures --executor e2b.
type E2BConfig struct {
	// Template is the sandbox template, which must have python3; "" means
	// e2b.DefaultTemplate.
	Template string
	// APIKey authenticates with E2B; "" means $E2B_API_KEY.
	APIKey string
	// Domain is E2B's domain; "" means $E2B_DOMAIN, else e2b.app.
	Domain string
	// APIURL overrides the control plane's URL (tests); "" means
	// $E2B_API_URL, else https://api.DOMAIN.
	APIURL string
	// EnvdURL overrides envd's URL (tests); "" means $E2B_ENVD_URL.
	EnvdURL string
}

func openE2B(cfg Config) (Python, error) {
	if len(cfg.Packages) > 0 || len(cfg.Mounts) > 0 {
		return nil, fmt.Errorf("--packages and --mount are not available with --executor e2b: the sandbox is a remote machine; build a template with the packages instead (--e2b-template)")
	}
	return e2b.New(e2b.Options{
		Limits:   cfg.Limits,
		Imports:  executors.NewImportPolicy(cfg.Imports, nil),
		APIKey:   cfg.E2B.APIKey,
		Domain:   cfg.E2B.Domain,
		APIURL:   cfg.E2B.APIURL,
		EnvdURL:  cfg.E2B.EnvdURL,
		Template: cfg.E2B.Template,
		Timeout:  cfg.SandboxTimeout,
		Metadata: cfg.Owner,
	})
}
