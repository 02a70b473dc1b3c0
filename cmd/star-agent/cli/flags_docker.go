package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/docker/docker/client"
	"github.com/docker/go-units"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/docker"
	"github.com/star-agent/star-agent/executors/router"
	"github.com/star-agent/star-agent/starlarkagent/serve"
)

// dockerFlags are the flags of --executor docker.
type dockerFlags struct {
	image   string
	memory  string
	cpus    float64
	network string
	runtime string
	// pool is set by serve and mcp's --docker-pool (openDockerPool).
	pool *docker.Pool
}

func (f *dockerFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.image, "docker-image", "", "image for --executor docker; it must already be in the local engine (nothing is pulled) and have python3 3.8 or later (default "+docker.DefaultImage+", made by: "+docker.BuildCommand+")")
	fl.StringVar(&f.memory, "docker-memory", "", "memory limit of the --executor docker container, no swap, e.g. 512MiB or 2GiB; code past it is OOM-killed and the model gets a MemoryError (default: the memory limit of an action, --max-memory where the command has it, else 256MiB)")
	fl.Float64Var(&f.cpus, "docker-cpus", docker.DefaultCPUs, "CPU quota of the --executor docker container in CPUs, e.g. 0.5 or 2")
	fl.StringVar(&f.network, "docker-network", docker.DefaultNetwork, "network of the --executor docker container: none (loopback only, no way out), or a Docker network such as bridge to give the code the network")
	fl.StringVar(&f.runtime, "docker-runtime", "", "OCI runtime of the --executor docker container, e.g. runsc for gVisor where it is installed (default: the engine's, usually runc)")
}

// apply puts the flags into cfg; its errors are usage errors.
func (f *dockerFlags) apply(cfg *router.Config) error {
	d := &cfg.Docker
	d.Image, d.Network, d.Runtime, d.Pool = f.image, f.network, f.runtime, f.pool
	if strings.TrimSpace(f.network) == "" {
		return fmt.Errorf("--docker-network must name a network; none keeps the code off every network")
	}
	if f.runtime == "runsc" && f.network != docker.DefaultNetwork {
		return fmt.Errorf("--docker-network %s with --docker-runtime runsc: a gVisor container has no network (runsc is registered with --network=none, as `make gvisor` does, because gVisor's network stack cannot start on hosts like this one), so the code would not get the network it was given; drop --docker-network (none), or use --docker-runtime runc for a container with a network", f.network)
	}
	if f.cpus <= 0 {
		return fmt.Errorf("--docker-cpus %g: give a positive number of CPUs, e.g. 0.5 or 2", f.cpus)
	}
	d.CPUs = f.cpus
	if f.memory != "" {
		n, err := units.RAMInBytes(f.memory)
		if err != nil || n <= 0 {
			return fmt.Errorf("--docker-memory %q: give a size such as 512MiB or 2GiB", f.memory)
		}
		d.Memory = n
	}
	return nil
}

// check verifies the configuration of --executor docker against the
// engine (it answers, the runtime is registered, the network exists, the
// image is present) without starting a container. Its errors are usage
// errors to report at start: exec and run get them from opening the
// executor, serve and mcp open executors later, per run or session.
func (f *ExecutorFlags) checkDocker(ctx context.Context, limits executors.Limits) error {
	if f.Executor != "docker" {
		return nil
	}
	cfg, err := f.RouterConfig(limits, nil, nil)
	if err != nil {
		return usageError("%v", err)
	}
	e, err := docker.New(docker.Options{Limits: limits, Image: cfg.Docker.Image, Memory: cfg.Docker.Memory, CPUs: cfg.Docker.CPUs, Network: cfg.Docker.Network, Runtime: cfg.Docker.Runtime})
	if err != nil {
		return usageError("--executor docker: %v", err)
	}
	defer e.Close()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := e.Check(ctx); err != nil {
		return usageError("--executor docker: %v", err)
	}
	return nil
}

// dockerPoolHelp is the help of --docker-pool, on serve and mcp.
const dockerPoolHelp = "keep `N` started, never-used containers of --executor docker ready, so that a run's (or session's) first full-Python step does not wait for a container to start; each serves one run and is removed after it; bounded by half the machine's memory (N times --docker-memory), emptied at shutdown (0: off)"

// openDockerPool starts the pool of --docker-pool n for the executor the
// flags describe, and returns it with its Prometheus metrics; nil when n
// is 0. The executors the flags open take from it. Its errors are usage
// errors.
func (f *ExecutorFlags) openDockerPool(n int, limits executors.Limits, owner map[string]string) (*docker.Pool, []prometheus.Collector, error) {
	switch {
	case n == 0:
		return nil, nil, nil
	case n < 0:
		return nil, nil, usageError("--docker-pool must not be negative")
	case f.Executor != "docker":
		return nil, nil, usageError("--docker-pool keeps containers for --executor docker, and the executor is %q", executorKind(f.Executor))
	}
	cfg, err := f.RouterConfig(limits, nil, nil)
	if err != nil {
		return nil, nil, usageError("%v", err)
	}
	d := cfg.Docker
	// The options router.Open gives the executors (open_docker.go), so
	// that their containers match the pool's.
	opts := docker.Options{Limits: limits, Image: d.Image, Memory: d.Memory, CPUs: d.CPUs, Network: d.Network, Runtime: d.Runtime, PIDs: d.PIDs, Labels: d.Labels, Owner: owner}
	for _, p := range cfg.Packages {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, nil, usageError("--packages %s: %v", p, err)
		}
		opts.PackageDirs = append(opts.PackageDirs, abs)
	}
	for _, m := range cfg.Mounts {
		abs, err := filepath.Abs(m.HostPath)
		if err != nil {
			return nil, nil, usageError("--mount %s: %v", m.HostPath, err)
		}
		opts.Mounts = append(opts.Mounts, docker.Mount{HostPath: abs, GuestPath: m.GuestPath, Writable: m.Writable})
	}
	pool, err := docker.NewPool(docker.PoolOptions{Size: n, MaxMemory: memTotal() / 2, Options: opts})
	if err != nil {
		return nil, nil, usageError("--docker-pool: %v", err)
	}
	f.docker.pool = pool
	const ns = "star_agent"
	metrics := []prometheus.Collector{
		prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: ns, Name: "sandbox_pool_hits_total",
			Help: "Executors that got a container started ahead by --docker-pool."}, func() float64 { return float64(pool.Stats().Hits) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: ns, Name: "sandbox_pool_misses_total",
			Help: "Executors that found the --docker-pool empty and started their own container."}, func() float64 { return float64(pool.Stats().Misses) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: ns, Name: "sandbox_pool_idle",
			Help: "Containers started ahead by --docker-pool and waiting for a run."}, func() float64 { return float64(pool.Stats().Idle) }),
	}
	return pool, metrics, nil
}

// memTotal is the machine's memory in bytes (MemTotal of /proc/meminfo),
// or 0 where it cannot be read (no bound then).
func memTotal() int64 {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// sweeper is serve's Options.SweepSandboxes for --executor docker: it
// removes the containers of replicas that are gone (serve decides which,
// from their labels). nil for the other executors, whose sandboxes end on
// their own (E2B's when their timeout is no longer extended, Modal's
// after their idle timeout). Call the returned func when serve has
// returned.
func (f *ExecutorFlags) sweeper() (serve.SweepFunc, func()) {
	if f.Executor != "docker" {
		return nil, func() {}
	}
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, func() {} // checkDocker reports it
	}
	return func(ctx context.Context, orphan func(map[string]string, time.Time) bool) (int, error) {
		removed, err := docker.SweepIf(ctx, cli, orphan)
		return len(removed), err
	}, func() { cli.Close() }
}
