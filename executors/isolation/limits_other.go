//go:build !linux

package isolation

import (
	"os"
	"os/exec"
	"time"
)

// memoryLimit is the OS memory limit chosen for the children of one
// executor. Outside Linux there is none: the child still keeps a crash,
// a stack overflow or a computation that cannot be stopped out of the
// host, and the host kills it at the deadline.
type memoryLimit struct {
	mechanism    string
	cgroupMax    int64
	addressSpace int64
	goLimit      int64
}

func chooseMemoryLimit(budget int64) memoryLimit {
	return memoryLimit{mechanism: "none", goLimit: 2*budget + 32<<20}
}

func (l memoryLimit) describe() string { return "no OS limit" }

type cgroup struct{}

func newCgroup(int64) (*cgroup, error) { return nil, nil }
func (*cgroup) remove()                {}
func (*cgroup) oomKilled() bool        { return false }

func setChildAttrs(*exec.Cmd, *cgroup) {}

func killGroup(p *os.Process) { p.Kill() }

func startCmd(cmd *exec.Cmd) error { return cmd.Start() }

func applyChildLimits(childSpec) error { return nil }

func armCPULimit(time.Duration) {}

func cpuPerExec(time.Duration) time.Duration { return 0 }
