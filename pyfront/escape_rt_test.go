package pyfront

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/vm/starlark"
)

// Escape attempts against the exception and class runtime: nothing user
// code writes may catch final_answer, a timeout or a limit stop, or
// reach reflective attributes through exceptions, instances, classes or
// super().

func TestFinalAnswerCannotBeCaught(t *testing.T) {
	for _, src := range []string{
		"try:\n    final_answer(1)\nexcept:\n    print('caught')\n",
		"try:\n    final_answer(1)\nexcept BaseException:\n    print('caught')\n",
		"try:\n    final_answer(1)\nexcept Exception as e:\n    print('caught', e)\n",
		"def f():\n    try:\n        final_answer(1)\n    finally:\n        return 2\nprint(f())\n",
		"for i in range(3):\n    try:\n        final_answer(i)\n    finally:\n        continue\nprint('after')\n",
		"try:\n    try:\n        final_answer(1)\n    except:\n        pass\nexcept:\n    pass\nprint('after')\n",
		"class A:\n    def __eq__(self, o):\n        final_answer(7)\ntry:\n    A() == A()\nexcept:\n    print('caught')\n",
	} {
		out, err := run(src)
		var f *core.Final
		if !errors.As(err, &f) {
			t.Errorf("%q: got %v (output %q), want final_answer to end the run", src, err, out)
			continue
		}
		if out != "" {
			t.Errorf("%q: printed %q after final_answer", src, out)
		}
	}
}

// TestCancellationCannotBeCaught cancels the thread (as the engine does on
// a timeout or a step, depth or memory limit) inside try bodies.
func TestCancellationCannotBeCaught(t *testing.T) {
	srcs := []string{
		"while True:\n    try:\n        while True:\n            pass\n    except:\n        pass\n",
		"while True:\n    try:\n        x = [1] * 10\n    except BaseException:\n        pass\n    finally:\n        pass\n",
		"def f():\n    try:\n        return f()\n    except RecursionError:\n        return 0\nwhile True:\n    try:\n        f()\n    except:\n        pass\n",
	}
	for _, src := range srcs {
		th := &starlark.Thread{Name: "test"}
		th.SetMaxExecutionSteps(1 << 40)
		th.OnMaxSteps = func(*starlark.Thread) {}
		go func() {
			time.Sleep(50 * time.Millisecond)
			th.Cancel("timeout")
		}()
		done := make(chan error, 1)
		go func() {
			_, err := runOn(th, src)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "cancelled") {
				t.Errorf("%q: got %v, want the cancellation", src, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%q: a cancelled execution kept running", src)
		}
	}
}

// TestStepLimitCannotBeCaught stops at go.starlark.net's own step limit.
func TestStepLimitCannotBeCaught(t *testing.T) {
	th := &starlark.Thread{Name: "test"}
	th.SetMaxExecutionSteps(100000)
	th.OnMaxSteps = func(th *starlark.Thread) { th.Cancel("too many steps") }
	_, err := runOn(th, "n = 0\nwhile True:\n    try:\n        n += 1\n    except:\n        pass\n")
	if err == nil || !strings.Contains(err.Error(), "too many steps") {
		t.Errorf("got %v, want the step limit", err)
	}
}

// TestStepLimitThroughContextManagers runs out of steps inside the code
// of context managers, which must not swallow the limit. (This harness
// gives generators' threads no limit: executors/starlarkexec's escape tests try
// a @contextmanager generator.)
func TestStepLimitThroughContextManagers(t *testing.T) {
	for _, src := range []string{
		"import contextlib\nwith contextlib.suppress(Exception):\n    while True:\n        pass\n",
		"class C:\n    def __enter__(self):\n        return self\n    def __exit__(self, *a):\n        return True\nwhile True:\n    with C():\n        while True:\n            pass\n",
		"class C:\n    def __init__(self):\n        self.n = 0\n    def __isub__(self, o):\n        while True:\n            pass\nc = C()\nc -= 1\n",
	} {
		t.Run("", func(t *testing.T) {
			th := &starlark.Thread{Name: "test"}
			th.SetMaxExecutionSteps(100000)
			th.OnMaxSteps = func(th *starlark.Thread) { th.Cancel("too many steps") }
			_, err := runOn(th, src)
			if err == nil || !strings.Contains(err.Error(), "too many steps") {
				t.Errorf("%q: got %v, want the step limit", src, err)
			}
		})
	}
}

// TestInterruptCannotBeCaught raises builtins.Interrupt from a builtin,
// as a deadline inside a long builtin does.
func TestInterruptCannotBeCaught(t *testing.T) {
	done := make(chan struct{})
	close(done)
	th := &starlark.Thread{Name: "test"}
	core.SetBudget(th, &core.Budget{Done: done, Reason: func() string { return "timeout" }})
	_, err := runOn(th, "try:\n    sorted(range(100000))\nexcept:\n    print('caught')\n")
	var in *core.Interrupt
	if !errors.As(err, &in) {
		t.Errorf("got %v, want the interrupt", err)
	}
}

// TestReflectionThroughObjects tries, at run time, the attribute paths the
// front end cannot see statically.
func TestReflectionThroughObjects(t *testing.T) {
	tests := []struct{ src, want string }{
		{"try:\n    1/0\nexcept Exception as e:\n    getattr(e, '__dict__')\n", "access to attribute '__dict__' is not allowed"},
		{"try:\n    1/0\nexcept Exception as e:\n    getattr(e, '__traceback__')\n", "access to attribute '__traceback__' is not allowed"},
		{"class A:\n    pass\ngetattr(A(), '__dict__')\n", "access to attribute '__dict__' is not allowed"},
		{"class A:\n    pass\ngetattr(A, '__subclasses__')\n", "access to attribute '__subclasses__' is not allowed"},
		{"class A:\n    def f(self):\n        return getattr(super(), '__dict__')\nA().f()\n", "access to attribute '__dict__' is not allowed"},
		{"class A:\n    pass\nsetattr(A(), '__class__', int)\n", "access to attribute '__class__' is not allowed"},
		{"ValueError.x = 1\n", "cannot set 'x' attribute of immutable type 'ValueError'"},
		{"Exception.__init__ = None\n", "cannot set '__init__' attribute of immutable type 'Exception'"},
		{"import enum\nenum.Enum.x = 1\n", "cannot set 'x' attribute of immutable type 'Enum'"},
		{"import enum\nfrom dataclasses import dataclass\ndataclass(enum.Enum)\n", "dataclass() should be called on a class"},
		{"from dataclasses import dataclass\ndataclass(KeyError)\n", "dataclass() should be called on a class"},
		{"class A:\n    pass\nA.__name__.x = 1\n", "can't assign to .x field of string"},
		{"try:\n    raise ValueError\nexcept ValueError as e:\n    e.args = 'x'\n", "args must be a tuple"},
		{"class A:\n    def f(self):\n        return super(A, 1).f()\nA().f()\n", "this form of super() is not supported"},
		{"class A:\n    def f(self, o):\n        return super().f()\nclass B(A):\n    def f(self):\n        return A.f(1, 2)\nB().f()\n", "obj must be an instance or subtype of type"},
		{"class A(dict):\n    pass\n", "subclassing the built-in type 'dict' is not supported"},
		// The values behind the data model and the modules that use it.
		{"from abc import ABC\nABC.x = 1\n", "cannot set 'x' attribute of immutable type 'ABC'"},
		{"from abc import ABC\ngetattr(ABC, '__subclasses__')\n", "access to attribute '__subclasses__' is not allowed"},
		{"import contextlib\ngetattr(contextlib.suppress(), '__exit__')\n", "access to attribute '__exit__' is not allowed"},
		{"import contextlib\n@contextlib.contextmanager\ndef f():\n    yield\ngetattr(f(), 'gen')\n", "has no attribute 'gen'"},
		{"import contextlib\n@contextlib.contextmanager\ndef f():\n    yield\ngetattr(f(), '__wrapped__')\n", "object has no attribute '__wrapped__'"},
		{"import contextlib\nwith contextlib.nullcontext(1) as x:\n    getattr(x, '__bases__')\n", "access to attribute '__bases__' is not allowed"},
		{"class C:\n    def __enter__(self):\n        return self\n    def __exit__(self, t, v, tb):\n        getattr(v, '__traceback__')\nwith C():\n    raise ValueError\n", "access to attribute '__traceback__' is not allowed"},
		{"class C:\n    pass\nsetattr(C, '__iadd__', lambda a, b: a)\n", "access to attribute '__iadd__' is not allowed"},
		{"class C:\n    pass\nsetattr(C(), '__enter__', print)\n", "access to attribute '__enter__' is not allowed"},
		{"x = ...\ngetattr(x, '__bases__')\n", "access to attribute '__bases__' is not allowed"},
		{"x = ...\nx.y = 1\n", "y"},
	}
	for _, tt := range tests {
		out, err := run(tt.src)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got %v (output %q), want an error containing %q", tt.src, err, out, tt.want)
		}
	}
}

// TestBuiltinClassesShared checks that a run cannot change the built-in
// exception classes another run sees.
func TestBuiltinClassesShared(t *testing.T) {
	if _, err := run("try:\n    ValueError.marker = 1\nexcept TypeError:\n    pass\n"); err != nil {
		t.Fatal(err)
	}
	out, err := run("print(hasattr(ValueError, 'marker'), ValueError('x').args)\n")
	if err != nil || out != "False ('x',)\n" {
		t.Errorf("got %q, %v", out, err)
	}
}
