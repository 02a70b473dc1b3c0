package docker

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types"
	ctr "github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/star-agent/star-agent/executors/runner"
)

// packagesDir is where PackageDirs are mounted, one numbered directory each.
const packagesDir = "/packages"

func packageGuestDir(i int) string { return packagesDir + "/" + strconv.Itoa(i) }

// spec is what one container is created from.
type spec struct {
	config *ctr.Config
	host   *ctr.HostConfig
	memory int64
}

// spec builds the container configuration of e's options.
func (e *Executor) spec() spec {
	o := e.opts
	labels := map[string]string{}
	maps.Copy(labels, o.Labels)
	labels[LabelManaged] = "true"
	labels[LabelRole] = RoleExecutor
	if owner := self(); owner != "" {
		labels[LabelOwner] = owner
	}
	cfg := &ctr.Config{
		Image: o.Image,
		// -I: no PYTHON* variables, no user site directory, no script
		// directory on sys.path. As the entry point, so that an image's
		// own ENTRYPOINT and CMD (star-agent/agent's is star-agent) play
		// no part.
		Entrypoint: []string{"python3", "-I", "-c", runner.Script},
		User:       o.User,
		WorkingDir: "/tmp",
		// The image's PATH stays (the engine gives a default to images
		// without one).
		Env:          []string{"HOME=/tmp", "LANG=C.UTF-8", "MPLBACKEND=Agg", "MPLCONFIGDIR=/tmp"},
		AttachStdin:  true,
		AttachStdout: true,
		AttachStderr: true,
		OpenStdin:    true,
		// The runner's stdin closes when our attachment does: a host
		// that dies leaves a runner that reads EOF and exits.
		StdinOnce:       true,
		Labels:          labels,
		NetworkDisabled: o.Network == "none",
	}
	secOpt := []string{"no-new-privileges:true"}
	if o.AllowNewPrivileges {
		secOpt = nil
	}
	var pids *int64
	if o.PIDs > 0 {
		p := o.PIDs
		pids = &p
	}
	var initp *bool
	if !o.NoInit {
		t := true
		initp = &t
	}
	tmpfs := "rw,noexec,nosuid,nodev,mode=1777,size=" + strconv.FormatInt(o.TmpSize, 10)
	host := &ctr.HostConfig{
		NetworkMode:    ctr.NetworkMode(o.Network),
		CapDrop:        []string{"ALL"},
		CapAdd:         o.CapAdd,
		SecurityOpt:    secOpt,
		ReadonlyRootfs: !o.WritableRoot,
		Tmpfs:          map[string]string{"/tmp": tmpfs},
		ShmSize:        o.TmpSize,
		IpcMode:        "private",
		Init:           initp,
		Runtime:        o.Runtime,
		AutoRemove:     false,
		// No log driver: the attached stream carries the protocol (tool
		// arguments and results) and whatever the code writes to stderr,
		// neither of which may pile up on the host's disk.
		LogConfig: ctr.LogConfig{Type: "none"},
		Resources: ctr.Resources{
			Memory:     o.Memory,
			MemorySwap: o.Memory,
			NanoCPUs:   int64(o.CPUs * 1e9),
			PidsLimit:  pids,
			Ulimits: []*ctr.Ulimit{
				{Name: "nofile", Soft: 1024, Hard: 1024},
				{Name: "core", Soft: 0, Hard: 0},
			},
		},
	}
	for i, d := range o.PackageDirs {
		host.Mounts = append(host.Mounts, mount.Mount{Type: mount.TypeBind, Source: d, Target: packageGuestDir(i), ReadOnly: true})
	}
	for _, m := range o.Mounts {
		host.Mounts = append(host.Mounts, mount.Mount{Type: mount.TypeBind, Source: m.HostPath, Target: m.GuestPath, ReadOnly: !m.Writable})
	}
	return spec{config: cfg, host: host, memory: o.Memory}
}

// withOwner returns s with the owner labels added to its labels (s is
// not changed).
func (s spec) withOwner(owner map[string]string) spec {
	if len(owner) == 0 {
		return s
	}
	cfg := *s.config
	cfg.Labels = maps.Clone(s.config.Labels)
	for k, v := range owner {
		if _, set := cfg.Labels[k]; !set {
			cfg.Labels[k] = v
		}
	}
	s.config = &cfg
	return s
}

// container is one running runner container: a runner.Sandbox.
type container struct {
	cli    client.APIClient
	id     string
	image  string
	memory int64
	sess   *runner.Session
	conn   types.HijackedResponse
	// pending counts the executor's removals in progress.
	pending *sync.WaitGroup
	stdout  *io.PipeReader
	stderr  *runner.Tail
	// spoke is set once the runner has written a whole line (its
	// handshake): a container that ends before did not start the runner.
	spoke atomic.Bool

	killOnce sync.Once
	killed   chan struct{}
	exited   chan struct{} // closed when the container has stopped (or is gone)
	removed  chan struct{} // closed when the container is removed
	why      string        // set before exited closes

	mu        sync.Mutex
	removeErr error // set before removed closes
}

var _ runner.Sandbox = (*container)(nil)

// removeTimeout bounds removing a container in the background.
const removeTimeout = 30 * time.Second

// startContainer creates the container, attaches to its stdio, and starts
// it; the runner's handshake is the Host's to wait for.
func startContainer(ctx context.Context, cli client.APIClient, s spec, pending *sync.WaitGroup) (_ *container, err error) {
	name := "star-agent-exec-" + randomHex(6)
	// The engine finishes creating a container whose request was
	// cancelled, so the request runs on its own bounded context; a caller
	// that stops waiting leaves its removal to the background.
	type createResult struct {
		id  string
		err error
	}
	createc := make(chan createResult, 1)
	go func() {
		cctx, cancel := context.WithTimeout(context.Background(), removeTimeout)
		defer cancel()
		created, err := cli.ContainerCreate(cctx, s.config, s.host, nil, nil, name)
		createc <- createResult{created.ID, err}
	}()
	var created createResult
	select {
	case created = <-createc:
	case <-ctx.Done():
		pending.Add(1)
		go func() {
			defer pending.Done()
			if r := <-createc; r.err == nil {
				remove(cli, r.id)
			}
		}()
		return nil, fmt.Errorf("create container: %w", context.Cause(ctx))
	}
	if err := created.err; err != nil {
		return nil, createError(s, err)
	}
	c := &container{cli: cli, id: created.id, image: s.config.Image, memory: s.memory, stderr: &runner.Tail{}, pending: pending,
		killed: make(chan struct{}), exited: make(chan struct{}), removed: make(chan struct{})}
	defer func() {
		if err != nil {
			c.Kill()
		}
	}()
	// Attach before start so that nothing the runner writes is lost.
	c.conn, err = cli.ContainerAttach(ctx, c.id, ctr.AttachOptions{Stream: true, Stdin: true, Stdout: true, Stderr: true})
	if err != nil {
		close(c.exited)
		return nil, fmt.Errorf("attach to container %s: %w", short(c.id), err)
	}
	// Waiting for the next exit is registered before the start, so that
	// an exit right after it is not missed.
	wctx, wcancel := context.WithCancel(context.Background())
	waitc, waitErr := cli.ContainerWait(wctx, c.id, ctr.WaitConditionNextExit)
	outR, outW := io.Pipe()
	c.stdout = outR
	go func() {
		_, err := stdcopy.StdCopy(lineSeen{outW, &c.spoke}, c.stderr, c.conn.Reader)
		if err == nil {
			err = io.EOF
		}
		outW.CloseWithError(err)
	}()
	go c.watch(wcancel, waitc, waitErr)
	if err := cli.ContainerStart(ctx, c.id, ctr.StartOptions{}); err != nil {
		return nil, startError(s, err)
	}
	c.sess = runner.NewSession(outR, c.conn.Conn)
	return c, nil
}

// watch waits for the container to stop and records why.
func (c *container) watch(cancel context.CancelFunc, waitc <-chan ctr.WaitResponse, errc <-chan error) {
	defer cancel()
	var code int64 = -1
	select {
	case w := <-waitc:
		code = w.StatusCode
	case <-errc:
	case <-c.killed:
		// Removal stops the container; the wait ends with it or with an
		// error, bounded by removeTimeout.
		select {
		case w := <-waitc:
			code = w.StatusCode
		case <-errc:
		case <-c.removed:
			// The wait is abandoned. The client's goroutine sends its
			// result on an unbuffered channel whatever the context says,
			// so someone must still take it: cancelling ends the request,
			// and then either a result or an error comes, once.
			cancel()
			go func() {
				select {
				case <-waitc:
				case <-errc:
				}
			}()
		}
	}
	c.why = c.reason(code)
	close(c.exited)
}

// reason says why the container stopped, from its state if it still exists.
func (c *container) reason(code int64) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	oom := false
	// Up to 2 s: on a loaded machine, and under gVisor, the engine's OOM
	// event has trailed the exit by more than half a second.
	for try := 0; try < 40; try++ {
		info, err := c.cli.ContainerInspect(ctx, c.id)
		if err != nil || info.State == nil {
			break
		}
		oom = info.State.OOMKilled
		if code < 0 || !info.State.Running {
			code = int64(info.State.ExitCode)
		}
		// The engine records an OOM kill from an event of its own, which
		// may trail the exit by a little: look again for a SIGKILL nobody
		// here sent.
		if oom || code != 137 || c.wasKilled() {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	stderr := strings.TrimSpace(c.stderr.String())
	var parts []string
	switch {
	case oom:
		parts = append(parts, fmt.Sprintf("OOM-killed: out of memory at the container's limit of %d MiB", c.memory>>20))
	case code == 127 && strings.Contains(stderr, "python3"):
		parts = append(parts, fmt.Sprintf("the image %s has no python3 on PATH, exit code 127", c.image))
	case code == 137:
		parts = append(parts, "the container was killed with SIGKILL, exit code 137")
	case code >= 0 && !c.spoke.Load():
		parts = append(parts, fmt.Sprintf("python3 in the image %s exited with code %d before the runner's handshake: the Docker executor needs an image whose python3 is 3.8 or later and runs the runner script", c.image, code))
	case code >= 0:
		parts = append(parts, fmt.Sprintf("the container exited with code %d", code))
	}
	if stderr != "" {
		parts = append(parts, stderr)
	}
	return strings.Join(parts, ": ")
}

func (c *container) Session() *runner.Session { return c.sess }

func (c *container) wasKilled() bool {
	select {
	case <-c.killed:
		return true
	default:
		return false
	}
}

// Kill removes the container in the background, bounded by removeTimeout.
func (c *container) Kill() {
	c.killOnce.Do(func() {
		close(c.killed)
		if c.conn.Conn != nil {
			c.conn.Close()
		}
		if c.stdout != nil {
			c.stdout.Close()
		}
		c.pending.Add(1)
		go func() {
			defer c.pending.Done()
			err := remove(c.cli, c.id)
			c.mu.Lock()
			c.removeErr = err
			c.mu.Unlock()
			close(c.removed)
		}()
	})
}

// remove removes the container id, bounded by removeTimeout, trying again
// while the engine is busy with it (a start or a removal in progress).
func remove(cli client.APIClient, id string) error {
	ctx, cancel := context.WithTimeout(context.Background(), removeTimeout)
	defer cancel()
	for {
		err := cli.ContainerRemove(ctx, id, ctr.RemoveOptions{Force: true, RemoveVolumes: true})
		if err == nil || cerrdefs.IsNotFound(err) {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Died waits up to d for the container to stop, and for its removal if
// it was killed, and says why it stopped.
func (c *container) Died(d time.Duration) string {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-c.exited:
	case <-timer.C:
		return ""
	}
	select {
	case <-c.killed:
		select {
		case <-c.removed:
		case <-timer.C:
		}
	default:
	}
	return c.why
}

// Ended reports whether the container has been removed.
func (c *container) Ended() bool {
	select {
	case <-c.removed:
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.removeErr == nil
	default:
		return false
	}
}

func (c *container) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := "container " + short(c.id)
	if c.removeErr != nil {
		s += " (" + c.removeErr.Error() + ")"
	}
	return s
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// createError explains a failed ContainerCreate.
func createError(s spec, err error) error {
	if cerrdefs.IsNotFound(err) {
		return missingImage(s.config.Image)
	}
	if client.IsErrConnectionFailed(err) {
		return fmt.Errorf("%w: %w", errNoEngine, err)
	}
	if s.host.Runtime != "" && strings.Contains(strings.ToLower(err.Error()), "runtime") {
		return fmt.Errorf("the runtime %q is not installed in this Docker engine (see Runtimes in `docker info`): %w", s.host.Runtime, err)
	}
	return fmt.Errorf("create container from %s: %w", s.config.Image, err)
}

// startError explains a failed ContainerStart.
func startError(s spec, err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "executable file not found") || strings.Contains(msg, "no such file or directory") && strings.Contains(msg, "python3"):
		return fmt.Errorf("the image %s has no python3 on PATH: the Docker executor needs an image with python3 3.8 or later (%w)", s.config.Image, err)
	case strings.Contains(msg, "unknown or invalid runtime") || strings.Contains(msg, "runtime") && strings.Contains(msg, "not") && s.host.Runtime != "":
		return fmt.Errorf("the runtime %q is not installed in this Docker engine (see `docker info`, Runtimes): %w", s.host.Runtime, err)
	}
	return fmt.Errorf("start container from %s: %w", s.config.Image, err)
}

// lineSeen passes writes on and records that a newline went through.
type lineSeen struct {
	w    io.Writer
	seen *atomic.Bool
}

func (l lineSeen) Write(p []byte) (int, error) {
	if !l.seen.Load() && bytes.IndexByte(p, '\n') >= 0 {
		l.seen.Store(true)
	}
	return l.w.Write(p)
}
