package builtins_test

import (
	"strings"
	"testing"

	"github.com/star-agent/star-agent/builtins"
	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/internal/leaktest"
	"github.com/star-agent/star-agent/pyfront"
	"github.com/star-agent/star-agent/vm/starlark"
)

// execOn lowers src and runs it on th with the runtime's globals.
func execOn(t testing.TB, th *starlark.Thread, src string) (starlark.StringDict, error) {
	t.Helper()
	globals := starlark.StringDict{}
	for k, v := range builtins.Universe() {
		globals[k] = v
	}
	for k, v := range builtins.Runtime() {
		globals[k] = v
	}
	return globals, execIn(t, th, globals, src)
}

// execIn runs src on th in globals, as a later step of an engine does.
func execIn(t testing.TB, th *starlark.Thread, globals starlark.StringDict, src string) error {
	t.Helper()
	prog, err := pyfront.Lower("gen.py", src)
	if err != nil {
		t.Fatal(err)
	}
	return starlark.ExecREPLChunk(prog.File, th, globals)
}

// TestGeneratorsHooks checks what an engine relies on: generator bodies
// run on the threads NewThread makes, every hand-off is reported to
// Switch, and Close ends the suspended bodies.
func TestGeneratorsHooks(t *testing.T) {
	leaks := leaktest.Take("github.com/star-agent/star-agent/builtins", "go.starlark.net")
	main := &starlark.Thread{Name: "main"}
	var made []*starlark.Thread
	switches := 0
	running := main
	g := &core.Generators{
		NewThread: func(consumer *starlark.Thread) *starlark.Thread {
			th := &starlark.Thread{Name: "gen"}
			made = append(made, th)
			return th
		},
		Switch: func(from, to *starlark.Thread) {
			if from != running {
				t.Errorf("switch from %s, but %s was running", from.Name, running.Name)
			}
			running = to
			switches++
		},
		MaxDepth: 100,
	}
	core.SetGenerators(main, g)
	src := "def count():\n    n = 0\n    while True:\n        n += 1\n        yield n\n" +
		"a = count()\nb = count()\nx = [next(a), next(a), next(b)]\nc = count()\n"
	globals, err := execOn(t, main, src)
	if err != nil {
		t.Fatal(err)
	}
	if got := globals["x"].String(); got != "[1, 2, 1]" {
		t.Errorf("x = %s", got)
	}
	if len(made) != 2 || switches != 6 || running != main {
		t.Errorf("%d threads made, %d switches, %s running; want 2, 6, main", len(made), switches, running.Name)
	}
	if n := len(g.Threads()); n != 2 {
		t.Errorf("%d suspended generators, want 2", n)
	}
	g.Close()
	if n := len(g.Threads()); n != 0 {
		t.Errorf("%d generators after Close", n)
	}
	leaks.Check(t)
	// A closed execution's suspended generator cannot be resumed; one it
	// never started can, by another execution.
	next := &starlark.Thread{Name: "next"}
	for name, want := range map[string]string{"a": "RuntimeError", "c": ""} {
		err := execIn(t, next, globals, "y = next("+name+")")
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("next(%s) in a later execution: %v", name, err)
		}
	}
	core.GeneratorsOf(next).Close()
}

func TestCallDepthCountsConsumers(t *testing.T) {
	th := &starlark.Thread{Name: "main"}
	core.SetGenerators(th, &core.Generators{
		NewThread: func(*starlark.Thread) *starlark.Thread { return &starlark.Thread{} },
		MaxDepth:  40,
	})
	_, err := execOn(t, th, "def down(n):\n    yield n\n    if n > 0:\n        yield from down(n - 1)\nx = list(down(5))\n")
	if err != nil {
		t.Fatalf("shallow: %v", err)
	}
	_, err = execOn(t, th, "def down(n):\n    yield n\n    yield from down(n - 1)\nx = list(down(5))\n")
	if err == nil || !strings.Contains(err.Error(), "RecursionError") {
		t.Fatalf("deep: %v", err)
	}
	core.GeneratorsOf(th).Close()
}

func BenchmarkGenerator(b *testing.B) {
	for _, bc := range []struct{ name, src string }{
		{"function", "def g(n):\n    for i in range(n):\n        yield i\nt = sum(g(10000))\n"},
		{"function-for", "def g(n):\n    for i in range(n):\n        yield i\nt = 0\nfor x in g(10000):\n    t += x\n"},
		{"genexpr", "t = sum(i for i in range(10000))\n"},
		{"genexpr-filter", "t = sum(i for i in range(10000) if i % 3)\n"},
		{"listcomp", "t = sum([i for i in range(10000)])\n"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				th := &starlark.Thread{}
				if _, err := execOn(b, th, bc.src); err != nil {
					b.Fatal(err)
				}
				core.GeneratorsOf(th).Close()
			}
		})
	}
}
