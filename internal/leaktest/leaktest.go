// Package leaktest checks that a test leaves none of its goroutines
// behind. It compares goroutines, not their number: the count of the
// whole process also moves with what other tests, the testing package
// and the runtime start and end, so a check on it fails or passes for
// reasons of its own. Here a goroutine counts when it started after the
// snapshot and its stack, or the function that created it, is in one of
// the packages the test names. It is for tests only.
package leaktest

import (
	"bytes"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// hung is how long Check waits for the goroutines to end: they end
// within moments of their work when nothing leaks, so the bound only
// catches one that never ends, not a slow machine.
const hung = 30 * time.Second

// Snapshot is the set of goroutines that ran when it was taken, and the
// packages whose goroutines a later Check looks for.
type Snapshot struct {
	before   map[string]bool
	packages []string
}

// Take records the goroutines running now. packages are import paths
// ("github.com/star-agent/star-agent/executors/starlarkexec") or prefixes of
// function names ("google.golang.org/grpc"): a goroutine is the test's
// when a frame of its stack or its creator starts with one of them.
func Take(packages ...string) *Snapshot {
	s := &Snapshot{before: map[string]bool{}, packages: packages}
	for _, g := range goroutines() {
		s.before[g.id] = true
	}
	return s
}

// Check fails t if goroutines of the named packages started since the
// snapshot still run once they have had time to end, listing their
// stacks.
func (s *Snapshot) Check(t testing.TB) {
	t.Helper()
	var left []goroutine
	for end := time.Now().Add(hung); ; time.Sleep(10 * time.Millisecond) {
		left = s.left()
		if len(left) == 0 || time.Now().After(end) {
			break
		}
	}
	if len(left) > 0 {
		var b strings.Builder
		for _, g := range left {
			b.WriteString(g.stack + "\n\n")
		}
		t.Fatalf("%d goroutines started by the test still run after %s:\n%s", len(left), hung, b.String())
	}
}

func (s *Snapshot) left() []goroutine {
	var left []goroutine
	for _, g := range goroutines() {
		if !s.before[g.id] && s.ours(g.stack) {
			left = append(left, g)
		}
	}
	return left
}

// ours reports whether a frame of the stack, or the creator, is in one of
// the packages: a line of a stack dump that names a function starts with
// it, or with "created by " and it.
func (s *Snapshot) ours(stack string) bool {
	for _, line := range strings.Split(stack, "\n")[1:] {
		line = strings.TrimPrefix(line, "created by ")
		for _, p := range s.packages {
			if strings.HasPrefix(line, p) {
				return true
			}
		}
	}
	return false
}

type goroutine struct{ id, stack string }

// goroutines returns the running goroutines but the caller's.
func goroutines() []goroutine {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var gs []goroutine
	for i, block := range bytes.Split(buf, []byte("\n\n")) {
		if i == 0 {
			continue // the caller's own
		}
		header, _, _ := bytes.Cut(block, []byte("\n"))
		f := strings.Fields(string(header)) // goroutine 12 [chan receive]:
		if len(f) < 2 || f[0] != "goroutine" {
			continue
		}
		if _, err := strconv.ParseUint(f[1], 10, 64); err != nil {
			continue
		}
		gs = append(gs, goroutine{id: f[1], stack: string(block)})
	}
	return gs
}
