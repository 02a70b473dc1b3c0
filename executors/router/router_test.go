package router

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/local"
	"github.com/star-agent/star-agent/executors/wasm"
)

func newRouter(t *testing.T) *Router {
	t.Helper()
	imports := []string{"difflib"}
	l, err := local.New(local.Options{AuthorizedImports: imports})
	if err != nil {
		t.Fatal(err)
	}
	p, err := wasm.New(wasm.Options{
		Limits:  executors.Limits{Timeout: 30 * time.Second},
		Imports: executors.NewImportPolicy(imports, nil),
	})
	if err != nil {
		t.Fatal(err)
	}
	r := New(l, p)
	t.Cleanup(func() { r.Close() })
	return r
}

func exec(t *testing.T, r *Router, code string) executors.Result {
	t.Helper()
	res, err := r.Execute(context.Background(), code)
	if err != nil {
		t.Fatalf("%q: %v", code, err)
	}
	return res
}

func TestRouting(t *testing.T) {
	r := newRouter(t)
	steps := []struct {
		code, engine, stdout string
		note                 string // a substring one of the notes must have, "" for no notes
	}{
		// Plain code stays in the Starlark engine.
		{"prices = {'a': 1.5, 'b': 2.25}\nnames = ('a', 'b')\nprint(sum(prices.values()))", local.Engine, "3.75\n", ""},
		// An import only CPython has goes to Python, with the state so far.
		{"from difflib import SequenceMatcher\ntotal = sum(prices.values())\nexact = round(SequenceMatcher(None, 'kitten', 'sitting').ratio(), 3)\nprint(total, exact, names)", wasm.Engine, "3.75 0.615 ('a', 'b')\n", "cannot run it"},
		// What Python defined comes back; the SequenceMatcher class cannot.
		{"print(exact, total * 2)", local.Engine, "0.615 7.5\n", "variable SequenceMatcher stays in the python engine"},
		// Code naming a value that lives only in Python is sent there.
		{"print(SequenceMatcher(None, 'ab', 'ab').ratio() * 2)", wasm.Engine, "2.0\n", "only exist there"},
		// Syntax the front end cannot lower goes to Python too.
		{"match total:\n    case 3.75:\n        kind = 'exact'\n    case _:\n        kind = 'other'\nprint(kind)", wasm.Engine, "exact\n", "cannot run it"},
		{"print(kind.upper())", local.Engine, "EXACT\n", ""},
	}
	for i, s := range steps {
		res := exec(t, r, s.code)
		if res.Err != nil {
			t.Fatalf("step %d: %v", i+1, res.Err)
		}
		if res.Engine != s.engine || res.Stdout != s.stdout {
			t.Errorf("step %d: engine %s stdout %q, want %s %q", i+1, res.Engine, res.Stdout, s.engine, s.stdout)
		}
		notes := strings.Join(res.Notes, "\n")
		if s.note == "" && notes != "" && res.Engine == local.Engine && i == 0 {
			t.Errorf("step %d: unexpected notes %q", i+1, notes)
		}
		if s.note != "" && !strings.Contains(notes, s.note) {
			t.Errorf("step %d: notes %q, want one with %q", i+1, notes, s.note)
		}
	}
}

func TestStarlarkFunctionsDoNotReachPython(t *testing.T) {
	r := newRouter(t)
	exec(t, r, "def double(n):\n    return n * 2")
	res := exec(t, r, "from difflib import SequenceMatcher\nprint(double(SequenceMatcher(None, 'a', 'a').ratio()))")
	if res.Engine != wasm.Engine || res.Err == nil || res.Err.Type != "NameError" {
		t.Fatalf("engine %s err %+v", res.Engine, res.Err)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "double were defined in the Starlark engine") {
		t.Errorf("notes %q", res.Notes)
	}
}

func TestRefusedImportsAreNotRouted(t *testing.T) {
	r := newRouter(t)
	// os is never importable: the Starlark engine refuses it and so must
	// the router, rather than trying Python.
	res := exec(t, r, "import os\nos.listdir('/')")
	if res.Err == nil || res.Err.Type != "ImportError" || res.Engine != local.Engine {
		t.Fatalf("engine %s err %+v", res.Engine, res.Err)
	}
}
