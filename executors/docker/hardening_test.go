package docker_test

import (
	"context"
	"encoding/json"
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

// The hardening, checked from inside the container.
func TestHardeningFromInside(t *testing.T) {
	e := newExec(t, docker.Options{Limits: executors.Limits{MaxMemory: 128 << 20}})
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
    'caps': [status[k] for k in ('CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb')],
    'nonewprivs': status['NoNewPrivs'], 'seccomp': status['Seccomp'],
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
	for _, k := range []string{"root", "usr"} {
		if s, _ := v[k].(string); !strings.Contains(s, "Read-only file system") {
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
	for _, c := range v["caps"].([]any) {
		if c != "0000000000000000" {
			t.Errorf("capability sets %v, want all empty", v["caps"])
			break
		}
	}
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
	if s, _ := v["pid1"].(string); !strings.Contains(s, "init") {
		t.Errorf("pid 1 is %q, not docker-init", v["pid1"])
	}

	// And as the engine reports it.
	info, err := engine(t).ContainerInspect(context.Background(), e.ContainerID())
	if err != nil {
		t.Fatal(err)
	}
	h := info.HostConfig
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
	e := newExec(t, docker.Options{Limits: executors.Limits{MaxMemory: 64 << 20}})
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
	e := newExec(t, docker.Options{Limits: executors.Limits{Timeout: 4 * time.Second}})
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

// A runtime the engine lacks is an error that names it.
func TestRuntimeMissing(t *testing.T) {
	e := newExec(t, docker.Options{Runtime: "no-such-runtime"})
	_, err := e.Execute(context.Background(), "1")
	if err == nil || !strings.Contains(err.Error(), `the runtime "no-such-runtime" is not installed`) {
		t.Errorf("missing runtime: %v", err)
	}
}
