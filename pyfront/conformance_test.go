package pyfront

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/star-agent/star-agent/internal/cpythontest"
)

// TestRunLikeCPython lowers each testdata/run/*.py file, runs it with the
// engine's runtime (see run), and compares its output with CPython's,
// stored beside it in the .out file (see internal/cpythontest).
func TestRunLikeCPython(t *testing.T) {
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
			want := cpythontest.Golden(t, strings.TrimSuffix(file, ".py")+".out", func(py string) ([]byte, error) {
				out, err := exec.Command(py, file).Output()
				if ee, ok := err.(*exec.ExitError); ok {
					err = fmt.Errorf("%v\n%s", err, ee.Stderr)
				}
				return out, err
			})
			got, err := run(string(src))
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
