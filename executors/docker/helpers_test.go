package docker_test

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/client"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/docker"
)

// runLabel marks every container this test binary creates, so that the
// cleanup check counts only ours when other suites use the engine too.
const runLabel = "io.star-agent.test-run"

var runID = fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano())

func TestMain(m *testing.M) {
	if img, ok := os.LookupEnv(childEnv); ok {
		os.Exit(orphanChild(img))
	}
	if img, ok := os.LookupEnv(poolChildEnv); ok {
		os.Exit(poolChild(img))
	}
	code := m.Run()
	if err := leftovers(); err != nil {
		fmt.Fprintln(os.Stderr, "cleanup:", err)
		code = 1
	}
	os.Exit(code)
}

// leftovers reports containers, volumes and networks with the executor's
// labels and this run's.
func leftovers() error {
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return nil
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := cli.Ping(ctx); err != nil {
		return nil
	}
	f := filters.NewArgs(filters.Arg("label", docker.LabelManaged+"=true"), filters.Arg("label", docker.LabelRole+"="+docker.RoleExecutor), filters.Arg("label", runLabel+"="+runID))
	cs, err := cli.ContainerList(ctx, listAll(f))
	if err != nil {
		return err
	}
	if len(cs) > 0 {
		var ids []string
		for _, c := range cs {
			ids = append(ids, c.ID[:12]+" ("+c.State+")")
			// Removed, so that a failing run leaves nothing either.
			cli.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true})
		}
		return fmt.Errorf("%d container(s) left behind: %s", len(cs), strings.Join(ids, ", "))
	}
	// The executor puts its labels, and so the run label, on whatever it
	// creates; other suites may hold labelled volumes and networks now.
	vs, err := cli.VolumeList(ctx, volumeList(f))
	if err != nil {
		return err
	}
	if len(vs.Volumes) > 0 {
		return fmt.Errorf("%d volume(s) left behind", len(vs.Volumes))
	}
	ns, err := cli.NetworkList(ctx, networkList(f))
	if err != nil {
		return err
	}
	if len(ns) > 0 {
		return fmt.Errorf("%d network(s) left behind", len(ns))
	}
	return nil
}

// inCI reports CI=true, where missing prerequisites fail instead of skip.
func inCI() bool { return os.Getenv("CI") == "true" }

func skipOrFail(t testing.TB, format string, args ...any) {
	t.Helper()
	if inCI() {
		t.Fatalf(format+" (CI=true: this must not be skipped)", args...)
	}
	t.Skipf(format, args...)
}

var (
	engineOnce sync.Once
	engineCli  *client.Client
	engineErr  error
)

// engine returns a client of the Docker engine, or skips (fails in CI).
func engine(t testing.TB) *client.Client {
	t.Helper()
	engineOnce.Do(func() {
		cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
		if err != nil {
			engineErr = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := cli.Ping(ctx); err != nil {
			engineErr = err
			return
		}
		engineCli = cli
	})
	if engineErr != nil {
		skipOrFail(t, "no Docker engine: %v", engineErr)
	}
	return engineCli
}

var (
	imagesMu sync.Mutex
	images   = map[string]string{}
)

// testImage is the image of most tests: $STAR_AGENT_DOCKER_TEST_IMAGE if
// set, else a small image made of this machine's own python3 and its
// standard library (no registry needed), built once per content hash.
func testImage(t testing.TB) string {
	t.Helper()
	if img := os.Getenv("STAR_AGENT_DOCKER_TEST_IMAGE"); img != "" {
		return img
	}
	return hostImage(t, "python", nil, fillPython)
}

// entrypointImage is testImage with an ENTRYPOINT and a CMD of its own,
// which the executor must not run.
func entrypointImage(t testing.TB) string {
	t.Helper()
	return hostImage(t, "entrypoint", []string{`ENTRYPOINT ["/usr/bin/python3", "-c", "import sys; sys.exit(9)"]`, `CMD ["--help"]`}, fillPython)
}

func fillPython(b *rootBuilder) error {
	{
		py, err := filepath.EvalSymlinks("/usr/bin/python3")
		if err != nil {
			return fmt.Errorf("no /usr/bin/python3 on this machine: %w", err)
		}
		b.add(py)
		b.symlink("/usr/bin/python3", filepath.Base(py))
		b.libs(py)
		lib := "/usr/lib/" + filepath.Base(py)
		return filepath.Walk(lib, func(p string, fi os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			rel := strings.TrimPrefix(p, lib+"/")
			if fi.IsDir() && (rel == "test" || rel == "idlelib" || rel == "tkinter" || rel == "ensurepip" || rel == "lib2to3" || rel == "config-3.11-x86_64-linux-gnu") {
				return filepath.SkipDir
			}
			b.add(p)
			if strings.HasSuffix(p, ".so") {
				b.libs(p)
			}
			return nil
		})
	}
}

// noPythonImage has no python3 at all.
func noPythonImage(t testing.TB) string {
	return hostImage(t, "nopython", nil, func(b *rootBuilder) error { return nil })
}

// falsePythonImage has a python3 that exits at once with status 1 (a
// runner that cannot start).
func falsePythonImage(t testing.TB) string {
	return hostImage(t, "falsepython", nil, func(b *rootBuilder) error {
		b.file("/usr/bin/python3", "/usr/bin/false")
		b.libs("/usr/bin/false")
		return nil
	})
}

// hostImage builds star-agent/test-<kind>:<hash of the files> by docker
// import of a root filesystem that fill makes, unless it exists.
func hostImage(t testing.TB, kind string, changes []string, fill func(*rootBuilder) error) string {
	t.Helper()
	cli := engine(t)
	imagesMu.Lock()
	defer imagesMu.Unlock()
	if ref, ok := images[kind]; ok {
		return ref
	}
	b := newRootBuilder()
	b.dir("/tmp", 01777)
	b.dir("/etc", 0755)
	b.content("/etc/passwd", "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n")
	b.content("/etc/group", "root:x:0:\nnogroup:x:65534:\n")
	if err := fill(b); err != nil {
		t.Fatal(err)
	}
	if b.err != nil {
		t.Fatal(b.err)
	}
	changes = append(changes, "LABEL "+docker.LabelManaged+"=true "+docker.LabelRole+"=test-image")
	ref := "star-agent/test-" + kind + ":" + b.hash(changes)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := cli.ImageInspect(ctx, ref); err == nil {
		images[kind] = ref
		return ref
	} else if !cerrdefs.IsNotFound(err) {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(b.write(pw)) }()
	rc, err := cli.ImageImport(ctx, image.ImportSource{Source: pr, SourceName: "-"}, ref, image.ImportOptions{Changes: changes})
	if err != nil {
		pr.CloseWithError(err)
		t.Fatalf("import test image %s: %v", ref, err)
	}
	out, _ := io.ReadAll(rc)
	rc.Close()
	if _, err := cli.ImageInspect(ctx, ref); err != nil {
		t.Fatalf("import test image %s: %v\n%s", ref, err, out)
	}
	images[kind] = ref
	return ref
}

// dataImage is the default image with numpy and pandas, built by
// `star-agent sandbox image build`; tests that need it skip without it.
func dataImage(t testing.TB) string {
	t.Helper()
	cli := engine(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := cli.ImageInspect(ctx, docker.DefaultImage); err != nil {
		skipOrFail(t, "the image %s is not present (build it with `%s`): %v", docker.DefaultImage, docker.BuildCommand, err)
	}
	return docker.DefaultImage
}

// newExec returns an executor on the test image whose containers carry the
// run label; Close is a cleanup that must succeed.
func newExec(t testing.TB, opts docker.Options) *docker.Executor {
	t.Helper()
	if opts.Image == "" {
		opts.Image = testImage(t)
	}
	if opts.Labels == nil {
		opts.Labels = map[string]string{}
	}
	opts.Labels[runLabel] = runID
	if opts.Imports.Authorized == nil {
		opts.Imports = executors.ImportPolicy{Authorized: []string{"*"}}
	}
	e, err := docker.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return e
}

// rootBuilder collects the files of a root filesystem.
type rootBuilder struct {
	entries []entry
	canon   map[string]string
	err     error
}

type entry struct {
	name   string // absolute path in the image
	mode   os.FileMode
	link   string // symlink target
	source string // host file to copy
	data   string // literal content
	size   int64
	mtime  time.Time
	isDir  bool
}

func newRootBuilder() *rootBuilder { return &rootBuilder{canon: map[string]string{"/": "/"}} }

func (b *rootBuilder) dir(name string, mode os.FileMode) {
	b.entries = append(b.entries, entry{name: name, mode: mode, isDir: true})
	b.canon[name] = name
}

func (b *rootBuilder) content(name, data string) {
	b.entries = append(b.entries, entry{name: name, mode: 0644, data: data, size: int64(len(data))})
	b.canon[name] = name
}

func (b *rootBuilder) symlink(name, target string) {
	if _, ok := b.canon[name]; ok {
		return
	}
	b.add(filepath.Dir(name))
	b.entries = append(b.entries, entry{name: name, link: target})
	b.canon[name] = name
}

// file copies the host file src to name.
func (b *rootBuilder) file(name, src string) {
	fi, err := os.Stat(src)
	if err != nil {
		b.err = err
		return
	}
	b.add(filepath.Dir(name))
	b.entries = append(b.entries, entry{name: name, mode: fi.Mode().Perm(), source: src, size: fi.Size(), mtime: fi.ModTime()})
	b.canon[name] = name
}

// add copies the host path p (a file, directory or symlink, with its
// parent directories and what its symlinks point to) and returns its
// canonical path.
func (b *rootBuilder) add(p string) string {
	if c, ok := b.canon[p]; ok {
		return c
	}
	parent := b.add(filepath.Dir(p))
	real := filepath.Join(parent, filepath.Base(p))
	if c, ok := b.canon[real]; ok {
		b.canon[p] = c
		return c
	}
	fi, err := os.Lstat(real)
	if err != nil {
		if b.err == nil {
			b.err = err
		}
		return real
	}
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		target, _ := os.Readlink(real)
		b.entries = append(b.entries, entry{name: real, link: target})
		b.canon[real] = real
		abs := target
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(parent, target)
		}
		c := b.add(abs)
		b.canon[p] = c
		return c
	case fi.IsDir():
		b.entries = append(b.entries, entry{name: real, mode: 0755, isDir: true})
	default:
		b.entries = append(b.entries, entry{name: real, mode: fi.Mode().Perm(), source: real, size: fi.Size(), mtime: fi.ModTime()})
	}
	b.canon[real] = real
	b.canon[p] = real
	return real
}

// libs adds the shared libraries ldd lists for the ELF file p.
func (b *rootBuilder) libs(p string) {
	out, err := exec.Command("ldd", p).Output()
	if err != nil {
		return // not dynamic
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		for i, w := range f {
			if strings.HasPrefix(w, "/") && (i == 0 || f[i-1] == "=>") {
				b.add(w)
			}
		}
	}
}

func (b *rootBuilder) hash(changes []string) string {
	h := sha256.New()
	fmt.Fprintln(h, "recipe 1", changes)
	sorted := append([]entry(nil), b.entries...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].name < sorted[j].name })
	for _, e := range sorted {
		fmt.Fprintln(h, e.name, e.mode, e.link, e.source, e.data, e.size, e.mtime.UnixNano(), e.isDir)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func (b *rootBuilder) write(w io.Writer) error {
	tw := tar.NewWriter(w)
	for _, e := range b.entries {
		name := strings.TrimPrefix(e.name, "/")
		hdr := &tar.Header{Name: name, Mode: int64(e.mode), ModTime: e.mtime, Format: tar.FormatPAX}
		switch {
		case e.isDir:
			hdr.Typeflag, hdr.Name = tar.TypeDir, name+"/"
			hdr.Mode = int64(e.mode.Perm())
			if e.mode&os.ModeSticky != 0 || e.mode == 01777 {
				hdr.Mode = 01777
			}
		case e.link != "":
			hdr.Typeflag, hdr.Linkname, hdr.Mode = tar.TypeSymlink, e.link, 0777
		default:
			hdr.Typeflag, hdr.Size = tar.TypeReg, e.size
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		switch {
		case e.source != "":
			f, err := os.Open(e.source)
			if err != nil {
				return err
			}
			_, err = io.CopyN(tw, f, e.size)
			f.Close()
			if err != nil {
				return err
			}
		case e.data != "":
			io.WriteString(tw, e.data)
		}
	}
	return tw.Close()
}

func listAll(f filters.Args) container.ListOptions {
	return container.ListOptions{All: true, Filters: f}
}
func volumeList(f filters.Args) volume.ListOptions { return volume.ListOptions{Filters: f} }
func networkList(f filters.Args) network.ListOptions {
	return network.ListOptions{Filters: f}
}

// runtimes are the OCI runtimes the suites that take a runtime dimension
// run under: the engine's default (runc) and gVisor's runsc when the
// engine has it registered (`make gvisor`; in CI it must be).
func runtimes(t testing.TB) []string {
	t.Helper()
	if runscRegistered(t) {
		return []string{"runc", "runsc"}
	}
	if inCI() {
		t.Fatalf("CI=true but the Docker engine has no runsc runtime: .ci/run must run `make gvisor`")
	}
	t.Logf("runsc is not registered with the Docker engine (make gvisor): the runsc subtests do not run")
	return []string{"runc"}
}

// runscRegistered reports whether the engine lists the runtime runsc.
func runscRegistered(t testing.TB) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	info, err := engine(t).Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, ok := info.Runtimes["runsc"]
	return ok
}

// eachRuntime runs f as a subtest per runtime, "runtime=runc" and
// "runtime=runsc"; f gets the Options.Runtime to use ("" for runc, the
// engine's default).
func eachRuntime(t *testing.T, f func(t *testing.T, runtime string)) {
	for _, rt := range runtimes(t) {
		t.Run("runtime="+rt, func(t *testing.T) {
			if rt == "runc" {
				rt = ""
			}
			f(t, rt)
		})
	}
}
