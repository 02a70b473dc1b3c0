package leaktest

import "testing"

const pkg = "github.com/star-agent/star-agent/internal/leaktest"

func block(release chan struct{}) { <-release }

func TestFindsOnlyGoroutinesStartedSince(t *testing.T) {
	old := make(chan struct{})
	defer close(old)
	go block(old)
	s := Take(pkg)
	if left := s.left(); len(left) != 0 {
		t.Fatalf("before: %v", left)
	}
	release := make(chan struct{})
	go block(release)
	left := s.left()
	if len(left) != 1 {
		t.Fatalf("found %d goroutines, want the one started since the snapshot", len(left))
	}
	if l := (&Snapshot{before: s.before, packages: []string{"example.com/other"}}).left(); len(l) != 0 {
		t.Errorf("a goroutine of another package counted: %v", l)
	}
	close(release)
	s.Check(t)
}
