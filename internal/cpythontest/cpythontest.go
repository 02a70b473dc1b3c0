// Package cpythontest keeps the CPython outputs the conformance tests
// compare the engine with, stored under each package's testdata/ (see
// docs/testing.md), so a test means the same with or without python3 on
// the machine:
//
//	go test ./PKG -run NAME -update         regenerate from python3
//	go test ./PKG -run NAME -check-cpython  fail if python3 now prints otherwise
//
// Without a flag python3 re-checks the stored outputs only when it is the
// very version that made them (testdata/cpython-version): another CPython
// may differ for reasons of its own, which must not fail a test run. It is
// for tests only; the flags are registered when a test binary imports it.
package cpythontest

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	update       = flag.Bool("update", false, "rewrite the stored CPython outputs under testdata/ with the machine's python3 (CPython 3.11)")
	checkCPython = flag.Bool("check-cpython", false, "also run python3 and fail where its output differs from the stored one, whatever its version")
)

// VersionFile records which CPython made the stored outputs, relative to
// the package under test.
const VersionFile = "testdata/cpython-version"

// Update reports whether -update asks to regenerate the stored outputs.
func Update() bool { return *update }

var cpythonOnce struct {
	sync.Once
	py, version, why string
}

// Find looks for python3 once and reads its version.
func Find() (py, version, why string) {
	c := &cpythonOnce
	c.Do(func() {
		p, err := exec.LookPath("python3")
		if err != nil {
			c.why = "python3 is not on PATH"
			return
		}
		out, err := exec.Command(p, "-c", "import platform; print(platform.python_version())").Output()
		if err != nil {
			c.why = fmt.Sprintf("%s does not run: %v", p, err)
			return
		}
		c.py, c.version = p, strings.TrimSpace(string(out))
	})
	return c.py, c.version, c.why
}

// ToCheck returns the python3 that stored outputs are to be
// compared with, or "" when they are used as they are: with -update or
// -check-cpython a python3 is required; otherwise it is used only if it
// is the version recorded in testdata/cpython-version.
func ToCheck(t testing.TB) string {
	t.Helper()
	py, version, why := Find()
	if *update || *checkCPython {
		if py == "" {
			t.Fatalf("-update and -check-cpython need CPython 3.11 as python3: %s", why)
		}
		return py
	}
	if py == "" {
		return ""
	}
	recorded, _ := os.ReadFile(VersionFile)
	if r := strings.TrimSpace(string(recorded)); r != version {
		t.Logf("stored outputs not re-checked: python3 is CPython %s, they come from %s (-check-cpython compares anyway)", version, r)
		return ""
	}
	return py
}

// Golden returns the stored CPython output at path (gzip-compressed when
// path ends in .gz). gen runs CPython and returns what it printed: with
// -update its output replaces the stored one; when ToCheck gives a
// python3, a difference from the stored output fails the test.
func Golden(t testing.TB, path string, gen func(py string) ([]byte, error)) []byte {
	t.Helper()
	stored, readErr := readGolden(path)
	py := ToCheck(t)
	if py == "" {
		if readErr != nil {
			t.Fatalf("no stored CPython output: %v (generate it with python3 3.11 on PATH: go test -run '%s' -update)", readErr, t.Name())
		}
		return stored
	}
	out, err := gen(py)
	if err != nil {
		t.Fatalf("python3 (making %s): %v", path, err)
	}
	if *update {
		if readErr != nil || !bytes.Equal(out, stored) {
			if err := writeGolden(path, out); err != nil {
				t.Fatal(err)
			}
			t.Logf("rewrote %s", path)
		}
		_, version, _ := Find()
		if err := os.WriteFile(VersionFile, []byte(version+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return out
	}
	switch {
	case readErr != nil:
		t.Fatalf("no stored CPython output: %v (generate it: go test -run '%s' -update)", readErr, t.Name())
	case !bytes.Equal(out, stored):
		t.Errorf("%s is not what %s prints now (%s); if the case changed, regenerate it: go test -run '%s' -update", path, py, FirstLineDiff(stored, out), t.Name())
	}
	return stored
}

func readGolden(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil || !strings.HasSuffix(path, ".gz") {
		return b, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return io.ReadAll(zr)
}

func writeGolden(path string, b []byte) error {
	if strings.HasSuffix(path, ".gz") {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write(b)
		if err := zw.Close(); err != nil {
			return err
		}
		b = buf.Bytes()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// FirstLineDiff describes the first line where stored and now differ.
func FirstLineDiff(stored, now []byte) string {
	a, b := strings.Split(string(stored), "\n"), strings.Split(string(now), "\n")
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y || i >= len(a) || i >= len(b) {
			return fmt.Sprintf("line %d: stored %.200q, CPython %.200q", i+1, x, y)
		}
	}
	return "same lines"
}

// Run runs a program with python3 -c and returns its stdout.
func Run(py, prog string, env ...string) ([]byte, error) {
	cmd := exec.Command(py, "-c", prog)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		err = fmt.Errorf("%v\n%s", err, ee.Stderr)
	}
	return out, err
}
