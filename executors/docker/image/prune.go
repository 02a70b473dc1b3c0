package image

import (
	"context"
	"errors"
	"fmt"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/client"
)

var imageRemoveOptions = image.RemoveOptions{Force: true, PruneChildren: true}

// PruneOptions say what Prune removes besides containers, volumes and
// networks.
type PruneOptions struct {
	Images bool           // also the images star-agent built
	Labels []string       // only what also has these labels, each KEY=VALUE or KEY
	Client *client.Client // nil means one from the environment
}

// Pruned lists what Prune removed: "name (id)" for containers, names of
// volumes and networks, tags (or IDs) of images.
type Pruned struct {
	Containers, Volumes, Networks, Images []string
}

// Empty reports whether nothing was removed.
func (p Pruned) Empty() bool {
	return len(p.Containers)+len(p.Volumes)+len(p.Networks)+len(p.Images) == 0
}

// Prune removes every container, volume and network labelled
// io.star-agent.managed=true, running or not, and with opts.Images the
// images too. Nothing without the label is touched. It goes on past a
// failure and returns what it removed with every error joined.
func Prune(ctx context.Context, opts PruneOptions) (Pruned, error) {
	var out Pruned
	cli := opts.Client
	if cli == nil {
		c, err := NewClient()
		if err != nil {
			return out, err
		}
		defer c.Close()
		cli = c
	}
	managed := filters.NewArgs(filters.Arg("label", LabelManaged+"=true"))
	for _, l := range opts.Labels {
		managed.Add("label", l)
	}
	var errs []error
	fail := func(what string, err error) {
		if !cerrdefs.IsNotFound(err) { // gone already: someone else removed it
			errs = append(errs, fmt.Errorf("docker: %s: %w", what, err))
		}
	}

	cs, err := cli.ContainerList(ctx, container.ListOptions{All: true, Filters: managed})
	if err != nil {
		return out, fmt.Errorf("docker: no engine answers or it refused to list containers (%w); start the Docker daemon or set DOCKER_HOST", err)
	}
	for _, c := range cs {
		name := strings.TrimPrefix(strings.Join(c.Names, ","), "/")
		if err := cli.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true}); err != nil {
			fail("remove container "+name, err)
			continue
		}
		out.Containers = append(out.Containers, fmt.Sprintf("%s (%s)", name, shortID(c.ID)))
	}

	vs, err := cli.VolumeList(ctx, volume.ListOptions{Filters: managed})
	if err != nil {
		fail("list volumes", err)
	}
	for _, v := range vs.Volumes {
		if err := cli.VolumeRemove(ctx, v.Name, true); err != nil {
			fail("remove volume "+v.Name, err)
			continue
		}
		out.Volumes = append(out.Volumes, v.Name)
	}

	ns, err := cli.NetworkList(ctx, network.ListOptions{Filters: managed})
	if err != nil {
		fail("list networks", err)
	}
	for _, n := range ns {
		if err := cli.NetworkRemove(ctx, n.ID); err != nil {
			fail("remove network "+n.Name, err)
			continue
		}
		out.Networks = append(out.Networks, n.Name)
	}

	if opts.Images {
		is, err := cli.ImageList(ctx, image.ListOptions{All: true, Filters: managed})
		if err != nil {
			fail("list images", err)
		}
		// Derived images first: a base cannot go while a child needs it.
		for pass := 0; pass < 3 && len(is) > 0; pass++ {
			var left []image.Summary
			for _, im := range is {
				name := shortID(im.ID)
				if len(im.RepoTags) > 0 && im.RepoTags[0] != "<none>:<none>" {
					name = strings.Join(im.RepoTags, ", ")
				}
				if _, err := cli.ImageRemove(ctx, im.ID, imageRemoveOptions); err != nil {
					if cerrdefs.IsConflict(err) && pass < 2 {
						left = append(left, im)
						continue
					}
					fail("remove image "+name, err)
					continue
				}
				out.Images = append(out.Images, name)
			}
			is = left
		}
	}
	return out, errors.Join(errs...)
}
