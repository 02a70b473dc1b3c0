package wasm

import (
	"os/exec"
	"syscall"
)

// setParentDeathSignal makes the kernel kill the child if this process
// dies, so that an interpreter stuck in a loop is not orphaned.
func setParentDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
