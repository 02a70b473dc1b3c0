// Package gctune sets the Go garbage collector for star-agent's own
// processes (the CLI, serve, and the Starlark engine's isolated
// children): a higher GOGC than Go's 100 while the live heap is small,
// because an agent's steps allocate much short-lived garbage on a small
// live heap, and Go's own 100 once it is large, so that the heap's
// headroom never exceeds what GOGC=100 would give a large heap (a memory
// bomb's peak stays where the engine's accounting was measured); and a
// soft memory limit, so that no setting takes the heap towards the
// machine's memory. GOGC and GOMEMLIMIT in the environment win, each on
// its own.
//
// The figures behind the default come from BenchmarkGC and
// BenchmarkTypicalActionCPU (executors/starlarkexec): the typical step's CPU
// time at GOGC=100, 200 and 400 and under this package's setting, at 1
// and 2 executors stepping at once.
package gctune

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
)

// Percent is the GOGC that Apply sets while the live heap is small, when
// the environment has none.
const Percent = 400

// Headroom bounds the heap's growth above the live heap that Percent may
// buy: after each collection GOGC becomes the largest value up to Percent
// whose headroom (live × GOGC / 100) stays within Headroom or within Go's
// own (GOGC=100), whichever is larger. Below 32 MiB live the GOGC is
// Percent; from 128 MiB live it is 100.
const Headroom = 128 << 20

// LimitShare is the share, in percent, of the memory this process may use
// (its cgroup's limit, else the machine's RAM) that Apply sets as the soft
// memory limit when the environment has no GOMEMLIMIT.
const LimitShare = 75

// Setting says what Apply chose and why.
type Setting struct {
	Percent     int    // GOGC in force at the start; -1 when off
	PercentFrom string // "GOGC" (the environment) or "default" (then adjusted after each collection)
	Limit       int64  // soft memory limit in bytes; 0 when none was set here
	LimitFrom   string // "GOMEMLIMIT", "default", or "none" (memory unknown)
}

// String describes the setting in one line, for logs.
func (s Setting) String() string {
	gogc := strconv.Itoa(s.Percent)
	if s.Percent < 0 {
		gogc = "off"
	}
	limit := "as set by GOMEMLIMIT"
	switch s.LimitFrom {
	case "default":
		limit = fmt.Sprintf("%d MiB", s.Limit>>20)
	case "none":
		limit = "none (the memory available is unknown)"
	}
	from := s.PercentFrom
	if from == "default" {
		from = fmt.Sprintf("default, 100 from %d MiB live", Headroom>>20)
	}
	return fmt.Sprintf("GOGC=%s (%s), soft memory limit %s", gogc, from, limit)
}

// Apply sets the collector's default unless the environment sets it, and
// returns what is in force. Call it once, at the start of main.
func Apply() Setting {
	return apply(os.LookupEnv, available)
}

func apply(lookup func(string) (string, bool), avail func() int64) Setting {
	var s Setting
	if v, ok := lookup("GOGC"); ok && v != "" {
		// The runtime has read it already; this reads it back.
		setTuning(false)
		s.Percent, s.PercentFrom = debug.SetGCPercent(-1), "GOGC"
		debug.SetGCPercent(s.Percent)
	} else {
		debug.SetGCPercent(Percent)
		s.Percent, s.PercentFrom = Percent, "default"
		setTuning(true)
		startTuner()
	}
	if v, ok := lookup("GOMEMLIMIT"); ok && v != "" {
		s.LimitFrom = "GOMEMLIMIT"
		return s
	}
	if m := avail(); m > 0 {
		s.Limit, s.LimitFrom = m*LimitShare/100, "default"
		debug.SetMemoryLimit(s.Limit)
	} else {
		s.LimitFrom = "none"
	}
	return s
}

// available returns the memory this process may use: the smallest of its
// cgroup's limit (v2 memory.max, or v1 memory.limit_in_bytes) and the
// machine's RAM, or 0 when none can be read (not Linux).
func available() int64 {
	m := meminfoTotal()
	if c := cgroupLimit(); c > 0 && (m == 0 || c < m) {
		m = c
	}
	return m
}

// meminfoTotal returns MemTotal from /proc/meminfo in bytes, or 0.
func meminfoTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// cgroupLimit returns the memory limit of this process's cgroup, the
// smallest along its path to the root, or 0 when there is none.
func cgroupLimit() int64 {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 0
	}
	var limit int64
	consider := func(path string) {
		b, err := os.ReadFile(path)
		if err != nil {
			return
		}
		v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		// "max" (v2) fails to parse; v1 says "none" with a huge value.
		if err != nil || v <= 0 || v >= 1<<62 {
			return
		}
		if limit == 0 || v < limit {
			limit = v
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		dir := filepath.Clean("/" + parts[2])
		switch {
		case parts[0] == "0" && parts[1] == "": // v2
			for ; ; dir = filepath.Dir(dir) {
				consider(filepath.Join("/sys/fs/cgroup", dir, "memory.max"))
				if dir == "/" {
					break
				}
			}
		case strings.Contains(","+parts[1]+",", ",memory,"): // v1
			consider(filepath.Join("/sys/fs/cgroup/memory", dir, "memory.limit_in_bytes"))
			consider("/sys/fs/cgroup/memory/memory.limit_in_bytes")
		}
	}
	return limit
}

// Stop stops adjusting GOGC after collections (it stays as it is), for a
// benchmark that measures Apply's setting and then restores Go's: once it
// returns, the tuner sets GOGC no more.
func Stop() { setTuning(false) }

// percentFor returns the GOGC for a live heap of live bytes (see
// Headroom).
func percentFor(live uint64) int {
	if live == 0 {
		return Percent
	}
	p := int(uint64(Headroom) * 100 / live)
	return max(100, min(Percent, p))
}

var (
	tunerOnce sync.Once
	mu        sync.Mutex // held while the tuner sets GOGC
	tuning    bool       // whether the tuner sets GOGC (not when the environment does)
)

func setTuning(on bool) {
	mu.Lock()
	tuning = on
	mu.Unlock()
}

// startTuner arranges for tune to run after every collection, from then
// on: a sentinel object's finalizer runs once the collection that found it
// unreachable has ended, and makes the next sentinel.
func startTuner() {
	tunerOnce.Do(func() {
		live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		var arm func()
		arm = func() {
			// A pointer makes the sentinel a scanned object, never one the
			// tiny allocator batches (whose finalizers may not run).
			s := &sentinel{}
			runtime.SetFinalizer(s, func(*sentinel) {
				metrics.Read(live)
				mu.Lock()
				if tuning && live[0].Value.Kind() == metrics.KindUint64 {
					debug.SetGCPercent(percentFor(live[0].Value.Uint64()))
				}
				mu.Unlock()
				arm()
			})
		}
		arm()
	})
}

type sentinel struct{ _ *int }
