package isolation

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/star-agent/star-agent/executors/starlarkexec"
	"github.com/star-agent/star-agent/pyvalue"
)

// The isolated engine is the in-process one behind a process boundary:
// these tests run what starlarkexec's own tests run and expect the same.

// TestResultValuesCrossFaithfully: a result keeps the Python types of its
// value across the process boundary (a tuple is not a list, 32.0 is not
// 32, int keys stay ints in their order), as in process, where
// starlarkexec's TestResultValuesAreFaithful checks the values themselves.
func TestResultValuesCrossFaithfully(t *testing.T) {
	code := `import datetime
class P:
    def __repr__(self):
        return 'P()'
final_answer([32.0, float('nan'), (1, 'a'), {3}, frozenset(), b'\x00a', {2: 'b', 1: 'a'}, {'k': (1,)},
              2**53 + 1, 2**100, datetime.date(2024, 5, 1), datetime.datetime(2024, 5, 1, 13, 45, 0, 250),
              datetime.timedelta(seconds=90), P(), range(2)])`
	in, err := starlarkexec.New(starlarkexec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	want, err := in.Execute(context.Background(), code)
	if err != nil || want.Err != nil || !want.IsFinal {
		t.Fatalf("in process: %v %+v", err, want.Err)
	}
	got := mustRun(t, newIsolatedTest(t, Options{}, nil), code)
	if !got.IsFinal || got.Repr != want.Repr {
		t.Errorf("repr %s\nwant %s", got.Repr, want.Repr)
	}
	gl, wl := got.Value.([]any), want.Value.([]any)
	if len(gl) != len(wl) {
		t.Fatalf("value %#v\nwant %#v", got.Value, want.Value)
	}
	for i := range wl {
		if reflect.TypeOf(gl[i]) != reflect.TypeOf(wl[i]) {
			t.Errorf("item %d is a %T, in process a %T", i, gl[i], wl[i])
		}
	}
	gj, gerr := pyvalue.Marshal(got.Value)
	wj, werr := pyvalue.Marshal(want.Value)
	if gerr != nil || werr != nil || string(gj) != string(wj) {
		t.Errorf("JSON %s, %v\nwant %s, %v", gj, gerr, wj, werr)
	}
}

// stepSep separates the steps of a file under starlarkexec's
// testdata/steps.
const stepSep = "\n# --- step\n"

// TestStepsMatchCPython runs starlarkexec's testdata/steps in an isolated
// executor, a step at a time, and compares each step's output and
// exception type with what CPython printed (starlarkexec's
// testdata/steps.out, which its TestStepsMatchCPython regenerates).
func TestStepsMatchCPython(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	dir := filepath.Join("..", "starlarkexec", "testdata")
	files, err := filepath.Glob(filepath.Join(dir, "steps", "*.py"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no files in %s/steps (%v)", dir, err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "steps.out"))
	if err != nil {
		t.Fatal(err)
	}
	type outcome struct {
		File   string `json:"file"`
		Stdout string `json:"stdout"`
		Exc    string `json:"exc"`
	}
	want := map[string][]outcome{}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var o outcome
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			t.Fatalf("steps.out: %v", err)
		}
		want[o.File] = append(want[o.File], o)
	}
	for _, path := range files {
		name := filepath.Base(path)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		steps := strings.Split(string(src), stepSep)
		if len(want[name]) != len(steps) {
			t.Errorf("%s: %d steps, steps.out has %d", name, len(steps), len(want[name]))
			continue
		}
		e := newIsolatedTest(t, Options{}, nil)
		for i, step := range steps {
			res, err := e.Execute(context.Background(), step)
			if err != nil {
				t.Fatalf("%s step %d: %v", name, i+1, err)
			}
			exc, msg := "", ""
			if res.Err != nil {
				exc, msg = res.Err.Type, res.Err.Message
			}
			w := want[name][i]
			if res.Stdout != w.Stdout || exc != w.Exc {
				t.Errorf("%s step %d:\n got stdout %q exception %q (%s)\nwant stdout %q exception %q (CPython)", name, i+1, res.Stdout, exc, msg, w.Stdout, w.Exc)
			}
		}
	}
}
