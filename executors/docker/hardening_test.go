package docker_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/docker"
)

// gvisorKernel is /proc/version inside gVisor (Debian's runsc
// 0.0~20221219): its Sentry, not the host's kernel, answers the code's
// system calls.
const gvisorKernel = "Linux version 4.4.0 #1 SMP Sun Jan 10 15:06:54 PST 2016"

// TestGVisorKernel checks from inside a container started with runtime
// runsc that the kernel the code talks to is gVisor's, and from inside one
// started with the engine's default that it is not.
func TestGVisorKernel(t *testing.T) {
	if !runscRegistered(t) {
		skipOrFail(t, "the Docker engine has no runsc runtime: make gvisor registers it")
	}
	for _, runtime := range []string{"", "runsc"} {
		e := newExec(t, docker.Options{Runtime: runtime})
		res := ok(t, e, "open('/proc/version').read().strip()")
		if got := res.Value == gvisorKernel; got != (runtime == "runsc") {
			t.Errorf("runtime %q: /proc/version is %q", runtime, res.Value)
		}
	}
}

// The hardening, checked from inside the container, under each runtime.
func TestHardeningFromInside(t *testing.T) {
	eachRuntime(t, hardeningFromInside)
}

func hardeningFromInside(t *testing.T, runtime string) {
	e := newExec(t, docker.Options{Limits: executors.Limits{MaxMemory: 128 << 20}, Runtime: runtime})
	res := ok(t, e, `import os
status = {}
for line in open('/proc/self/status'):
    k, _, v = line.partition(':')
    status[k] = v.strip()
def writes(path):
    try:
        with open(path, 'w') as f:
            f.write('x')
        return 'written'
    except OSError as e:
        return type(e).__name__ + ': ' + e.strerror
def runs(path):
    with open(path, 'w') as f:
        f.write('#!/bin/sh\n')
    os.chmod(path, 0o755)
    try:
        os.execv(path, [path])
    except OSError as e:
        return type(e).__name__ + ': ' + e.strerror
ifaces = [l.split(':')[0].strip() for l in open('/proc/net/dev').readlines()[2:]]
def cg(*paths):
    for p in paths:
        try:
            return open(p).read().strip()
        except OSError:
            pass
    return 'absent'
# cgroup v1 (this machine) or v2, read back as one shape.
mem = cg('/sys/fs/cgroup/memory/memory.limit_in_bytes', '/sys/fs/cgroup/memory.max')
memsw = cg('/sys/fs/cgroup/memory/memory.memsw.limit_in_bytes')
if memsw == 'absent' and cg('/sys/fs/cgroup/memory.swap.max') == '0':
    memsw = mem
cpu = cg('/sys/fs/cgroup/cpu.max')
if cpu == 'absent':
    cpu = cg('/sys/fs/cgroup/cpu/cpu.cfs_quota_us') + ' ' + cg('/sys/fs/cgroup/cpu/cpu.cfs_period_us')
quota, _, period = cpu.partition(' ')
{
    'uid': os.getuid(), 'euid': os.geteuid(), 'gid': os.getgid(),
    'root': writes('/x'), 'usr': writes('/usr/x'), 'tmp': writes('/tmp/x'),
    'tmp_exec': runs('/tmp/s'),
    'ifaces': ifaces,
    'caps': [status.get(k, 'absent') for k in ('CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb')],
    'nonewprivs': status.get('NoNewPrivs', 'absent'), 'seccomp': status.get('Seccomp', 'absent'),
    'kernel': open('/proc/version').read().strip(),
    'mem': mem, 'memsw': memsw,
    'pids': cg('/sys/fs/cgroup/pids/pids.max', '/sys/fs/cgroup/pids.max'),
    'quota': quota, 'period': period,
    'pid1': open('/proc/1/cmdline').read().split('\0')[0],
}`)
	v, _ := res.Value.(map[string]any)
	t.Logf("%v", v)
	if v["uid"] == int64(0) || v["euid"] == int64(0) || v["gid"] == int64(0) {
		t.Errorf("runs as uid %v euid %v gid %v", v["uid"], v["euid"], v["gid"])
	}
	// gVisor's kernel shows less of itself: no cgroup files (the limits
	// apply to the sandbox from outside, as the host config below and
	// TestMemoryBomb show), no NoNewPrivs or ambient capabilities line,
	// Seccomp 0 (the Sentry is the filter, itself under seccomp on the
	// host), and a write to the read-only root fails on permissions
	// before the mount is consulted.
	gvisor := runtime == "runsc"
	for _, k := range []string{"root", "usr"} {
		s, _ := v[k].(string)
		if !strings.Contains(s, "Read-only file system") && !(gvisor && strings.Contains(s, "Permission denied")) {
			t.Errorf("write to %s: %v", k, v[k])
		}
	}
	if v["tmp"] != "written" {
		t.Errorf("/tmp is not writable: %v", v["tmp"])
	}
	if s, _ := v["tmp_exec"].(string); !strings.Contains(s, "Permission denied") {
		t.Errorf("/tmp is not noexec: %v", v["tmp_exec"])
	}
	if !reflect.DeepEqual(v["ifaces"], []any{"lo"}) {
		t.Errorf("network interfaces %v, want only lo", v["ifaces"])
	}
	for i, c := range v["caps"].([]any) {
		if c != "0000000000000000" && !(gvisor && i == 4 && c == "absent") {
			t.Errorf("capability sets %v, want all empty", v["caps"])
			break
		}
	}
	if !gvisor {
		if v["nonewprivs"] != "1" || v["seccomp"] != "2" {
			t.Errorf("NoNewPrivs %v, Seccomp %v", v["nonewprivs"], v["seccomp"])
		}
		if v["mem"] != "134217728" || v["memsw"] != "134217728" {
			t.Errorf("cgroup memory limit %v, memory+swap %v, want 134217728", v["mem"], v["memsw"])
		}
		if v["pids"] != "64" {
			t.Errorf("cgroup pids.max %v, want 64", v["pids"])
		}
		if v["quota"] != "100000" || v["period"] != "100000" {
			t.Errorf("cpu quota %v per %v, want one CPU", v["quota"], v["period"])
		}
	}
	if k, _ := v["kernel"].(string); (k == gvisorKernel) != gvisor {
		t.Errorf("runtime %q: /proc/version is %q", runtime, k)
	}
	if s, _ := v["pid1"].(string); !strings.Contains(s, "init") {
		t.Errorf("pid 1 is %q, not docker-init", v["pid1"])
	}

	// And as the engine reports it.
	info, err := engine(t).ContainerInspect(context.Background(), e.ContainerID())
	if err != nil {
		t.Fatal(err)
	}
	h := info.HostConfig
	if h.Runtime != runtime && !(runtime == "" && h.Runtime == "runc") {
		t.Errorf("the container's runtime is %q, want %q", h.Runtime, runtime)
	}
	if h.Memory != 128<<20 || h.MemorySwap != 128<<20 || h.NanoCPUs != 1e9 || h.PidsLimit == nil || *h.PidsLimit != 64 ||
		!h.ReadonlyRootfs || !slices.Equal(h.CapDrop, []string{"ALL"}) || len(h.CapAdd) != 0 || h.NetworkMode != "none" ||
		h.Init == nil || !*h.Init || h.AutoRemove || h.LogConfig.Type != "none" || len(h.Binds) != 0 || len(h.Mounts) != 0 || h.Privileged ||
		!slices.Contains(h.SecurityOpt, "no-new-privileges:true") || !strings.Contains(h.Tmpfs["/tmp"], "noexec") {
		b, _ := json.MarshalIndent(h, "", " ")
		t.Errorf("host config:\n%s", b)
	}
	if info.Config.User != "65534:65534" || info.Config.Labels[docker.LabelManaged] != "true" || info.Config.Labels[docker.LabelRole] != docker.RoleExecutor {
		t.Errorf("user %q labels %v", info.Config.User, info.Config.Labels)
	}
}

// Overrides are explicit: each one changes only its item.
func TestHardeningOverrides(t *testing.T) {
	e := newExec(t, docker.Options{PIDs: 100, CPUs: 0.5, Memory: 96 << 20, User: "1000:1000", TmpSize: 8 << 20})
	res := ok(t, e, `import os
def cg(*paths):
    for p in paths:
        try:
            return open(p).read().strip()
        except OSError:
            pass
[os.getuid(), cg('/sys/fs/cgroup/pids/pids.max', '/sys/fs/cgroup/pids.max'),
 cg('/sys/fs/cgroup/cpu/cpu.cfs_quota_us') or cg('/sys/fs/cgroup/cpu.max').split()[0],
 cg('/sys/fs/cgroup/memory/memory.limit_in_bytes', '/sys/fs/cgroup/memory.max')]`)
	want := []any{int64(1000), "100", "50000", "100663296"}
	if !reflect.DeepEqual(res.Value, want) {
		t.Errorf("got %v, want %v", res.Value, want)
	}
	// The tmpfs is size-limited: filling it fails with ENOSPC, not the
	// host's disk.
	res = run(t, e, "with open('/tmp/fill', 'wb') as f:\n    for i in range(100):\n        f.write(b'x' * (1 << 20))")
	if res.Err == nil || !strings.Contains(res.Err.Message, "No space left") {
		t.Errorf("filling /tmp: %+v", res.Err)
	}
}

// A memory bomb is OOM-killed at the container's limit, reported as a
// MemoryError, and the next execution runs in a fresh container.
func TestMemoryBomb(t *testing.T) {
	eachRuntime(t, memoryBomb)
}

func memoryBomb(t *testing.T, runtime string) {
	e := newExec(t, docker.Options{Limits: executors.Limits{MaxMemory: 64 << 20}, Runtime: runtime})
	ok(t, e, "keep = 1")
	id := e.ContainerID()
	res := run(t, e, "x = []\nwhile True:\n    x.append(b'x' * (1 << 20))")
	if res.Err == nil || res.Err.Type != "MemoryError" || !strings.Contains(res.Err.Message, "OOM-killed") {
		t.Fatalf("memory bomb: %+v", res.Err)
	}
	t.Logf("the model sees: %s", res.Err.Describe())
	gone(t, id)
	res = run(t, e, "keep")
	if res.Err == nil || res.Err.Type != "NameError" {
		t.Errorf("state after an OOM kill: %+v", res)
	}
	ok(t, e, "1 + 1")
}

// A fork bomb stops at the PIDs limit; the executor survives it.
func TestForkBomb(t *testing.T) {
	eachRuntime(t, forkBomb)
}

func forkBomb(t *testing.T, runtime string) {
	e := newExec(t, docker.Options{Limits: executors.Limits{Timeout: 4 * time.Second}, Runtime: runtime})
	if runtime == "runsc" {
		// Under gVisor the engine's PIDs limit counts the Sentry's host
		// threads, not the code's processes, which the Sentry keeps: a
		// fork bomb ends the whole sandbox once the Sentry can start no
		// more threads (the model is told its state was lost), or runs
		// until the timeout. Either way the executor survives it.
		ok(t, e, "1")
		id := e.ContainerID()
		res := run(t, e, "import os, time\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        time.sleep(0.05)")
		t.Logf("under runsc the bomb ends with %+v", res.Err)
		if res.Err == nil || (res.Err.Type != "TimeoutError" && res.Err.Type != "SystemError") {
			t.Errorf("fork bomb under runsc: %+v", res.Err)
		}
		gone(t, id)
		if res := ok(t, e, "6 * 7"); res.Value != int64(42) {
			t.Errorf("after the bomb: %#v", res.Value)
		}
		return
	}
	started := signal(t, e)

	// Forks until the kernel refuses, then cleans up after itself.
	res := ok(t, e, `import os, time
pids, err = [], None
try:
    for i in range(10000):
        pid = os.fork()
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        pids.append(pid)
except OSError as e:
    err = type(e).__name__
for p in pids:
    os.kill(p, 9)
    os.waitpid(p, 0)
(len(pids), err)`)
	v := res.Value.(runnerTupleT)
	if n := v[0].(int64); n >= 64 || n < 40 || v[1] != "BlockingIOError" {
		t.Errorf("bounded fork: %v children, error %v; want fewer than 64 and BlockingIOError", n, v[1])
	}

	// A real bomb: every process forks forever. It runs until the
	// timeout; meanwhile the engine counts the container's processes.
	id := e.ContainerID()
	var mu sync.Mutex
	peak := uint64(0)
	stop := make(chan struct{})
	polled := make(chan struct{})
	go func() {
		defer close(polled)
		<-started
		for {
			select {
			case <-stop:
				return
			default:
			}
			s, err := engine(t).ContainerStatsOneShot(context.Background(), id)
			if err != nil {
				return
			}
			var st struct {
				PidsStats struct {
					Current uint64 `json:"current"`
				} `json:"pids_stats"`
			}
			json.NewDecoder(io.LimitReader(s.Body, 1<<20)).Decode(&st)
			s.Body.Close()
			mu.Lock()
			peak = max(peak, st.PidsStats.Current)
			mu.Unlock()
		}
	}()
	res = run(t, e, `import os, time
started()
while True:
    try:
        os.fork()
    except OSError:
        time.sleep(0.05)`)
	close(stop)
	<-polled
	if res.Err == nil || res.Err.Type != "TimeoutError" {
		t.Errorf("fork bomb: %+v", res.Err)
	}
	mu.Lock()
	t.Logf("peak processes in the container: %d", peak)
	if peak > 64 || peak < 32 {
		t.Errorf("peak processes %d; want the bomb to reach and stop at the limit of 64", peak)
	}
	mu.Unlock()
	gone(t, id)
	if res := ok(t, e, "6 * 7"); res.Value != int64(42) {
		t.Errorf("after the bomb: %#v", res.Value)
	}
}

// Printing floods nothing: the output cap holds in the container.
func TestOutputCapSmall(t *testing.T) {
	e := newExec(t, docker.Options{Limits: executors.Limits{MaxOutput: 100}})
	res := ok(t, e, "import os\nos.write(1, b'fd1 ' * 100000)\nos.write(2, b'fd2 ' * 100000)\nprint('y' * 1000)")
	if !res.Truncated || len([]rune(res.Stdout)) > 300 || strings.Contains(res.Stdout, "fd1") {
		t.Errorf("truncated %v stdout %q", res.Truncated, res.Stdout)
	}
	ok(t, e, "1")
}

// Network is an explicit override: with bridge the container gets an
// interface besides lo (nothing is sent anywhere).
func TestNetworkOverride(t *testing.T) {
	e := newExec(t, docker.Options{Network: "bridge"})
	res := ok(t, e, "sorted(l.split(':')[0].strip() for l in open('/proc/net/dev').readlines()[2:])")
	if !reflect.DeepEqual(res.Value, []any{"eth0", "lo"}) {
		t.Errorf("interfaces with --docker-network bridge: %v", res.Value)
	}
}

// A runtime the engine lacks is an error that names it and says how to
// register it.
func TestRuntimeMissing(t *testing.T) {
	e := newExec(t, docker.Options{Runtime: "no-such-runtime"})
	_, err := e.Execute(context.Background(), "1")
	if err == nil || !strings.Contains(err.Error(), `the runtime "no-such-runtime" is not registered with the Docker engine (it has `) ||
		!strings.Contains(err.Error(), "daemon.json") {
		t.Errorf("missing runtime: %v", err)
	}
}

// The configuration is checked before any container starts: a network
// that does not exist, and any network but none under gVisor.
func TestConfigurationChecked(t *testing.T) {
	e := newExec(t, docker.Options{Network: "star-agent-no-such-net-" + runID})
	err := e.Check(context.Background())
	if err == nil || !strings.Contains(err.Error(), `the Docker network "star-agent-no-such-net-`) || !strings.Contains(err.Error(), "docker network create") {
		t.Errorf("missing network: %v", err)
	}
	if err := newExec(t, docker.Options{Network: "bridge"}).Check(context.Background()); err != nil {
		t.Errorf("network bridge: %v", err)
	}
	_, err = docker.New(docker.Options{Runtime: "runsc", Network: "bridge"})
	if !errors.Is(err, docker.ErrRunscNetwork) {
		t.Errorf("runsc with bridge: %v", err)
	}
}
