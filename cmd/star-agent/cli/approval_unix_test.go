//go:build unix

package cli

import "syscall"

// noTerminal starts a process in a session of its own, which has no
// controlling terminal: /dev/tty cannot be opened.
func noTerminal() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
