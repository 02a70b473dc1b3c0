package docker

import (
	"context"
	"fmt"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/client"
)

// checkImage verifies that the engine answers and that image is present
// locally: nothing is ever pulled.
func checkImage(ctx context.Context, cli client.APIClient, image string) error {
	if _, err := cli.Ping(ctx); err != nil {
		return fmt.Errorf("%w (DOCKER_HOST=%s): %w; start the engine, or point DOCKER_HOST at one", errNoEngine, cli.DaemonHost(), err)
	}
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
