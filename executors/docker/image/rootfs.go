package image

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
)

// recipeVersion changes whenever the way a root filesystem is made changes
// in a way its arguments below do not show.
const recipeVersion = "star-agent rootfs recipe 1"

// pythranStub is the control file of an empty package that stands in for
// python3-pythran. Debian's python3-scipy depends on Pythran, a compiler
// SciPy needs only at build time, which pulls in gcc, g++, the Boost and
// OpenBLAS headers and python3-dev: 450 MB of the image for nothing.
const pythranStub = `Package: python3-pythran
Version: 0.0~star-agent1
Architecture: all
Maintainer: star-agent <star-agent@localhost>
Description: stand-in for Pythran, which SciPy needs only to compile
 star-agent's images run SciPy and never compile it.
`

// sandboxUser is the non-root account the images run as.
const (
	sandboxUID  = "1000"
	sandboxUser = "sandbox:x:1000:1000:star-agent sandbox:/tmp:/usr/sbin/nologin"
)

// rootfsRecipe is how one root filesystem is made: mmdebstrap's arguments
// (with a placeholder for the stub's path) and the import's changes.
type rootfsRecipe struct {
	args     []string // mmdebstrap arguments; stubPath marks the stub .deb
	changes  []string // Dockerfile instructions applied by the import
	labels   map[string]string
	packages []string // the Debian packages asked for
	sources  []string // apt sources
	hash     string
}

const stubPath = "@STUB@"

func newRootfsRecipe(opts Options) (*rootfsRecipe, error) {
	pkgs, err := packageList(opts.AddDebian)
	if err != nil {
		return nil, err
	}
	sources := opts.Sources
	if len(sources) == 0 {
		sources = DefaultSources
	}
	for _, s := range sources {
		if strings.HasPrefix(strings.TrimSpace(s), "-") {
			return nil, fmt.Errorf("image: apt source %q starts with '-'", s)
		}
	}
	r := &rootfsRecipe{packages: pkgs, sources: sources, labels: opts.Labels}
	r.args = []string{
		"--variant=essential",
		"--aptopt=APT::Install-Recommends \"false\"",
		"--dpkgopt=path-exclude=/usr/share/doc/*",
		"--dpkgopt=path-include=/usr/share/doc/*/copyright",
		"--dpkgopt=path-exclude=/usr/share/man/*",
		"--dpkgopt=path-exclude=/usr/share/info/*",
		"--dpkgopt=path-exclude=/usr/share/locale/*",
		"--dpkgopt=path-exclude=/usr/share/lintian/*",
		// A merged /usr made by mmdebstrap itself: the usrmerge package
		// would pull in Perl (47 MB) only to convert a tree that is new.
		"--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr",
		"--hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount",
		"--include=" + stubPath,
		"--include=" + strings.Join(pkgs, ","),
		"--customize-hook=echo '" + sandboxUser + "' >> \"$1/etc/passwd\" && echo 'sandbox:x:1000:' >> \"$1/etc/group\"",
		// What dpkg keeps for its own rollback is dead weight in an image.
		"--customize-hook=rm -f \"$1\"/var/cache/debconf/*-old \"$1\"/var/lib/dpkg/*-old \"$1\"/var/log/*.log",
		Suite, "-",
	}
	r.args = append(r.args, sources...)
	r.changes = []string{
		"ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"ENV LANG=C.UTF-8",
		"ENV HOME=/tmp",
		"ENV MPLBACKEND=Agg",
		"ENV MPLCONFIGDIR=/tmp/matplotlib",
		"ENV PYTHONDONTWRITEBYTECODE=1",
		"USER " + sandboxUID + ":" + sandboxUID,
		"WORKDIR /tmp",
		`CMD ["python3"]`,
	}
	lines := append([]string{recipeVersion, pythranStub}, r.args...)
	lines = append(lines, r.changes...)
	r.hash = hashOf(append(lines, labelLines(opts.Labels)...)...)
	return r, nil
}

// build runs mmdebstrap and streams its tarball into the engine's import.
func (r *rootfsRecipe) build(ctx context.Context, cli *client.Client, p *progress, tag string) error {
	mm, err := exec.LookPath("mmdebstrap")
	if err != nil {
		return fmt.Errorf("image: mmdebstrap is not installed; install it (as root: apt-get install -y mmdebstrap) and run the build again")
	}
	dir, err := os.MkdirTemp("", "star-agent-image-")
	if err != nil {
		return fmt.Errorf("image: %w", err)
	}
	defer func() {
		if err := removeTree(dir); err != nil {
			p.say("%v", err)
		}
	}()
	// In unshare mode (not root) the unshared user must read the stub.
	if err := os.Chmod(dir, 0o755); err != nil {
		return fmt.Errorf("image: %w", err)
	}
	stub := filepath.Join(dir, "python3-pythran-stub.deb")
	if err := writeDeb(stub, pythranStub); err != nil {
		return fmt.Errorf("image: write the Pythran stand-in: %w", err)
	}
	args := make([]string, len(r.args))
	for i, a := range r.args {
		args[i] = strings.ReplaceAll(a, stubPath, stub)
	}

	p.say("mmdebstrap %s: %s", Suite, strings.Join(r.packages, " "))
	cmd := exec.Command(mm, args...)
	// mmdebstrap's own temporary tree goes under dir too, so that a build
	// killed half-way leaves nothing behind once dir is removed.
	cmd.Env = append(os.Environ(), "TMPDIR="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pr, pw := io.Pipe()
	counted := &countingWriter{w: pw}
	cmd.Stdout = counted
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return fmt.Errorf("image: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("image: start mmdebstrap: %w", err)
	}
	// A cancelled build kills mmdebstrap's whole process group (apt and
	// dpkg too): on SIGTERM mmdebstrap would first finish installing, a
	// minute or more. removeTree then unmounts and removes what it left.
	stop := context.AfterFunc(ctx, func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	defer stop()

	var tail lineTail
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(stderr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			tail.add(line)
			// mmdebstrap's own phases; apt's and dpkg's chatter stays in
			// the tail for an error message.
			if strings.HasPrefix(line, "I: ") && !strings.HasPrefix(line, "I: running") {
				p.say("mmdebstrap: %s", strings.TrimPrefix(line, "I: "))
			}
		}
	}()
	waitErr := make(chan error, 1)
	go func() {
		wg.Wait()
		err := cmd.Wait()
		if err != nil {
			pw.CloseWithError(fmt.Errorf("mmdebstrap: %w", err))
		} else {
			pw.Close()
		}
		waitErr <- err
	}()

	changes := append(append([]string(nil), r.changes...), labelChange("image", r.hash, r.labels))
	importErr := importTarball(ctx, cli, pr, tag, changes)
	pr.CloseWithError(io.ErrClosedPipe) // unblock mmdebstrap if the import gave up
	if err := <-waitErr; err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("image: build cancelled: %w", ctx.Err())
		}
		return fmt.Errorf("image: mmdebstrap failed (%v); its last lines:\n%s", err, tail.String())
	}
	if importErr != nil {
		return importErr
	}
	p.say("imported a %s root filesystem as %s", HumanSize(counted.n), tag)
	return nil
}

// importTarball loads a root filesystem tarball as image tag, with the
// given Dockerfile changes.
func importTarball(ctx context.Context, cli *client.Client, tarball io.Reader, tag string, changes []string) error {
	rc, err := cli.ImageImport(ctx, image.ImportSource{Source: tarball, SourceName: "-"}, tag, image.ImportOptions{
		Message: "star-agent sandbox image build",
		Changes: changes,
	})
	if err != nil {
		return fmt.Errorf("docker: import %s: %w", tag, err)
	}
	defer rc.Close()
	return jsonStreamError(rc, "docker: import "+tag)
}

// jsonStreamError reads an engine progress stream to its end and returns
// the first error it carries.
func jsonStreamError(r io.Reader, what string) error {
	dec := json.NewDecoder(r)
	for {
		var m struct {
			Error       string `json:"error"`
			ErrorDetail struct {
				Message string `json:"message"`
			} `json:"errorDetail"`
		}
		if err := dec.Decode(&m); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if m.Error != "" {
			return fmt.Errorf("%s: %s", what, m.Error)
		}
	}
}

// writeDeb writes a binary package with this control file and no files:
// an ar archive of debian-binary, control.tar.gz and data.tar.gz.
func writeDeb(path, control string) error {
	tgz := func(files map[string]string) []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		tw := tar.NewWriter(zw)
		tw.WriteHeader(&tar.Header{Name: "./", Typeflag: tar.TypeDir, Mode: 0o755, ModTime: time.Unix(0, 0)})
		for name, body := range files {
			tw.WriteHeader(&tar.Header{Name: "./" + name, Mode: 0o644, Size: int64(len(body)), ModTime: time.Unix(0, 0)})
			io.WriteString(tw, body)
		}
		tw.Close()
		zw.Close()
		return buf.Bytes()
	}
	var ar bytes.Buffer
	ar.WriteString("!<arch>\n")
	member := func(name string, body []byte) {
		fmt.Fprintf(&ar, "%-16s%-12d%-6d%-6d%-8s%-10d`\n", name, 0, 0, 0, "100644", len(body))
		ar.Write(body)
		if len(body)%2 == 1 {
			ar.WriteByte('\n')
		}
	}
	member("debian-binary", []byte("2.0\n"))
	member("control.tar.gz", tgz(map[string]string{"control": control}))
	member("data.tar.gz", tgz(nil))
	return os.WriteFile(path, ar.Bytes(), 0o644)
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

// lineTail keeps the last lines of a command's output for its error.
type lineTail struct {
	mu    sync.Mutex
	lines []string
}

func (t *lineTail) add(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.lines = append(t.lines, s); len(t.lines) > 15 {
		t.lines = t.lines[1:]
	}
}

func (t *lineTail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return "  " + strings.Join(t.lines, "\n  ")
}
