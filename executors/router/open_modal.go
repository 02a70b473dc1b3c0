package router

import (
	"fmt"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/modal"
)

// ModalConfig configures --executor modal. Credentials are the SDK's
// (MODAL_TOKEN_ID and MODAL_TOKEN_SECRET, or ~/.modal.toml), never flags.
type ModalConfig struct {
	// Image is a registry reference with python3; "" means
	// modal.DefaultImage.
	Image string
	// App is the Modal app sandboxes are created in (created if missing);
	// "" means modal.DefaultApp.
	App string
	// Environment is the Modal environment; "" means MODAL_ENVIRONMENT or
	// the profile's.
	Environment string
	// CPU is the sandbox's CPU request in cores; 0 means Modal's default.
	CPU float64
	// MemoryMiB is the sandbox's memory request and limit; 0 means the
	// execution limits' MaxMemory.
	MemoryMiB int
	// IdleTimeout ends a sandbox nobody writes to; 0 means
	// modal.DefaultIdleTimeout.
	IdleTimeout time.Duration
	// Network allows the sandbox outbound network access (blocked by
	// default).
	Network bool
}

func openModal(cfg Config) (Python, error) {
	if len(cfg.Packages) > 0 || len(cfg.Mounts) > 0 {
		return nil, fmt.Errorf("--packages and --mount are not available with --executor modal: the sandbox is a remote container; use an image with the packages instead (--modal-image)")
	}
	m := cfg.Modal
	return modal.New(modal.Options{
		Limits:      cfg.Limits,
		Imports:     executors.NewImportPolicy(cfg.Imports, nil),
		Image:       m.Image,
		App:         m.App,
		Environment: m.Environment,
		CPU:         m.CPU,
		MemoryMiB:   m.MemoryMiB,
		Timeout:     cfg.SandboxTimeout,
		IdleTimeout: m.IdleTimeout,
		Network:     m.Network,
		Tags:        cfg.Owner,
	})
}
