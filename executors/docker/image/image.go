// Package image builds star-agent's Docker images on the machine itself,
// from Debian's packages, with no container registry: nothing is pulled.
//
// The default image, star-agent/python:latest, is a Debian bookworm root
// filesystem holding python3 and the data stack (numpy, pandas, scipy,
// matplotlib with the Agg backend, sympy, scikit-learn, pillow), made by
// mmdebstrap and streamed as a tarball straight into the engine's image
// import. mmdebstrap rather than debootstrap because it resolves packages
// with apt across several suites in one pass (bookworm, its updates and its
// security fixes), writes the tarball to standard output (no temporary
// tree to pack), honours dpkg path filters (no documentation, manuals or
// translations are ever unpacked), runs without root through user
// namespaces, and is several times faster; it is a Debian package like
// debootstrap (apt-get install mmdebstrap). The variant is "essential":
// no apt in the image, since nothing is installed at run time.
//
// Every image carries the recipe's hash in the label io.star-agent.recipe,
// so Build returns at once when the image is present and its recipe
// unchanged. More Debian packages (Options.AddDebian) make another root
// filesystem, because apt inside a container would need the network and
// the engine's bridge may not reach a mirror; pure-Python packages
// (Options.Packages) and the star-agent binary (Options.Agent) are added
// as a layer committed from a container that is never started.
//
// Prune removes everything star-agent created, found by its label.
package image

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/distribution/reference"
	"github.com/docker/docker/client"
)

// DefaultTag is the default image: the Docker executor's docker.DefaultImage.
const DefaultTag = "star-agent/python:latest"

// AgentTag is the default tag of the image holding the star-agent binary.
const AgentTag = "star-agent/agent:latest"

// Labels on everything star-agent creates in the engine.
const (
	LabelManaged = "io.star-agent.managed" // always "true"
	LabelRole    = "io.star-agent.role"    // image, executor, test-image, agent
	LabelRecipe  = "io.star-agent.recipe"  // sha256 of what the image was made from
)

// Suite is the Debian release the images are made from.
const Suite = "bookworm"

// DataStack lists the Debian packages of the default image.
var DataStack = []string{
	"python3",
	"python3-numpy",
	"python3-pandas",
	"python3-scipy",
	"python3-matplotlib",
	"python3-sympy",
	"python3-sklearn",
	"python3-pil",
}

// DefaultSources are the apt sources the root filesystem is made from:
// the release, its point-release updates and its security fixes.
var DefaultSources = []string{
	"deb http://deb.debian.org/debian bookworm main",
	"deb http://deb.debian.org/debian bookworm-updates main",
	"deb http://deb.debian.org/debian-security bookworm-security main",
}

// Options say what to build. The zero value builds DefaultTag.
type Options struct {
	// Tag is the reference given to the image. Empty means DefaultTag for
	// the default recipe, AgentTag with Agent set, and
	// star-agent/python:<first 12 digits of the recipe hash> otherwise.
	Tag string
	// AddDebian lists more Debian packages to bake into the image.
	AddDebian []string
	// Packages are directories of pure-Python packages (wheels unpacked),
	// copied to /opt/star-agent/packages/N and put on sys.path, in order.
	Packages []string
	// Agent is the path of a star-agent binary to copy to
	// /usr/local/bin/star-agent, the image's entry point.
	Agent string
	// Sources replaces DefaultSources (an internal mirror, say).
	Sources []string
	// Labels are more labels for the image (a test's marker, say); a
	// LabelRole here replaces the role ("image", or "agent" with Agent).
	Labels map[string]string
	// Force rebuilds even when the image is up to date.
	Force bool
	// Progress receives one line per phase, with the time elapsed. Nil
	// discards it.
	Progress io.Writer
	// Client is the engine to build in; nil means one from the
	// environment (DOCKER_HOST and friends).
	Client *client.Client
}

// Result says what Build produced.
type Result struct {
	Tag      string        // the reference of the image
	ID       string        // its image ID
	Recipe   string        // the recipe hash in its io.star-agent.recipe label
	Size     int64         // its size in bytes, as the engine reports it
	UpToDate bool          // it was present with this recipe: nothing was built
	Elapsed  time.Duration // time Build took
}

// NewClient returns a client for the engine named by the environment
// (DOCKER_HOST and friends), speaking the engine's API version.
func NewClient() (*client.Client, error) {
	c, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, fmt.Errorf("docker: %w", err)
	}
	return c, nil
}

// Build makes the image Options describe, unless it is present with the same
// recipe (then it returns at once with UpToDate set).
func Build(ctx context.Context, opts Options) (Result, error) {
	start := time.Now()
	p := &progress{w: opts.Progress, start: start}
	if p.w == nil {
		p.w = io.Discard
	}
	if err := checkLabels(opts.Labels); err != nil {
		return Result{}, err
	}
	if opts.Tag != "" {
		ref, err := reference.ParseNormalizedNamed(opts.Tag)
		if _, digested := ref.(reference.Digested); err != nil || digested {
			return Result{}, fmt.Errorf("image: --tag %q is not an image reference such as my/python:latest (lowercase name, optional :tag, no @digest)", opts.Tag)
		}
	}
	layer, err := newLayerRecipe(opts)
	if err != nil {
		return Result{}, err
	}
	rootOpts := opts
	if layer != nil {
		rootOpts.Labels = nil // they are the layer's, not its base's
	}
	root, err := newRootfsRecipe(rootOpts)
	if err != nil {
		return Result{}, err
	}

	cli := opts.Client
	if cli == nil {
		c, err := NewClient()
		if err != nil {
			return Result{}, err
		}
		defer c.Close()
		cli = c
	}
	if _, err := cli.Ping(ctx); err != nil {
		return Result{}, fmt.Errorf("docker: no engine answers (%w); start the Docker daemon or set DOCKER_HOST", err)
	}

	rootTag := opts.Tag
	switch {
	case layer != nil && len(opts.AddDebian) == 0:
		rootTag = DefaultTag
	case layer != nil:
		rootTag = "star-agent/python:deb-" + root.hash[:12]
	case rootTag == "" && len(opts.AddDebian) == 0:
		rootTag = DefaultTag
	case rootTag == "":
		rootTag = "star-agent/python:" + root.hash[:12]
	}
	res, err := ensure(ctx, cli, p, rootTag, root.hash, opts.Force && layer == nil, func() error {
		return root.build(ctx, cli, p, rootTag)
	})
	if err != nil || layer == nil {
		res.Elapsed = time.Since(start)
		return res, err
	}

	tag := opts.Tag
	if tag == "" && opts.Agent != "" {
		tag = AgentTag
	}
	hash := layer.hash(res.ID)
	if tag == "" {
		tag = "star-agent/python:" + hash[:12]
	}
	res, err = ensure(ctx, cli, p, tag, hash, opts.Force, func() error {
		return layer.build(ctx, cli, p, rootTag, tag, hash)
	})
	res.Elapsed = time.Since(start)
	return res, err
}

// ensure returns the image tag when its recipe label is hash, and builds it
// with build otherwise (or always, with force).
func ensure(ctx context.Context, cli *client.Client, p *progress, tag, hash string, force bool, build func() error) (Result, error) {
	res := Result{Tag: tag, Recipe: hash}
	info, err := cli.ImageInspect(ctx, tag)
	switch {
	case err == nil && info.Config != nil && info.Config.Labels[LabelRecipe] == hash && !force:
		res.ID, res.Size, res.UpToDate = info.ID, info.Size, true
		p.say("%s is up to date (recipe %s), %s", tag, hash[:12], HumanSize(info.Size))
		return res, nil
	case err == nil && force:
		p.say("%s: rebuilding (--force)", tag)
	case err == nil:
		p.say("%s: its recipe changed, rebuilding", tag)
	case cerrdefs.IsNotFound(err):
		p.say("%s: not present, building", tag)
	default:
		return res, fmt.Errorf("docker: inspect image %s: %w", tag, err)
	}
	if err := build(); err != nil {
		return res, err
	}
	info, err = cli.ImageInspect(ctx, tag)
	if err != nil {
		return res, fmt.Errorf("docker: inspect the new image %s: %w", tag, err)
	}
	res.ID, res.Size = info.ID, info.Size
	p.say("%s built: %s, %s", tag, shortID(info.ID), HumanSize(info.Size))
	return res, nil
}

// progress writes "[  12.3s] message" lines.
type progress struct {
	w     io.Writer
	start time.Time
}

func (p *progress) say(format string, args ...any) {
	fmt.Fprintf(p.w, "[%6.1fs] %s\n", time.Since(p.start).Seconds(), fmt.Sprintf(format, args...))
}

// HumanSize writes n bytes as the engine's tools do: 641.6 MB (powers of
// 1000).
func HumanSize(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

func shortID(id string) string {
	id = strings.TrimPrefix(id, "sha256:")
	if len(id) > 12 {
		id = id[:12]
	}
	return id
}

// hashOf is the recipe hash of a list of lines.
func hashOf(lines ...string) string {
	h := sha256.New()
	for _, l := range lines {
		io.WriteString(h, l)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// checkLabels refuses labels that could not be written in a Dockerfile
// LABEL instruction as they are.
func checkLabels(labels map[string]string) error {
	for k, v := range labels {
		if !labelText(k) || !labelText(v) || k == "" {
			return fmt.Errorf("image: label %q=%q: use letters, digits and . _ - / : only", k, v)
		}
	}
	return nil
}

func labelText(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-/:", r)) {
			return false
		}
	}
	return true
}

// labelChange is the LABEL instruction for star-agent's labels and extra.
func labelChange(role, hash string, extra map[string]string) string {
	labels := map[string]string{LabelManaged: "true", LabelRole: role}
	for k, v := range extra {
		labels[k] = v
	}
	labels[LabelRecipe] = hash
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("LABEL")
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%s", k, labels[k])
	}
	return b.String()
}

// labelLines lists labels in a stable order, for a recipe hash.
func labelLines(labels map[string]string) []string {
	var out []string
	for k, v := range labels {
		out = append(out, "label "+k+"="+v)
	}
	sort.Strings(out)
	return out
}

// debianName reports whether s is a valid Debian package name (Debian
// Policy 5.6.1), so that no flag can smuggle an option or a path to apt.
func debianName(s string) bool {
	if len(s) < 2 || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

// packageList is DataStack plus extra, checked, sorted and without repeats.
func packageList(extra []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, p := range append(append([]string(nil), DataStack...), extra...) {
		p = strings.TrimSpace(p)
		if p == "" || seen[p] {
			continue
		}
		if !debianName(p) {
			return nil, fmt.Errorf("image: %q is not a Debian package name (lowercase letters, digits, + - and ., starting with a letter or digit)", p)
		}
		seen[p] = true
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}
