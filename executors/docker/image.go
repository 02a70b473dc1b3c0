package docker

import (
	"context"
	"fmt"
	"slices"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
)

// checkEngine verifies that the engine answers.
func checkEngine(ctx context.Context, cli client.APIClient) error {
	if _, err := cli.Ping(ctx); err != nil {
		return fmt.Errorf("%w (DOCKER_HOST=%s): %w; start the engine, or point DOCKER_HOST at one", errNoEngine, cli.DaemonHost(), err)
	}
	return nil
}

// checkImage verifies that image is present locally: nothing is ever
// pulled.
func checkImage(ctx context.Context, cli client.APIClient, image string) error {
	_, err := cli.ImageInspect(ctx, image)
	if cerrdefs.IsNotFound(err) {
		return missingImage(image)
	}
	if err != nil {
		return fmt.Errorf("inspect image %s: %w", image, err)
	}
	return nil
}

// missingImage is the error for an image that is not in the engine.
func missingImage(image string) error {
	if image == DefaultImage {
		return fmt.Errorf("the image %s is not in the Docker engine: build it with `%s` (it needs no registry)", image, BuildCommand)
	}
	return fmt.Errorf("the image %s is not in the Docker engine, and star-agent never pulls images: load it (docker pull or docker load where a registry or an archive exists), or build the default image with `%s` and drop --docker-image", image, BuildCommand)
}

// checkRuntime verifies that the engine has the OCI runtime registered
// ("" is the engine's default).
func checkRuntime(ctx context.Context, cli client.APIClient, runtime string) error {
	if runtime == "" {
		return nil
	}
	info, err := cli.Info(ctx)
	if err != nil {
		return fmt.Errorf("ask the Docker engine for its runtimes: %w", err)
	}
	if _, ok := info.Runtimes[runtime]; ok {
		return nil
	}
	var have []string
	for name := range info.Runtimes {
		have = append(have, name)
	}
	slices.Sort(have)
	how := "register it in /etc/docker/daemon.json (\"runtimes\") and reload the engine, or drop --docker-runtime to use the engine's default"
	if runtime == "runsc" {
		how = "install and register gVisor's with `make gvisor` (executors/docker/gvisor.sh, as root: Debian's runsc, and a reload of the engine, not a restart), or drop --docker-runtime to use the engine's default"
	}
	return fmt.Errorf("the runtime %q is not registered with the Docker engine (it has %s): %s", runtime, strings.Join(have, ", "), how)
}

// checkNetwork verifies that a named network exists.
func checkNetwork(ctx context.Context, cli client.APIClient, name string) error {
	if name == "none" || name == "host" || name == "default" || strings.HasPrefix(name, "container:") {
		return nil
	}
	_, err := cli.NetworkInspect(ctx, name, network.InspectOptions{})
	if cerrdefs.IsNotFound(err) {
		return fmt.Errorf("the Docker network %q does not exist (`docker network ls` lists those that do): create it with `docker network create %s`, or use --docker-network none to keep the code off every network", name, name)
	}
	if err != nil {
		return fmt.Errorf("inspect network %s: %w", name, err)
	}
	return nil
}
