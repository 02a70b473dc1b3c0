package docker

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestOrphaned: a container is the sweep's only when its owner label
// names a process of this host and boot that is gone (or whose PID now
// belongs to a process that started later).
func TestOrphaned(t *testing.T) {
	me := self()
	if me == "" {
		t.Skip("no /proc: containers carry no owner label here")
	}
	f := strings.Fields(me)
	if len(f) != 4 {
		t.Fatalf("owner label %q", me)
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	deadPID := cmd.Process.Pid
	dead := strings.Join([]string{f[0], f[1], itoa(deadPID), "12345"}, " ")
	reused := strings.Join([]string{f[0], f[1], itoa(os.Getpid()), "1"}, " ")
	for label, want := range map[string]bool{
		me:     false, // alive
		dead:   true,  // gone
		reused: true,  // the PID lives, but not the process that started then
		strings.Join([]string{"another-host", f[1], itoa(deadPID), "1"}, " "): false,
		strings.Join([]string{f[0], "another-boot", itoa(deadPID), "1"}, " "): false,
		"":                          false,
		"nonsense":                  false,
		f[0] + " " + f[1] + " -1 0": false,
	} {
		if got := orphaned(label); got != want {
			t.Errorf("orphaned(%q) = %v, want %v", label, got, want)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
