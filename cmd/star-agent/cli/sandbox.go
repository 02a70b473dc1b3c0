package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/star-agent/star-agent/executors/docker/image"
)

// newSandboxCmd returns "star-agent sandbox", which manages the Docker
// executor's images and leftovers.
func newSandboxCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sandbox",
		Short: "Build and clean up the Docker sandbox's images and containers",
		Long: `Build the Docker sandbox's images on this machine, from Debian's packages
(no container registry is used, nothing is pulled), and remove everything
star-agent left in the Docker engine.`,
	}
	imageCmd := &cobra.Command{
		Use:   "image",
		Short: "Build the Docker sandbox's images",
	}
	imageCmd.AddCommand(newSandboxImageBuildCmd())
	cmd.AddCommand(imageCmd, newSandboxPruneCmd())
	return cmd
}

func newSandboxImageBuildCmd() *cobra.Command {
	var (
		opts      image.Options
		addDebian []string
		withAgent bool
	)
	cmd := &cobra.Command{
		Use:   "build",
		Short: "Build the Docker sandbox's image from Debian's packages, unless it is up to date",
		Long: `Build the image the Docker executor runs Python in, star-agent/python:latest,
on this machine, from Debian's packages. No container registry is used and
nothing is pulled: mmdebstrap (apt-get install mmdebstrap) downloads Debian
bookworm's packages, with its security fixes, from deb.debian.org (or the
sources of --source) and makes a root filesystem that the Docker engine
imports. It holds python3 3.11 and the data stack: numpy, pandas, scipy,
matplotlib (Agg backend), sympy, scikit-learn and pillow, runs as the
non-root user 1000, and has no apt: nothing is ever installed at run time.

The first build downloads about 120 MB of packages and takes one and a half
to three minutes, mostly unpacking and configuring them; the image is about
640 MB. The image carries the hash of its recipe (packages, sources, build
steps) in the label io.star-agent.recipe: when an image with the tag and the
same recipe is present, build says "up to date" and returns at once.
--force rebuilds anyway.

--add-debian bakes more Debian packages into another root filesystem (tag
star-agent/python:<recipe hash> unless --tag). --packages adds a directory of
pure-Python packages (wheels unpacked, as for the WebAssembly sandbox) under
/opt/star-agent/packages, on sys.path, as a layer on top; symbolic links
are refused. --with-agent adds this star-agent binary (or --agent-binary) as
the entry point of star-agent/agent:latest, to run the whole agent in a
container: see docs/docker.md. Build the binary with CGO_ENABLED=0 so it is
static; a dynamically linked one is accepted only if it runs in the image.

The image's size is printed at the end. Progress goes to standard error.`,
		Example: `  star-agent sandbox image build
  star-agent sandbox image build --add-debian python3-networkx,python3-statsmodels
  star-agent sandbox image build --packages ./wheels --tag my/python:latest
  CGO_ENABLED=0 go build -o bin/star-agent ./cmd/star-agent && bin/star-agent sandbox image build --with-agent`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, p := range addDebian {
				for _, name := range strings.Split(p, ",") {
					if name = strings.TrimSpace(name); name != "" {
						opts.AddDebian = append(opts.AddDebian, name)
					}
				}
			}
			if withAgent && opts.Agent == "" {
				exe, err := os.Executable()
				if err != nil {
					return usageError("--with-agent: cannot find this binary (%v); give it with --agent-binary", err)
				}
				opts.Agent = exe
			}
			opts.Progress = cmd.ErrOrStderr()
			ctx, stop := signal.NotifyContext(cmdContext(cmd), os.Interrupt, syscall.SIGTERM)
			defer stop()
			res, err := image.Build(ctx, opts)
			if err != nil {
				return &ExitError{Code: 1, Err: err}
			}
			state := "built in " + res.Elapsed.Round(100*time.Millisecond).String()
			if res.UpToDate {
				state = "up to date"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %s, %s (recipe %s)\n", res.Tag, state, image.HumanSize(res.Size), res.Recipe[:12])
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&addDebian, "add-debian", nil, "more Debian packages to bake in, comma-separated (e.g. python3-networkx)")
	fl.StringArrayVar(&opts.Packages, "packages", nil, "directory of pure-Python packages (wheels unpacked) to add on sys.path; repeatable")
	fl.StringVar(&opts.Tag, "tag", "", "reference of the image (default star-agent/python:latest, star-agent/agent:latest with --with-agent, star-agent/python:<hash> with --add-debian or --packages)")
	fl.BoolVar(&opts.Force, "force", false, "rebuild even when the image is up to date")
	fl.BoolVar(&withAgent, "with-agent", false, "add this star-agent binary as the image's entry point (default tag star-agent/agent:latest)")
	fl.StringVar(&opts.Agent, "agent-binary", "", "the star-agent binary to add instead of this one (implies --with-agent)")
	fl.StringArrayVar(&opts.Sources, "source", nil, `apt source line to build from instead of deb.debian.org, e.g. "deb http://mirror.example/debian bookworm main"; repeatable`)
	return cmd
}

func newSandboxPruneCmd() *cobra.Command {
	var opts image.PruneOptions
	cmd := &cobra.Command{
		Use:   "prune",
		Short: "Remove every container, volume and network star-agent created in Docker",
		Long: `Remove every container (running or not), volume and network that carries the
label io.star-agent.managed=true, which star-agent puts on everything it
creates: what a crashed or killed star-agent left behind. Nothing without
the label is touched; --label narrows it further. Docker copies an image's
labels to its containers, so containers made from star-agent's images by
hand (docker run star-agent/python:latest) count as star-agent's too. With --images, star-agent's images go too (the next
Docker run then needs "star-agent sandbox image build" again).

It prints what it removed, one line each, or that there was nothing.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			pruned, err := image.Prune(cmdContext(cmd), opts)
			out := cmd.OutOrStdout()
			for _, l := range []struct {
				kind  string
				names []string
			}{{"container", pruned.Containers}, {"volume", pruned.Volumes}, {"network", pruned.Networks}, {"image", pruned.Images}} {
				for _, n := range l.names {
					fmt.Fprintf(out, "removed %s %s\n", l.kind, n)
				}
			}
			if err != nil {
				return &ExitError{Code: 1, Err: err}
			}
			if pruned.Empty() {
				fmt.Fprintln(out, "nothing to remove")
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&opts.Images, "images", false, "also remove the images star-agent built")
	cmd.Flags().StringArrayVar(&opts.Labels, "label", nil, "only remove what also carries this label, KEY=VALUE or KEY (e.g. io.star-agent.role=executor); repeatable")
	return cmd
}

func cmdContext(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}
