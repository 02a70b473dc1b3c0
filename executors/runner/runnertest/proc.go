package runnertest

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// ProcStatus returns a size field of this process's /proc/self/status in
// bytes ("VmRSS:", "VmHWM:"), and skips the test where there is none: the
// memory assertions that use it would otherwise pass vacuously.
func ProcStatus(t testing.TB, field string) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, field); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	t.Skipf("no %s in /proc/self/status", field)
	return 0
}

// ResetPeak resets this process's peak RSS (VmHWM) to its current RSS, or
// skips the test where the kernel does not allow it.
func ResetPeak(t testing.TB) {
	t.Helper()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Skipf("cannot reset peak RSS: %v", err)
	}
}
