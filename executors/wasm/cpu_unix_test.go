//go:build unix

package wasm

import (
	"syscall"
	"time"
)

// childrenCPU is the user and system CPU time of this process's waited-for
// children (and their own), for benchmarks of whole processes: unlike
// wall time, it does not grow when other work shares the machine.
func childrenCPU() time.Duration {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &r) != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
