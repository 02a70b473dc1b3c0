package isolation

// OS limits of an isolated engine's child on Linux. Memory: a cgroup v2
// memory.max of the child's own where this process may create cgroups
// (its cgroup v2 directory is writable and delegates the memory
// controller), else RLIMIT_AS. CPU: RLIMIT_CPU re-armed before each
// execution, a last resort for a child no host is watching. The child dies
// with the host (PR_SET_PDEATHSIG) and has a process group of its own.

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/star-agent/star-agent/executors/internal/spawn"
)

// memoryLimit is the OS memory limit chosen for the children of one
// executor.
type memoryLimit struct {
	mechanism    string // "cgroup", "rlimit" or "none"
	cgroupMax    int64  // memory.max, bytes
	addressSpace int64  // RLIMIT_AS, bytes
	goLimit      int64  // the Go runtime's soft limit in the child, bytes
}

// The engine's in-process accounting holds an execution to about its
// budget (issue 12 allows no attempt past twice the budget); the OS limit
// leaves room above that, so it only ever stops what the accounting missed.
const (
	// childBase is what a child needs at rest, beyond the budget: runtime,
	// binary, goroutine stacks (measured: about 10 MiB RSS).
	childBase = 64 << 20
	// childAddressSlack is address space a child may map beyond what it
	// has mapped at rest and its heap: OS thread stacks, runtime
	// metadata, the collector's work buffers.
	childAddressSlack = 256 << 20
)

func chooseMemoryLimit(budget int64) memoryLimit {
	l := memoryLimit{
		cgroupMax: 2*budget + childBase,
		// RLIMIT_AS counts address space, not memory: at rest a child has
		// 16 TiB mapped and touches 10 MiB of it (the VM reserves up to
		// 16 TiB of addresses for its small ints, vm/starlark/
		// int_posix64.go, the Go runtime about 1.2 GiB for arena hints). The child adds what it had mapped when
		// it set the limit; here is only what it may map on top: a Go
		// heap can reach twice its live data between collections, and
		// the soft limit below makes the collector work harder first.
		addressSpace: 4*budget + childAddressSlack,
		goLimit:      2*budget + childBase/2,
	}
	if _, err := delegatedCgroup(); err == nil {
		l.mechanism = "cgroup"
	} else {
		l.mechanism = "rlimit"
	}
	return l
}

func (l memoryLimit) describe() string {
	switch l.mechanism {
	case "cgroup":
		return fmt.Sprintf("cgroup memory.max of %d MiB", l.cgroupMax>>20)
	case "rlimit":
		return fmt.Sprintf("address-space limit of %d MiB beyond what it maps at rest", l.addressSpace>>20)
	}
	return "no OS limit"
}

// delegatedCgroup returns this process's cgroup v2 directory when child
// cgroups with a memory limit can be made in it.
func delegatedCgroup() (string, error) {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	var rel string
	found := false
	for _, line := range strings.Split(string(data), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			rel, found = p, true
		}
	}
	if !found {
		return "", errors.New("no cgroup v2 hierarchy")
	}
	mount, err := cgroup2Mount()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(mount, rel)
	ctl, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
	if err != nil {
		return "", err
	}
	if !strings.Contains(" "+strings.TrimSpace(string(ctl))+" ", " memory ") {
		return "", fmt.Errorf("%s does not delegate the memory controller", dir)
	}
	if err := syscall.Access(dir, 2 /* W_OK */); err != nil {
		return "", fmt.Errorf("%s is not writable: %w", dir, err)
	}
	return dir, nil
}

func cgroup2Mount() (string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "... mountpoint options - fstype source superoptions"
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok || !strings.HasPrefix(post, "cgroup2 ") {
			continue
		}
		fields := strings.Fields(pre)
		if len(fields) >= 5 {
			return fields[4], nil
		}
	}
	return "", errors.New("no cgroup2 mount")
}

// cgroup is the cgroup v2 directory of one child.
type cgroup struct {
	dir  string
	fd   *os.File
	once sync.Once
}

var cgroupSeq atomic.Int64

func newCgroup(max int64) (*cgroup, error) {
	parent, err := delegatedCgroup()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(parent, fmt.Sprintf("star-agent-engine-%d-%d", os.Getpid(), cgroupSeq.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	g := &cgroup{dir: dir}
	if err := os.WriteFile(filepath.Join(dir, "memory.max"), []byte(strconv.FormatInt(max, 10)), 0); err != nil {
		g.remove()
		return nil, err
	}
	// No swap: past the limit the child is killed rather than slowed.
	os.WriteFile(filepath.Join(dir, "memory.swap.max"), []byte("0"), 0)
	if g.fd, err = os.Open(dir); err != nil {
		g.remove()
		return nil, err
	}
	return g, nil
}

func (g *cgroup) remove() {
	if g == nil {
		return
	}
	g.once.Do(func() {
		if g.fd != nil {
			g.fd.Close()
		}
		// The child has been waited for, so the cgroup is empty.
		for i := 0; i < 50 && os.Remove(g.dir) != nil; i++ {
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// oomKilled reports that the kernel killed a process of the cgroup for
// exceeding memory.max.
func (g *cgroup) oomKilled() bool {
	if g == nil {
		return false
	}
	data, err := os.ReadFile(filepath.Join(g.dir, "memory.events"))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if n, ok := strings.CutPrefix(line, "oom_kill "); ok {
			return strings.TrimSpace(n) != "0"
		}
	}
	return false
}

// setChildAttrs makes the child die with this process, gives it its own
// process group, and starts it in its cgroup (atomically, with clone3).
func setChildAttrs(cmd *exec.Cmd, g *cgroup) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if g != nil {
		cmd.SysProcAttr.UseCgroupFD = true
		cmd.SysProcAttr.CgroupFD = int(g.fd.Fd())
	}
}

// startCmd starts cmd from a thread that outlives any caller (see package
// spawn), so that the parent-death signal holds.
func startCmd(cmd *exec.Cmd) error { return spawn.Start(cmd) }

// killGroup kills the child's process group.
func killGroup(p *os.Process) {
	syscall.Kill(-p.Pid, syscall.SIGKILL)
	p.Kill()
}

// applyChildLimits runs in the child before it serves anything.
func applyChildLimits(spec childSpec) error {
	if spec.AddressSpace > 0 {
		rest, err := mappedBytes()
		if err != nil {
			return err
		}
		as := uint64(rest + spec.AddressSpace)
		lim := &syscall.Rlimit{Cur: as, Max: as}
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, lim); err != nil {
			return fmt.Errorf("RLIMIT_AS: %w", err)
		}
	}
	// A Go stack overflow ends the child either way; a smaller maximum
	// makes it end before the stack has taken a gigabyte.
	debug.SetMaxStack(256 << 20)
	if spec.CPUPerExec > 0 {
		xcpu := make(chan os.Signal, 1)
		signal.Notify(xcpu, syscall.SIGXCPU)
		go func() {
			<-xcpu
			fmt.Fprintln(os.Stderr, "star-agent engine: CPU time limit exceeded")
			os.Exit(3)
		}()
	}
	return nil
}

// armCPULimit lets the child use d more CPU time from now (soft
// RLIMIT_CPU: SIGXCPU, which the child turns into an exit).
func armCPULimit(d time.Duration) {
	if d <= 0 {
		return
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return
	}
	used := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_CPU, &lim) != nil {
		return
	}
	cur := uint64((used + d + time.Second - 1) / time.Second)
	if lim.Max != ^uint64(0) && cur > lim.Max {
		cur = lim.Max
	}
	lim.Cur = cur
	syscall.Setrlimit(syscall.RLIMIT_CPU, &lim)
}

// cpuPerExec is the CPU time an execution may use before RLIMIT_CPU ends
// the child: far above what the host's own deadline allows (every core
// busy for the whole timeout, and more), so it only fires when the host is
// not there to kill the child.
func cpuPerExec(timeout time.Duration) time.Duration {
	return 4*timeout + 10*time.Second
}

// mappedBytes returns the process's mapped address space (VmSize).
func mappedBytes() (int64, error) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmSize:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("VmSize: %w", err)
			}
			return kb << 10, nil
		}
	}
	return 0, errors.New("no VmSize in /proc/self/status")
}
