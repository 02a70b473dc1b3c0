package main

import (
	"slices"
	"testing"
)

// The inputs are stored as CPython 3.11 and the engine wrote them; no
// test runs python3 or the engine.

func TestParseCPython(t *testing.T) {
	for _, c := range []struct {
		name, stderr string
		code         int
		exc, msg     string
	}{
		{"clean", "", 0, "", ""},
		{"warning on success", "x.py:1: SyntaxWarning: \"is\" with a literal\n", 0, "", ""},
		{"traceback", "Traceback (most recent call last):\n  File \"/tmp/x.py\", line 2, in <module>\n    d['k']\n    ~^^^^^\nKeyError: 'k'\n", 1, "KeyError", "'k'"},
		{"no message", "Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\n    raise StopIteration\nStopIteration\n", 1, "StopIteration", ""},
		{"module-qualified", "Traceback (most recent call last):\n  File \"x.py\", line 2, in <module>\njson.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)\n", 1, "JSONDecodeError", "Expecting value: line 1 column 1 (char 0)"},
		{"syntax error", "  File \"/tmp/x.py\", line 1\n    t\"hello\"\n     ^^^^^^^\nSyntaxError: invalid syntax\n", 1, "SyntaxError", "invalid syntax"},
		{"SystemExit", "", 3, "", ""},
		{"SystemExit with a message", "bye\n", 1, "", ""},
	} {
		r := parseCPython("out\n", c.stderr, c.code)
		if r.Exc != c.exc || r.Msg != c.msg || r.Stdout != "out\n" {
			t.Errorf("%s: got %q %q, want %q %q", c.name, r.Exc, r.Msg, c.exc, c.msg)
		}
	}
}

func TestParseEngine(t *testing.T) {
	r, err := parseEngine([]byte(`{"stdout":"1\n","final_answer":null,"repr":null,"is_final":false,"error":{"type":"NameError","message":"name 'bytearray' is not defined","line":1},"engine":"starlark","steps":4,"duration_ms":0.1}` + "\n"))
	if err != nil || r.Stdout != "1\n" || r.Exc != "NameError" || r.Msg != "name 'bytearray' is not defined" {
		t.Errorf("got %+v, %v", r, err)
	}
	r, err = parseEngine([]byte(`{"stdout":"SKIP\n","error":{"type":"SystemExit","message":""}}`))
	if err != nil || r.Exc != "" {
		t.Errorf("SystemExit: got %+v, %v", r, err)
	}
	if _, err := parseEngine([]byte("fatal error: stack overflow\n")); err == nil {
		t.Error("no JSON: no error")
	}
}

func TestClassify(t *testing.T) {
	skipCode := "try:\n    import struct\nexcept ImportError:\n    print(\"SKIP\")\n    raise SystemExit\n"
	for _, c := range []struct {
		name           string
		code           string
		py, en         run
		outcome, cause string
	}{
		{"identical", "", run{Stdout: "1\n"}, run{Stdout: "1\n"}, identical, ""},
		{"same exception", "", run{Stdout: "1\n", Exc: "KeyError", Msg: "'k'"}, run{Stdout: "1\n", Exc: "KeyError", Msg: "k"}, identical, ""},
		{"CPython syntax", "", run{Exc: "SyntaxError", Msg: "invalid syntax"}, run{}, skipped, "CPython: SyntaxError: invalid syntax"},
		{"CPython module", "", run{Exc: "ModuleNotFoundError", Msg: "No module named 'micropython'"}, run{}, skipped, "CPython: ModuleNotFoundError: No module named 'micropython'"},
		{"CPython SKIP", "", run{Stdout: "SKIP\n"}, run{Stdout: "SKIP\n"}, skipped, "the test skips itself on CPython (prints SKIP)"},
		{"CPython timeout", "", run{TimedOut: true}, run{}, skipped, "CPython timed out"},
		{"missing builtin", "", run{Stdout: "1\n2\n"}, run{Stdout: "1\n", Exc: "NameError", Msg: "name 'bytearray' is not defined"}, diffExc, "NameError: name 'bytearray' is not defined"},
		{"no exception", "", run{Exc: "ZeroDivisionError", Msg: "division by zero"}, run{}, diffExc, "no exception where CPython raised ZeroDivisionError: division by zero"},
		{"unsupported", "", run{Stdout: "1\n"}, run{Exc: "SyntaxError", Msg: "async def is not supported by the Starlark engine; full Python is not available in this run: rewrite the code without it"}, unsupported, "SyntaxError: async def is not supported by the Starlark engine"},
		{"host import", "", run{}, run{Exc: "ImportError", Msg: "import of sys is not allowed: it gives access to the host; authorized imports are: [abc, bisect]"}, importRef, "ImportError: import of sys is not allowed: it gives access to the host"},
		{"missing module", "", run{}, run{Exc: "ModuleNotFoundError", Msg: "module 'gc' is authorized but the Starlark engine does not provide it; full Python is not available in this run: rewrite this code without gc"}, importRef, "ModuleNotFoundError: module 'gc' is authorized but the Starlark engine does not provide it"},
		{"dunder", "", run{}, run{Exc: "AttributeError", Msg: "access to attribute '__dict__' is not allowed"}, accessRef, "AttributeError: access to attribute '__dict__' is not allowed"},
		{"time limit", "", run{}, run{Exc: "TimeoutError", Msg: "execution exceeded the time limit of 10s and was stopped"}, limitHit, "TimeoutError: execution exceeded the time limit of 10s and was stopped"},
		{"depth limit", "", run{Exc: "RecursionError"}, run{Exc: "RecursionError", Msg: "maximum recursion depth exceeded (limit 200 calls)"}, identical, ""},
		{"Python's RecursionError", "", run{}, run{Exc: "RecursionError", Msg: "maximum recursion depth exceeded (limit 200 calls)"}, limitHit, "RecursionError: maximum recursion depth exceeded (limit 200 calls)"},
		{"killed", "", run{}, run{TimedOut: true}, limitHit, "killed by suitescore's timer"},
		{"output limit", "", run{Stdout: "x\n"}, run{Stdout: "x\n[output truncated: 10 characters]\n"}, limitHit, "output truncated at the output limit"},
		{"self skip", skipCode, run{Stdout: "5\n"}, run{Stdout: "SKIP\n"}, selfSkip, "the test's guard fails: import struct"},
		{"crash in isolation", "", run{}, run{Exc: "SystemError", Msg: "the Starlark engine's process ended unexpectedly (signal: killed)"}, crashed, "SystemError: the Starlark engine's process ended unexpectedly (signal: killed)"},
		{"wrong line", "", run{Stdout: "a\nrange(26, 76, -15)\nc\n"}, run{Stdout: "a\nrange(26, 26, -15)\nc\n"}, diffStdout, `CPython "range(26, 76, -15)", engine "range(26, 26, -15)"`},
		{"ends early", "", run{Stdout: "a\nb\n"}, run{Stdout: "a\n"}, diffStdout, `CPython "b", engine ""`},
		{"goes on", "", run{Stdout: "a\n"}, run{Stdout: "a\nb\n"}, diffStdout, `CPython "", engine "b"`},
	} {
		outcome, cause := classify(c.code, c.py, c.en)
		if outcome != c.outcome || cause != c.cause {
			t.Errorf("%s: got %q, %q\nwant %q, %q", c.name, outcome, cause, c.outcome, c.cause)
		}
	}
}

func TestFirstDifferenceAtTheEnd(t *testing.T) {
	if got := firstDifference("a\nb", "a"); got != `output ends early: CPython "b"` {
		t.Errorf("got %s", got)
	}
	if got := firstDifference("a", "a\nb"); got != `output goes on: engine "b"` {
		t.Errorf("got %s", got)
	}
}

func TestSkipGuard(t *testing.T) {
	for code, want := range map[string]string{
		"try:\n    bytearray\nexcept NameError:\n    print(\"SKIP\")\n    raise SystemExit\n":                         "bytearray",
		"# test\ntry:\n\n    from array import array\nexcept ImportError:\n    print('SKIP')\n    raise SystemExit\n": "from array import array",
		"import sys\nif not hasattr(sys, 'x'):\n    print(\"SKIP\")\n    raise SystemExit\n":                          "if not hasattr(sys, 'x'):",
		"print(1)\n": "?",
	} {
		if got := skipGuard(code); got != want {
			t.Errorf("skipGuard(%q) = %q, want %q", code, got, want)
		}
	}
}

func TestGroupCauses(t *testing.T) {
	scores := []fileScore{
		{File: "c.py", Outcome: diffExc, Cause: "NameError: name 'bytearray' is not defined"},
		{File: "a.py", Outcome: diffExc, Cause: "NameError: name 'bytearray' is not defined"},
		{File: "b.py", Outcome: unsupported, Cause: "SyntaxError: async def is not supported by the Starlark engine"},
		{File: "d.py", Outcome: identical},
		{File: "e.py", Outcome: skipped, Cause: "CPython timed out"},
	}
	groups := groupCauses(scores, func(o string) bool { return o != identical && o != skipped })
	if len(groups) != 2 || groups[0].Count != 2 || !slices.Equal(groups[0].Files, []string{"a.py", "c.py"}) ||
		groups[1].Cause != "SyntaxError: async def is not supported by the Starlark engine" {
		t.Errorf("got %+v", groups)
	}
	if n := countOutcomes(scores); n[diffExc] != 2 || n[identical] != 1 || n[skipped] != 1 {
		t.Errorf("counts %v", n)
	}
}

func TestImportsOf(t *testing.T) {
	code := "import sys, struct as s\nfrom collections.abc import Mapping\ntry:\n    import array\nexcept ImportError:\n    pass\nfrom . import sibling\nimport os.path\n"
	if got, want := importsOf(code), []string{"array", "collections", "struct"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
