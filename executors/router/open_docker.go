package router

import (
	"errors"

	"github.com/star-agent/star-agent/executors/wasm"
)

// DockerConfig configures --executor docker.
type DockerConfig struct{}

// openDocker opens the Docker executor for cfg; packages and mounts are
// absolute host directories.
func openDocker(cfg Config, packages []string, mounts []wasm.Mount) (Python, error) {
	return nil, errors.New("--executor docker is not available in this build")
}
