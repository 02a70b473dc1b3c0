package image

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/client"
)

// engine returns a client for the machine's Docker engine. Without one the
// test is skipped, except where CI=true: there it fails.
func engine(t *testing.T) *client.Client {
	t.Helper()
	cli, err := NewClient()
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err = cli.Ping(ctx)
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no Docker engine, and CI=true: %v", err)
		}
		t.Skipf("no Docker engine: %v", err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

// defaultImage checks that star-agent/python:latest is present and current.
// Tests never build it (that downloads from Debian's mirrors): .ci/run does,
// and so does "star-agent sandbox image build". Without it the test is
// skipped, except where CI=true.
func defaultImage(t *testing.T, cli *client.Client) Result {
	t.Helper()
	root, err := newRootfsRecipe(Options{})
	if err != nil {
		t.Fatal(err)
	}
	info, err := cli.ImageInspect(context.Background(), DefaultTag)
	if err != nil || info.Config == nil || info.Config.Labels[LabelRecipe] != root.hash {
		msg := fmt.Sprintf("%s is missing or out of date (%v): run star-agent sandbox image build", DefaultTag, err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	var log bytes.Buffer
	res, err := Build(context.Background(), Options{Client: cli, Progress: &log})
	if err != nil || !res.UpToDate {
		t.Fatalf("build the default image: %+v, %v\n%s", res, err, log.String())
	}
	return res
}

// testLabel marks what one test creates, so that its Prune leaves alone
// what other tests running at the same time have made.
func testLabel(t *testing.T) (string, string) {
	return "io.star-agent.test", strings.ToLower(t.Name()) + "-" + strings.ReplaceAll(time.Now().Format("150405.000000"), ".", "")
}

func TestBuildPresentIsUpToDate(t *testing.T) {
	cli := engine(t)
	first := defaultImage(t, cli)
	var log bytes.Buffer
	again, err := Build(context.Background(), Options{Client: cli, Progress: &log})
	if err != nil {
		t.Fatal(err)
	}
	if !again.UpToDate || again.ID != first.ID || again.Tag != DefaultTag || again.Recipe != first.Recipe {
		t.Fatalf("second build: %+v, want the same image %s up to date", again, first.ID)
	}
	if !strings.Contains(log.String(), "is up to date") || again.Size < 100e6 {
		t.Errorf("progress %q, size %d: want 'is up to date' and the image's size", log.String(), again.Size)
	}
	info, err := cli.ImageInspect(context.Background(), DefaultTag)
	if err != nil {
		t.Fatal(err)
	}
	labels := info.Config.Labels
	if labels[LabelManaged] != "true" || labels[LabelRole] != "image" || labels[LabelRecipe] != first.Recipe {
		t.Errorf("labels %v", labels)
	}
	if info.Config.User != "1000:1000" {
		t.Errorf("user %q, want 1000:1000", info.Config.User)
	}
}

func TestDefaultImageRunsTheDataStack(t *testing.T) {
	cli := engine(t)
	defaultImage(t, cli)
	code, out, err := Run(context.Background(), cli, DefaultTag, []string{"python3", "-c", `
import os, numpy, pandas, scipy.optimize, sympy, sklearn.linear_model, PIL.Image
import matplotlib, matplotlib.pyplot as plt
plt.plot([1, 2, 3]); plt.savefig("/tmp/plot.png")
df = pandas.DataFrame({"x": numpy.arange(4)})
print(os.getuid(), matplotlib.get_backend(), int(df.x.sum()), sympy.isprime(514229),
      round(float(scipy.optimize.minimize_scalar(lambda x: (x - 3) ** 2).x), 3))
`})
	if err != nil {
		t.Fatal(err)
	}
	if want := "1000 agg 6 True 3.0\n"; code != 0 || out != want {
		t.Fatalf("exit %d, output %q, want %q", code, out, want)
	}
	// Nothing can be installed at run time: there is no apt, no pip.
	code, out, err = Run(context.Background(), cli, DefaultTag, []string{"sh", "-c", "command -v apt-get pip pip3 || echo none"})
	if err != nil || strings.TrimSpace(out) != "none" {
		t.Fatalf("exit %d, output %q, err %v: want no package manager", code, out, err)
	}
}

func TestPackagesLayer(t *testing.T) {
	cli := engine(t)
	base := defaultImage(t, cli)
	ctx := context.Background()
	key, val := testLabel(t)
	first, second := t.TempDir(), t.TempDir()
	write := func(path, text string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(first, "sa_probe", "__init__.py"), "VALUE = 'first'\n")
	write(filepath.Join(first, "sa_probe", "sub", "deep.py"), "DEEP = 7\n")
	write(filepath.Join(second, "sa_probe", "__init__.py"), "VALUE = 'second'\n") // shadowed by first
	write(filepath.Join(second, "sa_other.py"), "OTHER = 'other'\n")

	tag := "star-agent/test-image:" + val
	opts := Options{Client: cli, Tag: tag, Packages: []string{first, second},
		Labels: map[string]string{LabelRole: "test-image", key: val}}
	res, err := Build(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cli.ImageRemove(context.Background(), tag, imageRemoveOptions)
		cli.ImageRemove(context.Background(), res.ID, imageRemoveOptions) // untagged by the rebuild
	})
	if res.UpToDate || res.Tag != tag {
		t.Fatalf("first build %+v", res)
	}
	info, err := cli.ImageInspect(ctx, tag)
	if err != nil {
		t.Fatal(err)
	}
	if l := info.Config.Labels; l[LabelRole] != "test-image" || l[key] != val || l[LabelManaged] != "true" || l[LabelRecipe] != res.Recipe {
		t.Errorf("labels %v", l)
	}
	if len(info.Config.Cmd) != 1 || info.Config.Cmd[0] != "python3" || info.Config.User != "1000:1000" {
		t.Errorf("cmd %v user %q: want the base's", info.Config.Cmd, info.Config.User)
	}
	code, out, err := Run(ctx, cli, tag, []string{"python3", "-c",
		"import sa_probe, sa_probe.sub.deep as d, sa_other, numpy; print(sa_probe.VALUE, d.DEEP, sa_other.OTHER)"})
	if err != nil || code != 0 || out != "first 7 other\n" {
		t.Fatalf("exit %d, output %q, err %v", code, out, err)
	}

	again, err := Build(ctx, opts)
	if err != nil || !again.UpToDate || again.ID != res.ID {
		t.Fatalf("second build %+v, %v: want up to date", again, err)
	}
	// A changed file is a changed recipe; the base is not rebuilt.
	write(filepath.Join(second, "sa_other.py"), "OTHER = 'changed'\n")
	changed, err := Build(ctx, opts)
	if err != nil || changed.UpToDate || changed.ID == res.ID {
		t.Fatalf("build after a change %+v, %v: want a new image", changed, err)
	}
	if now := defaultImage(t, cli); now.ID != base.ID {
		t.Errorf("the base image changed: %s, was %s", now.ID, base.ID)
	}
	code, out, _ = Run(ctx, cli, tag, []string{"python3", "-c", "import sa_other; print(sa_other.OTHER)"})
	if code != 0 || out != "changed\n" {
		t.Fatalf("exit %d, output %q", code, out)
	}
}

func TestPruneRemovesOnlyLabelled(t *testing.T) {
	cli := engine(t)
	defaultImage(t, cli)
	ctx := context.Background()
	key, val := testLabel(t)
	managed := map[string]string{LabelManaged: "true", LabelRole: "executor", key: val}
	mine := map[string]string{key: val} // same test, without star-agent's label

	var cleanup []func()
	t.Cleanup(func() {
		for _, f := range cleanup {
			f()
		}
	})
	newNetwork := func(name string, labels map[string]string) string {
		n, err := cli.NetworkCreate(ctx, name, network.CreateOptions{Labels: labels, Internal: true})
		if err != nil {
			t.Fatal(err)
		}
		cleanup = append(cleanup, func() { cli.NetworkRemove(context.Background(), n.ID) })
		return n.ID
	}
	newContainer := func(img string, labels map[string]string, start bool) string {
		c, err := cli.ContainerCreate(ctx, &container.Config{Image: img, Cmd: []string{"sleep", "300"}, Labels: labels},
			&container.HostConfig{NetworkMode: network.NetworkNone, Init: ptr(true)}, nil, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		cleanup = append(cleanup, func() {
			cli.ContainerRemove(context.Background(), c.ID, container.RemoveOptions{Force: true})
		})
		if start {
			if err := cli.ContainerStart(ctx, c.ID, container.StartOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		return c.ID
	}
	newImage := func(tag string, labels map[string]string) {
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		tw.WriteHeader(&tar.Header{Name: "hello", Mode: 0o644, Size: 2})
		tw.Write([]byte("hi"))
		tw.Close()
		changes := []string{"LABEL " + key + "=" + val}
		for k, v := range labels {
			changes = append(changes, "LABEL "+k+"="+v)
		}
		if err := importTarball(ctx, cli, &buf, tag, changes); err != nil {
			t.Fatal(err)
		}
		cleanup = append(cleanup, func() { cli.ImageRemove(context.Background(), tag, imageRemoveOptions) })
	}

	newImage("star-agent/test-image:"+val, map[string]string{LabelManaged: "true", LabelRole: "test-image"})
	newImage("sa-test-keep:"+val, nil)
	running := newContainer(DefaultTag, managed, true)
	stopped := newContainer(DefaultTag, managed, false)
	// Docker copies an image's labels to its containers: the one to keep
	// comes from an image without star-agent's label.
	keptContainer := newContainer("sa-test-keep:"+val, mine, false)
	net := newNetwork("sa-test-"+val, managed)
	keptNet := newNetwork("sa-test-keep-"+val, mine)
	vol, err := cli.VolumeCreate(ctx, volume.CreateOptions{Name: "sa-test-" + val, Labels: managed})
	if err != nil {
		t.Fatal(err)
	}
	cleanup = append(cleanup, func() { cli.VolumeRemove(context.Background(), vol.Name, true) })

	scope := []string{key + "=" + val}
	pruned, err := Prune(ctx, PruneOptions{Client: cli, Labels: scope})
	if err != nil {
		t.Fatal(err)
	}
	if len(pruned.Containers) != 2 || len(pruned.Networks) != 1 || len(pruned.Volumes) != 1 || len(pruned.Images) != 0 {
		t.Fatalf("pruned %+v: want 2 containers, a network and a volume, no image", pruned)
	}
	for _, id := range []string{running, stopped} {
		if _, err := cli.ContainerInspect(ctx, id); !cerrdefs.IsNotFound(err) {
			t.Errorf("container %s: %v, want it gone", shortID(id), err)
		}
	}
	if _, err := cli.NetworkInspect(ctx, net, network.InspectOptions{}); !cerrdefs.IsNotFound(err) {
		t.Errorf("network: %v, want it gone", err)
	}
	if _, err := cli.VolumeInspect(ctx, vol.Name); !cerrdefs.IsNotFound(err) {
		t.Errorf("volume: %v, want it gone", err)
	}
	// What lacks io.star-agent.managed stays.
	if _, err := cli.ContainerInspect(ctx, keptContainer); err != nil {
		t.Errorf("unlabelled container: %v", err)
	}
	if _, err := cli.NetworkInspect(ctx, keptNet, network.InspectOptions{}); err != nil {
		t.Errorf("unlabelled network: %v", err)
	}

	pruned, err = Prune(ctx, PruneOptions{Client: cli, Labels: scope, Images: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(pruned.Images) != 1 || pruned.Images[0] != "star-agent/test-image:"+val || len(pruned.Containers)+len(pruned.Networks)+len(pruned.Volumes) != 0 {
		t.Fatalf("pruned %+v: want the labelled image only", pruned)
	}
	if _, err := cli.ImageInspect(ctx, "sa-test-keep:"+val); err != nil {
		t.Errorf("unlabelled image: %v", err)
	}
	if _, err := cli.ImageInspect(ctx, DefaultTag); err != nil {
		t.Errorf("the default image went too: %v", err)
	}
	left, _ := cli.ContainerList(ctx, container.ListOptions{All: true,
		Filters: filters.NewArgs(filters.Arg("label", LabelManaged+"=true"), filters.Arg("label", key+"="+val))})
	if len(left) != 0 {
		t.Errorf("%d labelled containers left", len(left))
	}
	if again, err := Prune(ctx, PruneOptions{Client: cli, Labels: scope, Images: true}); err != nil || !again.Empty() {
		t.Errorf("second prune %+v, %v: want nothing", again, err)
	}
}

func ptr[T any](v T) *T { return &v }

// BenchmarkBuildUpToDate is "star-agent sandbox image build" on a present,
// current image: one inspect of the tag.
func BenchmarkBuildUpToDate(b *testing.B) {
	cli, err := NewClient()
	if err != nil {
		b.Skip(err)
	}
	defer cli.Close()
	ctx := context.Background()
	if res, err := Build(ctx, Options{Client: cli}); err != nil {
		b.Skip(err)
	} else {
		b.ReportMetric(float64(res.Size)/1e6, "image-MB")
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if res, err := Build(ctx, Options{Client: cli}); err != nil || !res.UpToDate {
			b.Fatalf("%+v, %v", res, err)
		}
	}
}

// TestCancelLeavesNothing cancels a build while mmdebstrap waits on its
// mirror (a loopback server that never answers) and checks that the build
// stops at once and leaves no process, temporary tree, mount or image.
func TestCancelLeavesNothing(t *testing.T) {
	if _, err := exec.LookPath("mmdebstrap"); err != nil {
		t.Skip("no mmdebstrap")
	}
	cli := engine(t)
	asked := make(chan struct{})
	var once sync.Once
	var hung sync.WaitGroup
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hung.Add(1)
		defer hung.Done()
		once.Do(func() { close(asked) })
		<-r.Context().Done() // answers nothing, until apt hangs up
	}))
	defer srv.Close()

	_, val := testLabel(t)
	tag := "star-agent/test-image:" + val
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		_, err := Build(ctx, Options{Client: cli, Tag: tag, Progress: log,
			Sources: []string{"deb " + srv.URL + "/debian bookworm main"}})
		done <- err
	}()
	select {
	case <-asked:
	case err := <-done:
		t.Fatalf("build ended before asking the mirror: %v\n%s", err, log.String())
	case <-time.After(2 * time.Minute):
		t.Fatalf("mmdebstrap never asked the mirror\n%s", log.String())
	}
	cancel()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		t.Fatalf("a cancelled build still runs after a minute\n%s", log.String())
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled\n%s", err, log.String())
	}
	hung.Wait() // apt is gone: its requests were hung up
	m := regexp.MustCompile(`using (\S+) as tempdir`).FindStringSubmatch(log.String())
	if m == nil {
		t.Fatalf("no tempdir in the progress:\n%s", log.String())
	}
	tree := m[1]
	if !strings.Contains(tree, "star-agent-image-") {
		t.Fatalf("mmdebstrap's tree %s is not under the build's directory", tree)
	}
	if _, err := os.Stat(filepath.Dir(tree)); !os.IsNotExist(err) {
		t.Errorf("%s: %v, want it removed", filepath.Dir(tree), err)
	}
	if mi, _ := os.ReadFile("/proc/self/mountinfo"); strings.Contains(string(mi), filepath.Dir(tree)) {
		t.Errorf("mounts left under %s", filepath.Dir(tree))
	}
	if _, err := cli.ImageInspect(context.Background(), tag); !cerrdefs.IsNotFound(err) {
		t.Errorf("image %s: %v, want none", tag, err)
	}
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
