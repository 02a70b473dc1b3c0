package pyfront

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"go.starlark.net/starlark"
)

// FuzzLower checks that Lower never panics, that its errors are *Error,
// and that every program it returns compiles.
func FuzzLower(f *testing.F) {
	files, _ := filepath.Glob("testdata/run/*.py")
	for _, file := range files {
		src, _ := os.ReadFile(file)
		f.Add(string(src))
	}
	for _, src := range syntaxErrors {
		f.Add(src)
	}
	f.Add(benchSource)
	f.Fuzz(func(t *testing.T, src string) {
		prog, err := Lower("fuzz.py", src)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			if e.Line < 1 {
				t.Fatalf("error without a line: %v", e)
			}
			return
		}
		if _, err := starlark.FileProgram(prog.File, func(string) bool { return true }); err != nil {
			t.Fatalf("lowered program does not compile: %v\nsource:\n%s\nlowered:\n%s", err, src, format(prog.File))
		}
	})
}
