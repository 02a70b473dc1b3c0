//go:build !unix

package mcp

import (
	"os/exec"
	"syscall"
)

func setGroup(cmd *exec.Cmd) {}

// signalGroup kills the server (only the server: no process groups here).
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process != nil && sig == syscall.SIGKILL {
		cmd.Process.Kill()
	}
}
