package runner_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompileLikeSyntaxTree checks the runner's one-pass compilation of a
// step (no syntax tree in the common case) against CPython's syntax tree
// on the engine's corpus and on cases made to mislead it, each cut after
// every top-level statement: a step returns a value exactly when its last
// statement is an expression (testdata/check_compile.py).
func TestCompileLikeSyntaxTree(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not on PATH: the runner's compilation is checked against CPython's syntax tree")
	}
	files, _ := filepath.Glob("../local/testdata/corpus/*.py")
	args := append([]string{"-W", "ignore", "testdata/check_compile.py", "runner.py"}, files...)
	out, err := exec.Command(py, args...).CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "ok ") {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Log(strings.TrimSpace(string(out)))
}
