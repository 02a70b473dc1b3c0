package starlarkexec

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
)

// escape is one attempt to break out of the sandbox or one of its limits.
type escape struct {
	name string
	code string
	// want lists acceptable Python exception types: an attempt must fail
	// with one of them.
	want []string
}

var escapes = []escape{
	// Imports of dangerous modules, by every spelling.
	{"import os", "import os", []string{"ImportError"}},
	{"import os.path", "import os.path", []string{"ImportError"}},
	{"from os import system", "from os import system\nsystem('touch /tmp/pwned')", []string{"ImportError"}},
	{"import as alias", "import subprocess as sp", []string{"ImportError"}},
	{"import sys", "import sys", []string{"ImportError"}},
	{"import socket", "import socket", []string{"ImportError"}},
	{"import ctypes", "import ctypes", []string{"ImportError"}},
	{"import importlib", "import importlib", []string{"ImportError"}},
	{"import builtins", "import builtins", []string{"ImportError"}},
	{"import pickle", "import pickle", []string{"ImportError"}},
	{"import io", "import io", []string{"ImportError"}},
	{"import pathlib", "import pathlib", []string{"ImportError"}},
	{"import shutil", "import shutil", []string{"ImportError"}},
	{"import multiprocessing", "import multiprocessing", []string{"ImportError"}},
	{"import pty", "import pty", []string{"ImportError"}},
	{"import in function", "def f():\n    import os\n    return os\nf()", []string{"ImportError"}},
	{"unknown module", "import requests", []string{"ModuleNotFoundError"}},
	// Builtins that reach outside, by name or by dunder.
	{"__import__", "__import__('os')", []string{"NameError", "SyntaxError"}},
	{"open", "open('/etc/passwd').read()", []string{"NameError"}},
	{"eval", "eval('1 + 1')", []string{"NameError"}},
	{"exec", "exec('import os')", []string{"NameError"}},
	{"compile", "compile('1', 'f', 'eval')", []string{"NameError"}},
	{"globals", "globals()['__builtins__']", []string{"NameError"}},
	{"locals", "locals()", []string{"NameError"}},
	{"vars", "vars()", []string{"TypeError"}},
	{"vars_of_module", "import math\nvars(math)['__builtins__']", []string{"KeyError"}},
	{"vars_of_function", "def f(): pass\nvars(f)", []string{"TypeError"}},
	{"input", "input('> ')", []string{"NameError"}},
	{"breakpoint", "breakpoint()", []string{"NameError"}},
	{"getenv", "getenv('HOME')", []string{"NameError"}},
	{"class hierarchy walk", "().__class__.__bases__[0].__subclasses__()", []string{"AttributeError", "SyntaxError"}},
	{"function globals", "def f():\n    pass\nf.__globals__", []string{"AttributeError", "SyntaxError"}},
	{"getattr dunder", "getattr((), '__dict__')", []string{"AttributeError"}},
	{"private attribute outside a class", "x = [1]\nx.__private", []string{"AttributeError"}},
	{"engine helper as an attribute", "x = [1]\nx.__sa_plus", []string{"AttributeError"}},
	{"mangled name reaching a helper", "class _sa:\n    def f(self):\n        return __plus\n_sa().f()", []string{"NameError"}},
	{"getattr of __class__, then up", "getattr(getattr((), '__class__'), '__bases__')", []string{"AttributeError"}},
	{"getattr builtins dunder", "getattr(print, '__self__')", []string{"AttributeError"}},
	{"dunder assignment", "x = [1]\nx.__class__ = dict", []string{"AttributeError", "SyntaxError"}},
	{"dunder name", "__builtins__", []string{"NameError", "SyntaxError"}},
	// Loops and recursion.
	{"infinite loop", "while True:\n    pass", []string{"StepLimitError", "TimeoutError"}},
	{"infinite loop in function", "def f():\n    while True:\n        x = 1\nf()", []string{"StepLimitError", "TimeoutError"}},
	{"deep recursion", "def f(n):\n    return f(n + 1)\nf(0)", []string{"RecursionError"}},
	{"mutual recursion", "def a(n):\n    return b(n)\ndef b(n):\n    return a(n)\na(1)", []string{"RecursionError"}},
	// Memory bombs.
	{"string repeat", "s = 'a' * (10 ** 10)", []string{"MemoryError"}},
	{"string repeat under starlark's cap", "s = 'ab' * (1 << 29)", []string{"MemoryError"}},
	{"list repeat", "x = [0] * (1 << 29)", []string{"MemoryError"}},
	{"tuple repeat", "x = (1, 2) * (1 << 28)", []string{"MemoryError"}},
	{"list doubling", "x = [1]\nfor i in range(64):\n    x = x + x", []string{"MemoryError"}},
	{"string doubling", "s = 'ab'\nwhile True:\n    s = s + s", []string{"MemoryError"}},
	{"augmented string doubling", "s = 'ab'\nwhile True:\n    s += s", []string{"MemoryError"}},
	{"in-place list doubling", "x = [1]\nwhile True:\n    x += x", []string{"MemoryError"}},
	{"spread doubling", "x = [1]\nwhile True:\n    x = [*x, *x]", []string{"MemoryError", "StepLimitError"}},
	{"f-string doubling", "s = 'ab'\nwhile True:\n    s = f'{s}{s}'", []string{"MemoryError"}},
	{"doubling in a generator", "def g():\n    s = 'ab'\n    while True:\n        s = s + s\n        yield 1\nfor _ in g():\n    pass", []string{"MemoryError"}},
	{"doubling in a method", "class C:\n    def __add__(self, o):\n        s = 'ab'\n        while True:\n            s = s + s\nC() + C()", []string{"MemoryError"}},
	{"the concatenation guard", "__sa_plus['x']['y']", []string{"NameError", "SyntaxError"}},
	{"the comparison guard", "(__sa_lt + 1) + 2", []string{"NameError", "SyntaxError"}},
	{"the unpacking guard", "a, b = __sa_unpack[2] % [1, 2]", []string{"NameError", "SyntaxError"}},
	{"big int power", "x = 2 ** (10 ** 9)", []string{"MemoryError", "OverflowError"}},
	{"big int squaring", "x = 10\nfor i in range(64):\n    x = x * x", []string{"MemoryError", "OverflowError"}},
	{"range materialised", "x = list(range(10 ** 9))", []string{"MemoryError"}},
	{"comprehension growth", "x = [str(i) * 100 for i in range(10 ** 8)]", []string{"MemoryError", "StepLimitError"}},
	{"append growth", "x = []\nwhile True:\n    x.append('y' * 1000)", []string{"MemoryError"}},
	{"dict growth", "d = {}\ni = 0\nwhile True:\n    d[i] = 'v' * 100\n    i += 1", []string{"MemoryError", "StepLimitError"}},
	{"join amplification", "sep = 'x' * (1 << 20)\ny = sep.join([''] * 100000)", []string{"MemoryError"}},
	{"replace amplification", "s = 'a' * 100000\ny = s.replace('a', 'b' * 100000)", []string{"MemoryError"}},
	{"format amplification", "s = '{:>2000000000}'.format(1)", []string{"MemoryError", "ValueError"}},
	{"f-string width", "w = 2000000000\ns = f'{1:>{w}}'", []string{"MemoryError", "ValueError"}},
	// The data model's special methods, open to classes, used to reach
	// internals or to slip past a limit.
	{"__getattr__ defined", "class C:\n    def __getattr__(self, n):\n        return n\nC().__dict__", []string{"NameError", "AttributeError", "SyntaxError"}},
	{"__getattribute__ defined", "class C:\n    def __getattribute__(self, n):\n        return 1\nC().x", []string{"NameError", "AttributeError", "SyntaxError"}},
	{"__getattribute__ bound", "class C:\n    pass\nC.__getattribute__ = lambda s, n: 1", []string{"NameError", "AttributeError", "SyntaxError"}},
	{"__init_subclass__", "class B:\n    def __init_subclass__(cls):\n        cls.x = cls.__dict__\nclass C(B):\n    pass", []string{"NameError", "AttributeError", "SyntaxError"}},
	{"__set_name__", "class D:\n    def __set_name__(self, owner, name):\n        self.o = owner\nclass C:\n    d = D()", []string{"NameError", "AttributeError", "SyntaxError"}},
	{"__class_getitem__", "class C:\n    def __class_getitem__(cls, k):\n        return cls\nC[int]", []string{"NameError", "AttributeError", "SyntaxError"}},
	{"special method set on an instance", "class C:\n    pass\nc = C()\nc.__enter__ = print", []string{"AttributeError"}},
	{"special method set on a class", "class C:\n    pass\nC.__eq__ = lambda a, b: True\nC() == C()\nraise ValueError", []string{"AttributeError"}},
	{"special method of a builtin", "[].__iadd__([1])", []string{"AttributeError"}},
	{"__exit__ reaching the traceback", "class C:\n    def __enter__(self):\n        return self\n    def __exit__(self, t, v, tb):\n        tb.tb_frame.f_globals\nwith C():\n    raise ValueError", []string{"AttributeError"}},
	{"__exit__ reaching the exception's class", "class C:\n    def __enter__(self):\n        return self\n    def __exit__(self, t, v, tb):\n        t.__subclasses__()\nwith C():\n    raise ValueError", []string{"AttributeError", "SyntaxError"}},
	{"__format__ returning its argument", "class C:\n    def __format__(self, spec):\n        return spec\nf'{C():{\"x\" * 10**10}}'", []string{"MemoryError"}},
	{"__format__ returning a non-str", "class C:\n    def __format__(self, spec):\n        return self\nf'{C()}'", []string{"TypeError"}},
	{"__index__ huge for repeat", "class C:\n    def __index__(self):\n        return 10 ** 12\nx = 'ab' * C()", []string{"MemoryError", "OverflowError", "TypeError"}},
	{"__index__ huge for range", "class C:\n    def __index__(self):\n        return 10 ** 30\nx = list(range(C()))", []string{"MemoryError", "OverflowError", "TypeError"}},
	{"__len__ huge", "class C:\n    def __len__(self):\n        return 10 ** 30\nlen(C())", []string{"OverflowError"}},
	{"__len__ huge for a buffer", "class C:\n    def __len__(self):\n        return 1 << 60\n    def __iter__(self):\n        return iter([1])\nx = list(C()) * (1 << 40)", []string{"MemoryError", "OverflowError"}},
	{"__iter__ that never ends", "class C:\n    def __iter__(self):\n        return self\n    def __next__(self):\n        return 1\nfor x in C():\n    pass", []string{"StepLimitError", "TimeoutError"}},
	{"__iter__ that never ends, collected", "class C:\n    def __iter__(self):\n        return self\n    def __next__(self):\n        return 'x' * 1000\nx = list(C())", []string{"MemoryError", "StepLimitError", "TimeoutError"}},
	{"__hash__ raising", "class C:\n    def __hash__(self):\n        raise ValueError('no')\n{C(): 1}", []string{"ValueError"}},
	{"__eq__ recursion", "class C:\n    def __eq__(self, o):\n        return self == o\nC() == C()", []string{"RecursionError"}},
	{"__bool__ recursion", "class C:\n    def __bool__(self):\n        return bool(self)\nif C():\n    pass", []string{"RecursionError", "TypeError"}},
	{"__enter__ recursion", "class C:\n    def __enter__(self):\n        with self:\n            pass\n    def __exit__(self, *a):\n        pass\nwith C():\n    pass", []string{"RecursionError"}},
	{"__exit__ loops forever", "class C:\n    def __enter__(self):\n        return self\n    def __exit__(self, *a):\n        while True:\n            pass\nwith C():\n    pass", []string{"StepLimitError", "TimeoutError"}},
	{"__exit__ swallowing the step limit", "class C:\n    def __enter__(self):\n        return self\n    def __exit__(self, *a):\n        return True\nwhile True:\n    with C():\n        while True:\n            pass", []string{"StepLimitError", "TimeoutError"}},
	{"__iadd__ doubling", "class C:\n    def __init__(self):\n        self.s = 'ab'\n    def __iadd__(self, o):\n        self.s = self.s + self.s\n        return self\nc = C()\nwhile True:\n    c += 1", []string{"MemoryError"}},
	{"__isub__ doubling a list", "class C:\n    def __init__(self):\n        self.s = [1]\n    def __isub__(self, o):\n        self.s = self.s * 2\n        return self\nc = C()\nwhile True:\n    c -= 1", []string{"MemoryError"}},
	{"__pow__ huge", "class C:\n    def __pow__(self, o):\n        return 10 ** o\nx = C() ** (10 ** 9)", []string{"MemoryError", "OverflowError"}},
	{"__matmul__ growth", "class C:\n    def __matmul__(self, o):\n        return 'x' * o\nx = C() @ (10 ** 11)", []string{"MemoryError"}},
	{"__delitem__ recursion", "class C:\n    def __delitem__(self, k):\n        del self[k]\nc = C()\ndel c[0]", []string{"RecursionError"}},
	{"__round__ recursion", "class C:\n    def __round__(self, n=None):\n        return round(self)\nround(C())", []string{"RecursionError"}},
}

// moduleEscapes are attempts through modules outside the default imports,
// run with those modules authorized.
var moduleEscapes = []escape{
	{"contextmanager cleanup loops forever", "import contextlib\n@contextlib.contextmanager\ndef f():\n    try:\n        yield\n    finally:\n        while True:\n            pass\nwith f():\n    pass", []string{"StepLimitError", "TimeoutError"}},
	{"contextmanager cleanup doubles a string", "import contextlib\n@contextlib.contextmanager\ndef f():\n    s = 'ab'\n    try:\n        yield\n    finally:\n        while True:\n            s = s + s\nwith f():\n    pass", []string{"MemoryError"}},
	{"suppress swallowing the step limit", "import contextlib\nwhile True:\n    with contextlib.suppress(BaseException):\n        while True:\n            pass", []string{"StepLimitError", "TimeoutError"}},
	{"contextmanager recursion", "import contextlib\n@contextlib.contextmanager\ndef f():\n    with f():\n        yield\nwith f():\n    pass", []string{"RecursionError"}},
	{"abstract method recursion", "from abc import ABC, abstractmethod\nclass A(ABC):\n    @abstractmethod\n    def f(self):\n        return self.f()\nclass B(A):\n    def f(self):\n        return super().f()\nB().f()", []string{"RecursionError"}},
}

func TestModuleEscapes(t *testing.T) {
	for _, c := range moduleEscapes {
		t.Run(c.name, func(t *testing.T) {
			e := newTestExecutor(t, Options{Limits: escapeLimits, AuthorizedImports: []string{"abc", "contextlib"}})
			res := run(t, e, c.code)
			if res.Err == nil {
				t.Fatalf("escape succeeded: stdout %q value %s", res.Stdout, res.Repr)
			}
			if !slices.Contains(c.want, res.Err.Type) {
				t.Errorf("got %s: %s; want one of %v", res.Err.Type, res.Err.Message, c.want)
			}
			if r := run(t, e, "1 + 1"); r.Err != nil || r.Repr != "2" {
				t.Fatalf("executor unusable after the attempt: %+v", r.Err)
			}
		})
	}
}

// escapeLimits are tight enough to keep the suite fast and loose enough
// that the limit under test, not another, is what stops each attempt.
var escapeLimits = executors.Limits{Timeout: 5 * time.Second, MaxMemory: 64 << 20, MaxOperations: 20_000_000}

func TestEscapes(t *testing.T) {
	if len(escapes) < 30 {
		t.Fatalf("the suite must keep at least 30 escape attempts, has %d", len(escapes))
	}
	marker := filepath.Join(t.TempDir(), "pwned")
	for _, c := range escapes {
		t.Run(c.name, func(t *testing.T) {
			e := newTestExecutor(t, Options{Limits: escapeLimits})
			code := strings.ReplaceAll(c.code, "/tmp/pwned", marker)
			resetPeakRSS()
			before := peakRSS()
			res := run(t, e, code)
			grown := peakRSS() - before
			if res.Err == nil {
				t.Fatalf("escape succeeded: stdout %q value %s", res.Stdout, res.Repr)
			}
			ok := false
			for _, w := range c.want {
				ok = ok || res.Err.Type == w
			}
			if !ok {
				t.Errorf("got %s: %s; want one of %v", res.Err.Type, res.Err.Message, c.want)
			}
			// Peak RSS may exceed the budget by the garbage of the last
			// checks and the runtime's own overhead, never by multiples.
			if grown > 6*escapeLimits.MaxMemory {
				t.Errorf("host peak RSS grew by %d MiB with a %d MiB budget", grown>>20, escapeLimits.MaxMemory>>20)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the code touched the host file system")
			}
			// The executor survives and keeps working.
			if r := run(t, e, "1 + 1"); r.Err != nil || r.Repr != "2" {
				t.Fatalf("executor unusable after the attempt: %+v", r.Err)
			}
		})
		runtime.GC()
	}
}

func TestTimeoutIsPreemptive(t *testing.T) {
	cases := map[string]string{
		"bytecode loop":   "while True:\n    x = 1",
		"sleep":           "import time\ntime.sleep(60)",
		"sort huge list":  "x = list(range(3000000))\nfor i in range(100):\n    x = sorted(x, reverse=(i % 2 == 0))",
		"key-func sort":   "x = list(range(3000000))\nx.sort(key=lambda v: -v)\nx.sort(key=lambda v: v)",
		"string building": "s = ''\nfor i in range(10 ** 9):\n    s += 'x'",
	}
	for name, code := range cases {
		t.Run(name, func(t *testing.T) {
			const timeout = 300 * time.Millisecond
			// Only the deadline may stop the cases: no step limit, and a
			// memory budget none of them nears before it. With the
			// default budget, how far a case gets (and so whether the
			// memory limit comes first) depended on the machine's load
			// and on what other work in the process held.
			e := newTestExecutor(t, Options{Limits: executors.Limits{Timeout: timeout, MaxOperations: 1 << 62, MaxMemory: 4 << 30}})
			// None of the cases ends within a minute: a TimeoutError means
			// the deadline stopped it. How soon is measured by
			// BenchmarkTimeoutOvershoot, not asserted.
			res := run(t, e, code)
			if res.Err == nil || res.Err.Type != "TimeoutError" {
				t.Fatalf("want TimeoutError, got %+v (notes %q)", res.Err, res.Notes)
			}
			// A builtin that does not check for cancellation (a sort)
			// may outlive the grace after the deadline on a loaded
			// machine and be abandoned: let it end before the next case,
			// so that it does not hold a core and its memory then.
			waitAbandonedDone(t, e)
		})
	}
}

func TestStepLimit(t *testing.T) {
	e := newTestExecutor(t, Options{Limits: executors.Limits{MaxOperations: 5000}})
	res := run(t, e, "n = 0\nfor i in range(100000):\n    n += i")
	if res.Err == nil || res.Err.Type != "StepLimitError" || res.Steps < 5000 || res.Steps > 5000+interval {
		t.Fatalf("%+v steps=%d", res.Err, res.Steps)
	}
	// Under the limit, the same loop shape completes.
	res = run(t, e, "n = 0\nfor i in range(100):\n    n += i\nn")
	if res.Err != nil || res.Repr != "4950" {
		t.Fatalf("%+v %s", res.Err, res.Repr)
	}
}

func TestRecursionLimit(t *testing.T) {
	e := newTestExecutor(t, Options{Limits: executors.Limits{MaxDepth: 50}})
	res := run(t, e, "def f(n):\n    return 0 if n == 0 else 1 + f(n - 1)\nf(40)")
	if res.Err != nil || res.Repr != "40" {
		t.Fatalf("depth 40 under a limit of 50: %+v", res.Err)
	}
	res = run(t, e, "f(500)")
	if res.Err == nil || res.Err.Type != "RecursionError" {
		t.Fatalf("depth 500: %+v", res.Err)
	}
}

func TestMemoryLimitAllowsWorkUnderIt(t *testing.T) {
	// Garbage is not charged: a loop that builds and drops large strings
	// many times over its budget must succeed.
	e := newTestExecutor(t, Options{Limits: executors.Limits{MaxMemory: 16 << 20}})
	res := run(t, e, "n = 0\nfor i in range(200):\n    s = 'x' * 1000000\n    n += len(s)\nn")
	if res.Err != nil || res.Repr != "200000000" {
		t.Fatalf("%+v %s", res.Err, res.Repr)
	}
}

// resetPeakRSS resets the kernel's high-water mark of this process's RSS.
func resetPeakRSS() {
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// peakRSS returns the process's peak RSS in bytes (VmHWM), or 0.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func TestPeakRSSMeasurable(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peak RSS is read from /proc")
	}
	if peakRSS() == 0 {
		t.Fatal("cannot read VmHWM: the memory assertions of TestEscapes would pass vacuously")
	}
	_ = context.Background
}

// TestBuiltinBufferAtDefaultBudget: a builtin's own growing buffer (here
// str.join's) is invisible to the engine's walk; grants made inside the
// builtin must stay charged when it re-measures. At the default budget this
// once grew past 2 GiB.
func TestBuiltinBufferAtDefaultBudget(t *testing.T) {
	e := newTestExecutor(t, Options{})
	runtime.GC()
	resetPeakRSS()
	before := peakRSS()
	res := run(t, e, "sep = 'x' * (1 << 20)\ny = sep.join([''] * 100000)")
	if res.Err == nil || res.Err.Type != "MemoryError" {
		t.Fatalf("want MemoryError, got %+v", res.Err)
	}
	if grown := peakRSS() - before; grown > 4*executors.DefaultMaxMemory {
		t.Fatalf("peak RSS grew by %d MiB with a %d MiB budget", grown>>20, executors.DefaultMaxMemory>>20)
	}
}
