package image

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/stdcopy"
)

// Where a layer puts things in the image.
const (
	PackagesDir = "/opt/star-agent/packages"
	pthFile     = "/usr/lib/python3/dist-packages/star-agent-packages.pth"
	AgentPath   = "/usr/local/bin/star-agent"
)

// layerRecipe is what goes on top of a root filesystem: directories of
// pure-Python packages and the star-agent binary.
type layerRecipe struct {
	packages []packageDir
	agent    string // path of the binary, or ""
	agentSum string
	static   bool   // the binary has no ELF interpreter
	interp   string // its interpreter when it has one
	labels   map[string]string
}

type packageDir struct {
	dir   string
	files []string // slash-separated, relative, sorted by WalkDir
	sum   string
}

func newLayerRecipe(opts Options) (*layerRecipe, error) {
	if len(opts.Packages) == 0 && opts.Agent == "" {
		return nil, nil
	}
	l := &layerRecipe{labels: opts.Labels}
	for _, dir := range opts.Packages {
		pd, err := scanPackages(dir)
		if err != nil {
			return nil, err
		}
		l.packages = append(l.packages, pd)
	}
	if opts.Agent != "" {
		if err := l.checkAgent(opts.Agent); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// scanPackages lists a packages directory and hashes its contents. Only
// directories and regular files are accepted: a symbolic link could copy
// any file of the host into the image.
func scanPackages(dir string) (packageDir, error) {
	pd := packageDir{dir: dir}
	fi, err := os.Stat(dir)
	if err != nil {
		return pd, fmt.Errorf("image: packages: %w", err)
	}
	if !fi.IsDir() {
		return pd, fmt.Errorf("image: packages: %s is not a directory (give the directory that holds the unpacked wheels)", dir)
	}
	h := sha256.New()
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == ".":
			return nil
		case d.IsDir():
		case d.Type().IsRegular():
			pd.files = append(pd.files, rel)
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			defer f.Close()
			info, _ := f.Stat()
			fmt.Fprintf(h, "%s\x00%d\x00%o\x00", rel, info.Size(), info.Mode().Perm()&0o111)
			if _, err := io.Copy(h, f); err != nil {
				return err
			}
			return nil
		default:
			return fmt.Errorf("%s is %s, not a regular file or directory; copy the file itself into the directory", path, kindOf(d.Type()))
		}
		pd.files = append(pd.files, rel+"/")
		fmt.Fprintf(h, "%s/\x00", rel)
		return nil
	})
	if err != nil {
		return pd, fmt.Errorf("image: packages: %w", err)
	}
	if len(pd.files) == 0 {
		return pd, fmt.Errorf("image: packages: %s is empty", dir)
	}
	pd.sum = hex.EncodeToString(h.Sum(nil))
	return pd, nil
}

// checkAgent checks that path is a Linux executable for this architecture
// and notes whether it is statically linked.
func (l *layerRecipe) checkAgent(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		if _, ok := err.(*elf.FormatError); ok || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("image: agent binary %s is not an ELF executable (give a star-agent built for Linux)", path)
		}
		return fmt.Errorf("image: agent binary: %w", err)
	}
	defer f.Close()
	want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[runtime.GOARCH]
	if f.Machine != want || f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN {
		return fmt.Errorf("image: agent binary %s is a %s %s file, not a %s executable", path, f.Machine, f.Type, runtime.GOARCH)
	}
	l.static = true
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			l.static = false
			b, _ := io.ReadAll(p.Open())
			l.interp = strings.TrimRight(string(b), "\x00")
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("image: agent binary: %w", err)
	}
	sum := sha256.Sum256(data)
	l.agent, l.agentSum = path, hex.EncodeToString(sum[:])
	return nil
}

func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file (" + m.String() + ")"
}

func (l *layerRecipe) hash(baseID string) string {
	lines := []string{"star-agent layer recipe 1", baseID}
	for i, pd := range l.packages {
		lines = append(lines, "packages "+strconv.Itoa(i)+" "+pd.sum)
	}
	if l.agent != "" {
		lines = append(lines, "agent "+l.agentSum)
	}
	return hashOf(append(lines, labelLines(l.labels)...)...)
}

// tarball is the layer's files as a tar stream rooted at /.
func (l *layerRecipe) tarball() (io.Reader, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	mtime := time.Unix(0, 0)
	dir := func(name string) error {
		return tw.WriteHeader(&tar.Header{Name: name + "/", Typeflag: tar.TypeDir, Mode: 0o755, ModTime: mtime})
	}
	file := func(name string, mode int64, data []byte) error {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: mode, Size: int64(len(data)), ModTime: mtime}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	if len(l.packages) > 0 {
		root := strings.TrimPrefix(PackagesDir, "/")
		for _, d := range []string{"opt", "opt/star-agent", root} {
			if err := dir(d); err != nil {
				return nil, err
			}
		}
		var pth strings.Builder
		for i, pd := range l.packages {
			top := root + "/" + strconv.Itoa(i)
			fmt.Fprintf(&pth, "%s/%d\n", PackagesDir, i)
			if err := dir(top); err != nil {
				return nil, err
			}
			for _, rel := range pd.files {
				if strings.HasSuffix(rel, "/") {
					if err := dir(top + "/" + strings.TrimSuffix(rel, "/")); err != nil {
						return nil, err
					}
					continue
				}
				src := filepath.Join(pd.dir, filepath.FromSlash(rel))
				data, err := os.ReadFile(src)
				if err != nil {
					return nil, fmt.Errorf("image: packages: %w", err)
				}
				mode := int64(0o644)
				if fi, err := os.Stat(src); err == nil && fi.Mode().Perm()&0o111 != 0 {
					mode = 0o755
				}
				if err := file(top+"/"+rel, mode, data); err != nil {
					return nil, err
				}
			}
		}
		if err := file(strings.TrimPrefix(pthFile, "/"), 0o644, []byte(pth.String())); err != nil {
			return nil, err
		}
	}
	if l.agent != "" {
		data, err := os.ReadFile(l.agent)
		if err != nil {
			return nil, fmt.Errorf("image: agent binary: %w", err)
		}
		if err := file(strings.TrimPrefix(AgentPath, "/"), 0o755, data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return &buf, nil
}

// build commits base plus the layer's files as tag. The container it
// commits is created, filled and removed, never started.
func (l *layerRecipe) build(ctx context.Context, cli *client.Client, p *progress, base, tag, hash string) error {
	role := "image"
	if l.agent != "" {
		role = "agent"
	}
	for _, pd := range l.packages {
		p.say("adding %d files of %s under %s", len(pd.files), pd.dir, PackagesDir)
	}
	if l.agent != "" {
		if l.static {
			p.say("adding %s (statically linked) as %s", l.agent, AgentPath)
		} else {
			p.say("adding %s as %s: it is dynamically linked (%s), so it depends on the image's C library; a CGO_ENABLED=0 build is static", l.agent, AgentPath, l.interp)
		}
	}
	files, err := l.tarball()
	if err != nil {
		return err
	}
	if r := l.labels[LabelRole]; r != "" {
		role = r
	}
	created, err := cli.ContainerCreate(ctx,
		&container.Config{Image: base, Cmd: []string{"true"}, NetworkDisabled: true,
			Labels: map[string]string{LabelManaged: "true", LabelRole: role}},
		&container.HostConfig{NetworkMode: network.NetworkNone}, nil, nil, "")
	if err != nil {
		return fmt.Errorf("docker: create a container from %s: %w", base, err)
	}
	defer cli.ContainerRemove(context.WithoutCancel(ctx), created.ID, container.RemoveOptions{Force: true})
	if err := cli.CopyToContainer(ctx, created.ID, "/", files, container.CopyToContainerOptions{}); err != nil {
		return fmt.Errorf("docker: copy the layer's files: %w", err)
	}
	changes := []string{
		labelChange(role, hash, l.labels),
		`CMD ["python3"]`,
	}
	if l.agent != "" {
		changes = append(changes, `ENTRYPOINT ["`+AgentPath+`"]`, `CMD ["--help"]`)
	}
	if _, err := cli.ContainerCommit(ctx, created.ID, container.CommitOptions{
		Reference: tag,
		Comment:   "star-agent sandbox image build, recipe " + hash,
		Changes:   changes,
	}); err != nil {
		return fmt.Errorf("docker: commit %s: %w", tag, err)
	}
	if l.agent != "" {
		// The binary must run in the image it was put in.
		code, out, err := Run(ctx, cli, tag, []string{"--help"})
		if err != nil {
			return err
		}
		if code != 0 {
			cli.ImageRemove(context.WithoutCancel(ctx), tag, imageRemoveOptions)
			return fmt.Errorf("image: %s --help exits with status %d in the image (removed it again):\n%s", AgentPath, code, out)
		}
		p.say("%s runs in the image", AgentPath)
	}
	return nil
}

// Run runs cmd in a new container of img, with no network, as the image's
// user, and returns its exit status and combined output (at most 64 KiB).
// The container is removed before Run returns.
func Run(ctx context.Context, cli *client.Client, img string, cmd []string) (int, string, error) {
	created, err := cli.ContainerCreate(ctx,
		&container.Config{Image: img, Cmd: cmd, NetworkDisabled: true,
			Labels: map[string]string{LabelManaged: "true", LabelRole: "image"}},
		&container.HostConfig{NetworkMode: network.NetworkNone, CapDrop: []string{"ALL"},
			SecurityOpt: []string{"no-new-privileges"}, ReadonlyRootfs: true,
			Tmpfs: map[string]string{"/tmp": "rw,nosuid,nodev,size=64m"}}, nil, nil, "")
	if err != nil {
		return 0, "", fmt.Errorf("docker: create a container from %s: %w", img, err)
	}
	defer cli.ContainerRemove(context.WithoutCancel(ctx), created.ID, container.RemoveOptions{Force: true})
	waitC, errC := cli.ContainerWait(ctx, created.ID, container.WaitConditionNextExit)
	if err := cli.ContainerStart(ctx, created.ID, container.StartOptions{}); err != nil {
		return 0, "", fmt.Errorf("docker: start a container from %s: %w", img, err)
	}
	var code int
	select {
	case w := <-waitC:
		if w.Error != nil {
			return 0, "", fmt.Errorf("docker: wait for %s: %s", img, w.Error.Message)
		}
		code = int(w.StatusCode)
	case err := <-errC:
		return 0, "", fmt.Errorf("docker: wait for %s: %w", img, err)
	}
	logs, err := cli.ContainerLogs(ctx, created.ID, container.LogsOptions{ShowStdout: true, ShowStderr: true})
	if err != nil {
		return code, "", fmt.Errorf("docker: logs of %s: %w", img, err)
	}
	defer logs.Close()
	var out bytes.Buffer
	w := &limitWriter{w: &out, n: 64 << 10}
	stdcopy.StdCopy(w, w, logs)
	return code, out.String(), nil
}

type limitWriter struct {
	w io.Writer
	n int
}

func (l *limitWriter) Write(b []byte) (int, error) {
	n := len(b)
	if len(b) > l.n {
		b = b[:l.n]
	}
	l.n -= len(b)
	l.w.Write(b)
	return n, nil
}
