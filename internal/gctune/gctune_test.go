package gctune

import (
	"math"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// restore puts the collector back as the test found it, the tuner off.
func restore(t *testing.T) {
	percent := debug.SetGCPercent(100)
	limit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		Stop()
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	})
}

func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}

func TestApply(t *testing.T) {
	const gib = 1 << 30
	for _, c := range []struct {
		name        string
		vars        map[string]string
		avail       int64
		percent     int
		percentFrom string
		limit       int64 // what the runtime has after Apply
		limitFrom   string
	}{
		{"defaults", nil, 8 * gib, Percent, "default", 6 * gib, "default"},
		{"empty variables are unset", map[string]string{"GOGC": "", "GOMEMLIMIT": ""}, 8 * gib, Percent, "default", 6 * gib, "default"},
		{"GOGC wins", map[string]string{"GOGC": "150"}, 8 * gib, 150, "GOGC", 6 * gib, "default"},
		{"GOMEMLIMIT wins", map[string]string{"GOMEMLIMIT": "1GiB"}, 8 * gib, Percent, "default", math.MaxInt64, "GOMEMLIMIT"},
		{"memory unknown", nil, 0, Percent, "default", math.MaxInt64, "none"},
	} {
		t.Run(c.name, func(t *testing.T) {
			restore(t)
			// The runtime read the real environment at start; a GOGC in
			// the test's variables stands for one it read.
			if v := c.vars["GOGC"]; v != "" {
				debug.SetGCPercent(c.percent)
			}
			s := apply(env(c.vars), func() int64 { return c.avail })
			if s.Percent != c.percent || s.PercentFrom != c.percentFrom || s.LimitFrom != c.limitFrom {
				t.Errorf("got %+v", s)
			}
			if got := debug.SetGCPercent(-1); got != c.percent {
				t.Errorf("GOGC in force %d, want %d", got, c.percent)
			}
			if got := debug.SetMemoryLimit(-1); got != c.limit {
				t.Errorf("memory limit in force %d, want %d", got, c.limit)
			}
			if !strings.Contains(s.String(), "GOGC=") {
				t.Errorf("String() = %q", s.String())
			}
		})
	}
}

func TestAvailable(t *testing.T) {
	m := available()
	if m <= 0 {
		t.Skip("no /proc/meminfo or cgroup here")
	}
	if total := meminfoTotal(); total > 0 && m > total {
		t.Errorf("available %d is more than the machine's RAM %d", m, total)
	}
	t.Logf("available %d MiB (RAM %d MiB, cgroup %d MiB)", m>>20, meminfoTotal()>>20, cgroupLimit()>>20)
}

func TestPercentFor(t *testing.T) {
	const mib = 1 << 20
	for live, want := range map[uint64]int{0: Percent, 4 * mib: Percent, 32 * mib: Percent, 64 * mib: 200, 128 * mib: 100, 1024 * mib: 100} {
		if got := percentFor(live); got != want {
			t.Errorf("percentFor(%d MiB) = %d, want %d", live/mib, got, want)
		}
	}
}

// gcPercentAfterGC collects and waits for the tuner, which runs in the
// finalizer goroutine after the collection, to have set GOGC to want.
func gcPercentAfterGC(t *testing.T, want int) {
	t.Helper()
	got := 0
	for range 100 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		got = debug.SetGCPercent(-1)
		debug.SetGCPercent(got)
		if got == want {
			return
		}
	}
	t.Errorf("GOGC %d after collections, want %d", got, want)
}

// TestTuner checks that GOGC follows the live heap, after collections:
// Percent on a small heap, Go's 100 on one past Headroom, and that the
// tuner leaves a GOGC from the environment alone.
func TestTuner(t *testing.T) {
	restore(t)
	apply(env(nil), func() int64 { return 0 })
	gcPercentAfterGC(t, Percent)
	big := make([]byte, Headroom+Headroom/4)
	for i := range big {
		big[i] = 1
	}
	gcPercentAfterGC(t, 100)
	runtime.KeepAlive(big)
	big = nil
	gcPercentAfterGC(t, Percent)

	debug.SetGCPercent(150)
	apply(env(map[string]string{"GOGC": "150"}), func() int64 { return 0 })
	for range 3 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("GOGC from the environment (150) became %d", got)
	}
}
