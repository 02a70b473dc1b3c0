// Package docker is the full-Python executor that runs CPython in a
// hardened local container, through the Docker Engine API (the client is
// configured from the environment: DOCKER_HOST, DOCKER_API_VERSION,
// DOCKER_CERT_PATH, DOCKER_TLS_VERIFY; the API version is negotiated, so
// engines from API 1.41 on work).
//
// One long-lived container per executor runs the runner of package runner
// as its only process (python3 -I -c runner.Script, under docker-init so
// that zombies are reaped), with its stdin and stdout attached: the runner
// moves the protocol to private descriptors and points fds 0 and 1 at
// /dev/null before any code runs, so code cannot write to the host by
// printing. Tools, MCP tools and managed agents stay on the host and are
// called through the protocol; nothing of their code or secrets enters the
// container. The executor is ready when the runner's handshake arrives on
// the attached stream (no sleeps, no port polling).
//
// Hardened by default, each item overridable only by an explicit Options
// field: user 65534:65534 (nobody), every capability dropped (the bounding
// set too), no-new-privileges, a read-only root filesystem with a 64 MiB
// tmpfs on /tmp (noexec, nosuid, nodev), network "none" (loopback only),
// memory limit equal to memory+swap (no swap), one CPU, 64 PIDs, no host
// mounts unless Options.Mounts or PackageDirs name some (read-only unless
// marked writable), no log driver (the attached stream carries tool
// arguments and results, which must not pile up in the engine's logs), and
// the labels io.star-agent.managed=true and io.star-agent.role=executor on
// every container, which is what `star-agent sandbox prune` removes after
// a crash of star-agent. Options.Runtime selects another OCI runtime, such
// as gVisor's runsc. A container whose host dies reads end-of-file on its
// stdin (the attachment is its only writer) and exits.
//
// A container that dies (killed from outside, OOM-killed at its memory
// limit, a fork bomb that breaks the runner) is detected when the attached
// stream ends; the Result tells the model that its state was lost (a
// MemoryError when the engine reports an OOM kill), and the next execution
// starts a fresh container. A timeout or a cancelled context abandons the
// running code at once: the container is killed and removed in the
// background with a bound, so a wedged engine never blocks the caller.
// Close removes every container the executor started.
//
// The import allowlist is advisory inside the container, as in every
// Python sandbox (see package runner): the container is the boundary.
package docker

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/docker/docker/client"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/runner"
)

// Engine is the Result.Engine of this executor.
const Engine = "python:docker"

// DefaultImage is the image the executor runs when Options.Image is empty;
// `star-agent sandbox image build` builds it without a registry.
const DefaultImage = "star-agent/python:latest"

// BuildCommand is the command that builds DefaultImage.
const BuildCommand = "star-agent sandbox image build"

// Labels every container the executor creates carries; prune finds them
// by the first.
const (
	LabelManaged = "io.star-agent.managed"
	LabelRole    = "io.star-agent.role"
	RoleExecutor = "executor"
)

// Defaults of the hardening options.
const (
	DefaultUser    = "65534:65534"
	DefaultTmpSize = 64 << 20
	DefaultPIDs    = 64
	DefaultCPUs    = 1.0
	DefaultNetwork = "none"
)

// Mount makes a host directory visible to the code.
type Mount struct {
	HostPath  string // absolute
	GuestPath string // absolute path inside the container, e.g. "/data"
	Writable  bool   // read-only unless set
}

// Options configure an Executor. The zero value is the hardened default.
type Options struct {
	// Limits bound each execution. MaxMemory is the container's memory
	// limit unless Memory is set; MaxOperations and MaxDepth are not enforced
	// (CPython keeps its own recursion limit).
	Limits executors.Limits
	// Imports is the import policy; the zero value is
	// executors.NewImportPolicy(nil, nil). Authorize "*" for everything.
	Imports executors.ImportPolicy
	// Image is the image to run; "" means DefaultImage. It must be present
	// locally (nothing is pulled) and have python3 3.8 or later on PATH.
	Image string
	// Memory is the container's memory limit in bytes (memory+swap is the
	// same: no swap); 0 means Limits.MaxMemory.
	Memory int64
	// CPUs is the CPU quota in CPUs; 0 means 1.
	CPUs float64
	// PIDs limits the processes and threads in the container; 0 means 64,
	// -1 unlimited.
	PIDs int64
	// Network is the container's network mode; "" means "none" (loopback
	// only). "bridge" gives the code the network.
	Network string
	// Runtime is the OCI runtime ("runsc" for gVisor); "" means the
	// engine's default.
	Runtime string
	// User is the user:group the runner runs as; "" means 65534:65534.
	User string
	// TmpSize is the size of the tmpfs on /tmp (and /dev/shm) in bytes; 0
	// means 64 MiB.
	TmpSize int64
	// Mounts are host directories the code may see.
	Mounts []Mount
	// PackageDirs are host directories of pure-Python packages, mounted
	// read-only at /packages/N and appended to sys.path.
	PackageDirs []string
	// CapAdd adds capabilities back after all are dropped.
	CapAdd []string
	// AllowNewPrivileges, WritableRoot and NoInit turn off
	// no-new-privileges, the read-only root filesystem and docker-init.
	AllowNewPrivileges bool
	WritableRoot       bool
	NoInit             bool
	// Labels are added to the labels of every container.
	Labels map[string]string
	// Owner labels name who owns the containers, such as the replica and
	// the run of star-agent serve, so that a sweep can find those whose
	// owner is gone (SweepIf). Unlike Labels they need not match a pool's:
	// a container taken from a Pool carries the pool's Owner labels.
	Owner map[string]string
	// Client is the Engine API client; nil means one from the environment,
	// closed by Close.
	Client client.APIClient
	// Pool, when set, gives the executor a started container instead of
	// its starting one, if the pool's containers are made from the same
	// options (see Pool). The executor still removes the container when
	// it is closed.
	Pool *Pool
}

// Executor runs Python code in a Docker container. It implements
// executors.Executor (through runner.Host, which it embeds). Methods are
// safe for concurrent use; executions are serialized.
type Executor struct {
	*runner.Host
	opts      Options
	limits    executors.Limits
	cli       client.APIClient
	ownClient bool

	checkMu sync.Mutex
	checked bool
	// removals counts containers being removed in the background,
	// including those of starts that failed or were abandoned.
	removals sync.WaitGroup
}

var _ executors.Executor = (*Executor)(nil)

// minMemory is the smallest memory limit CPython and the runner start in.
const minMemory = 16 << 20

// New returns an Executor. It does not contact the engine; the container
// starts on first use (or Start). Check verifies the engine and the image.
func New(opts Options) (*Executor, error) {
	if err := opts.Limits.Validate(); err != nil {
		return nil, fmt.Errorf("docker: %w", err)
	}
	limits := opts.Limits.WithDefaults()
	if opts.Image == "" {
		opts.Image = DefaultImage
	}
	if opts.Memory == 0 {
		opts.Memory = limits.MaxMemory
	}
	if opts.Memory < minMemory {
		return nil, fmt.Errorf("docker: memory limit %d bytes is below the %d MiB CPython needs", opts.Memory, minMemory>>20)
	}
	if opts.CPUs == 0 {
		opts.CPUs = DefaultCPUs
	}
	if opts.CPUs < 0.01 {
		return nil, fmt.Errorf("docker: a CPU quota of %g CPUs is too small; give at least 0.01", opts.CPUs)
	}
	if opts.PIDs == 0 {
		opts.PIDs = DefaultPIDs
	}
	if opts.PIDs > 0 && opts.PIDs < 4 {
		return nil, fmt.Errorf("docker: a PIDs limit of %d is too small for docker-init and the interpreter; give at least 4", opts.PIDs)
	}
	if opts.Network == "" {
		opts.Network = DefaultNetwork
	}
	if opts.Runtime == "runsc" && opts.Network != "none" {
		return nil, fmt.Errorf("docker: network %q with the runtime runsc: %w", opts.Network, ErrRunscNetwork)
	}
	if opts.User == "" {
		opts.User = DefaultUser
	}
	if opts.TmpSize == 0 {
		opts.TmpSize = DefaultTmpSize
	}
	for _, m := range opts.Mounts {
		if !strings.HasPrefix(m.HostPath, "/") {
			return nil, fmt.Errorf("docker: mount %s: the host path must be absolute", m.HostPath)
		}
		if g := m.GuestPath; !strings.HasPrefix(g, "/") || g == "/" || g == "/tmp" || strings.HasPrefix(g, "/proc") || strings.HasPrefix(g, "/sys") || strings.HasPrefix(g, "/dev") || strings.HasPrefix(g, packagesDir) {
			return nil, fmt.Errorf("docker: mount %s: guest path %q must be absolute and not /, /tmp, /proc, /sys, /dev or %s", m.HostPath, g, packagesDir)
		}
	}
	for _, d := range opts.PackageDirs {
		if !strings.HasPrefix(d, "/") {
			return nil, fmt.Errorf("docker: package directory %s: the path must be absolute", d)
		}
	}
	var sysPath []string
	for i := range opts.PackageDirs {
		sysPath = append(sysPath, packageGuestDir(i))
	}
	e := &Executor{opts: opts, limits: limits, cli: opts.Client}
	if e.cli == nil {
		cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
		if err != nil {
			return nil, fmt.Errorf("docker: engine client from the environment (DOCKER_HOST): %w", err)
		}
		e.cli, e.ownClient = cli, true
	}
	e.Host = runner.NewHost(runner.HostOptions{
		Name:         "docker",
		Engine:       Engine,
		Limits:       limits,
		Config:       runner.Config{MaxOutput: limits.MaxOutput, MaxMemory: opts.Memory, MaxValue: limits.MaxValue, Imports: opts.Imports, SysPath: sysPath},
		Start:        e.start,
		StartTimeout: startTimeout,
		Crash:        crash,
		ReapTimeout:  reapTimeout,
	})
	return e, nil
}

// startTimeout bounds creating, attaching and starting a container and the
// runner's handshake.
const startTimeout = 60 * time.Second

// reapTimeout bounds how long Close waits for each container's removal.
const reapTimeout = 20 * time.Second

// Close removes every container the executor started, waiting up to 20 s
// for the engine.
func (e *Executor) Close() error {
	err := e.Host.Close()
	done := make(chan struct{})
	go func() {
		e.removals.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(reapTimeout):
		err = errors.Join(err, fmt.Errorf("docker: containers whose start failed were not removed within %s; `star-agent sandbox prune` removes them", reapTimeout))
	}
	if e.ownClient {
		if c, ok := e.cli.(interface{ Close() error }); ok {
			c.Close()
		}
	}
	return err
}

// Check verifies that the engine answers, that the image is present, that
// the runtime (if one is named) is registered and that the network exists,
// with an error that says what to change otherwise. Start runs it until it
// passes once (an image built meanwhile is found).
func (e *Executor) Check(ctx context.Context) error {
	e.checkMu.Lock()
	defer e.checkMu.Unlock()
	if e.checked {
		return nil
	}
	// The image last: building it is the longest fix.
	if err := checkEngine(ctx, e.cli); err != nil {
		return err
	}
	if err := checkRuntime(ctx, e.cli, e.opts.Runtime); err != nil {
		return err
	}
	if err := checkNetwork(ctx, e.cli, e.opts.Network); err != nil {
		return err
	}
	if err := checkImage(ctx, e.cli, e.opts.Image); err != nil {
		return err
	}
	e.checked = true
	return nil
}

func (e *Executor) start(ctx context.Context) (runner.Sandbox, error) {
	if err := e.Check(ctx); err != nil {
		return nil, err
	}
	sweepInBackground(e.cli)
	s := e.spec()
	if e.opts.Pool != nil {
		if c := e.opts.Pool.take(s, &e.removals); c != nil {
			return c, nil
		}
	}
	return startContainer(ctx, e.cli, s.withOwner(e.opts.Owner), &e.removals)
}

// crash names the exception for a container that died running code.
func crash(why string) (string, string) {
	if strings.Contains(why, "OOM-killed") || strings.Contains(why, "MemoryError") {
		return "MemoryError", why
	}
	return "SystemError", why
}

// ContainerID is the ID of the running container, or "" (for tests that
// break it). It must not be called while an execution runs.
func (e *Executor) ContainerID() string {
	if c, ok := e.Current().(*container); ok {
		return c.id
	}
	return ""
}

// Image is the image the executor runs.
func (e *Executor) Image() string { return e.opts.Image }

// String describes the executor for logs.
func (e *Executor) String() string {
	return "python:docker(" + e.opts.Image + ", " + strconv.FormatInt(e.opts.Memory>>20, 10) + " MiB, " +
		strconv.FormatFloat(e.opts.CPUs, 'g', -1, 64) + " CPU, network " + e.opts.Network + ")"
}

// ErrRunscNetwork is why a container under gVisor (runtime runsc) may
// have no network but none.
var ErrRunscNetwork = errors.New("a gVisor container has no network (runsc is registered with --network=none, as `make gvisor` does, because gVisor's network stack cannot start on hosts like CI's), so the code would not get the network it was given; use the network none, or the runtime runc for a container with a network")

// errNoEngine wraps failures to reach the engine.
var errNoEngine = errors.New("the Docker engine cannot be reached")
