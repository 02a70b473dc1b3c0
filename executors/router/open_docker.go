package router

import (
	"context"
	"fmt"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/docker"
	"github.com/star-agent/star-agent/executors/wasm"
)

// DockerConfig configures --executor docker. Zero fields keep the
// executor's hardened defaults (see package docker).
type DockerConfig struct {
	// Image is the image to run; "" means docker.DefaultImage.
	Image string
	// Memory is the container's memory limit in bytes; 0 means the
	// execution limits' MaxMemory.
	Memory int64
	// CPUs is the CPU quota; 0 means 1.
	CPUs float64
	// Network is the network mode; "" means none (loopback only).
	Network string
	// Runtime is the OCI runtime, e.g. runsc; "" means the engine's.
	Runtime string
	// PIDs limits processes and threads; 0 means 64.
	PIDs int64
	// Labels are added to every container (for tests and operators).
	Labels map[string]string
	// Pool, when set, gives the executor a container started ahead.
	Pool *docker.Pool
}

// openDocker opens the Docker executor for cfg; packages and mounts are
// absolute host directories. It checks that the engine answers and the
// image is present, so that a run fails before its first model call.
func openDocker(cfg Config, packages []string, mounts []wasm.Mount) (Python, error) {
	d := cfg.Docker
	opts := docker.Options{
		Limits:      cfg.Limits,
		Imports:     executors.NewImportPolicy(cfg.Imports, nil),
		Image:       d.Image,
		Memory:      d.Memory,
		CPUs:        d.CPUs,
		Network:     d.Network,
		Runtime:     d.Runtime,
		PIDs:        d.PIDs,
		Labels:      d.Labels,
		Owner:       cfg.Owner,
		Pool:        d.Pool,
		PackageDirs: packages,
	}
	for _, m := range mounts {
		opts.Mounts = append(opts.Mounts, docker.Mount{HostPath: m.HostPath, GuestPath: m.GuestPath, Writable: m.Writable})
	}
	e, err := docker.New(opts)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := e.Check(ctx); err != nil {
		e.Close()
		return nil, fmt.Errorf("--executor docker: %w", err)
	}
	return e, nil
}
