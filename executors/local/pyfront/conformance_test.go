package pyfront

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// python3 returns the path of CPython, or skips the test saying why.
func python3(t *testing.T) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found: the CPython comparison cannot run")
	}
	return py
}

// TestRunLikeCPython lowers each testdata/run/*.py file, runs it with test
// doubles of the runtime helpers, and compares its output with CPython's.
func TestRunLikeCPython(t *testing.T) {
	py := python3(t)
	files, _ := filepath.Glob("testdata/run/*.py")
	if len(files) == 0 {
		t.Fatal("no conformance files")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			want, err := exec.Command(py, file).Output()
			if err != nil {
				t.Fatalf("python3 %s: %v\n%s", file, err, want)
			}
			runner := run
			if strings.HasPrefix(string(src), runtimeMarker) {
				runner = runReal
			}
			got, err := runner(string(src))
			if err != nil {
				prog, _ := Lower(file, string(src))
				lowered := ""
				if prog != nil {
					lowered = format(prog.File)
				}
				t.Fatalf("run: %v\noutput so far:\n%s\nlowered:\n%s", err, got, lowered)
			}
			if got != string(want) {
				t.Errorf("output differs\n--- got\n%s\n--- want (CPython)\n%s", got, want)
				wl, gl := strings.Split(string(want), "\n"), strings.Split(got, "\n")
				for i := range wl {
					if i >= len(gl) || gl[i] != wl[i] {
						g := ""
						if i < len(gl) {
							g = gl[i]
						}
						t.Errorf("first difference at output line %d: got %q, want %q", i+1, g, wl[i])
						break
					}
				}
			}
		})
	}
}
