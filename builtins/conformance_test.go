package builtins_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/internal/builtinstest"
	"github.com/star-agent/star-agent/internal/cpythontest"
	"github.com/star-agent/star-agent/vm/starlark"
)

// The conformance cases in testdata/conformance.txt are expressions valid
// in both Starlark and Python. Runtime helpers are spelled with short
// aliases that the Python prelude defines with CPython's own semantics:
// A(x, "m") is x.m, F(v, conv, spec) an f-string field, P/M/MOD are **,
// * and %. Each case must print the same repr in both, or raise the same
// exception type (shown as "!Type").

const pythonPrelude = `
import json, re, math, datetime, collections, itertools, functools, statistics, string, textwrap, copy, unicodedata, typing, random, queue, stat, time
A = getattr
def F(v, conv, spec):
    if conv == "r": v = repr(v)
    elif conv == "s": v = str(v)
    elif conv == "a": v = ascii(v)
    return format(v, spec)
P = lambda a, b: a ** b
M = lambda a, b: a * b
MOD = lambda a, b: a % b
IS = lambda a, b: a is b
`

func readCases(t *testing.T) []string {
	t.Helper()
	f, err := os.Open("testdata/conformance.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cases = append(cases, line)
	}
	return cases
}

// pythonResults returns CPython's line for each case, stored in
// testdata/conformance.out.
func pythonResults(t *testing.T, cases []string) []string {
	t.Helper()
	var prog strings.Builder
	prog.WriteString(pythonPrelude)
	prog.WriteString("cases = [\n")
	for _, c := range cases {
		prog.WriteString("    " + quoteForPython(c) + ",\n")
	}
	prog.WriteString(`]
for c in cases:
    try:
        print(repr(eval(c)).replace("\n", "\\n"))
    except Exception as e:
        print("!" + type(e).__name__)
`)
	out := cpythontest.Golden(t, "testdata/conformance.out", func(py string) ([]byte, error) {
		out, err := exec.Command(py, "-c", prog.String()).CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("%v\n%s", err, out)
		}
		return out, nil
	})
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("testdata/conformance.out has %d lines for %d cases in testdata/conformance.txt: regenerate it (go test ./builtins -run TestConformanceWithCPython -update)", len(lines), len(cases))
	}
	return lines
}

func quoteForPython(s string) string { return core.QuoteString(s) }

func TestConformanceWithCPython(t *testing.T) {
	cases := readCases(t)
	want := pythonResults(t, cases)
	env := builtinstest.Env()
	failed := 0
	for i, c := range cases {
		th := &starlark.Thread{Name: "conformance"}
		v, err := starlark.EvalOptions(builtinstest.FileOptions, th, "case.py", c, env)
		var got string
		if err != nil {
			typ, _ := core.Classify(err)
			got = "!" + typ
			if !strings.HasPrefix(want[i], "!") {
				got += " (" + err.Error() + ")"
			}
		} else {
			s, rerr := core.ReprValue(th, v)
			if rerr != nil {
				t.Errorf("case %d %s: repr: %v", i+1, c, rerr)
				continue
			}
			got = strings.ReplaceAll(s, "\n", "\\n")
		}
		if got != want[i] {
			failed++
			t.Errorf("case %d: %s\n   got: %s\n  want: %s", i+1, c, got, want[i])
		}
	}
	t.Logf("%d/%d cases identical to CPython", len(cases)-failed, len(cases))
}
