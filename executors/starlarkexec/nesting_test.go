package starlarkexec

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"

	"github.com/star-agent/star-agent/internal/cpythontest"
)

// These tests drive the front end with code nested or chained far beyond
// what any model writes, through the executor: each must end in a clear
// SyntaxError, quickly, and leave the executor working. Before the depth
// limit, the unary chain killed the process with a Go stack overflow
// (which no recover catches), the ternary chain held go.starlark.net's
// compiler for minutes, and the + chain took quadratic time in the
// lowering, before the deadline started (40,000 terms: 25 s).

// nestingBound is how long an attack may take before the test calls it
// hung: the old front end took minutes or crashed; the refusal takes
// milliseconds (figures in pyfront's BenchmarkChains).
const nestingBound = 20 * time.Second

func TestNestingAttacks(t *testing.T) {
	// A budget large enough that the code-size cap (MaxMemory/1024, 2 MiB
	// here) lets these megabyte attacks through to the front end, whose
	// own limits are under test.
	e, err := New(Options{Limits: executors.Limits{Timeout: 5 * time.Second, MaxMemory: 2 << 30}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	attacks := []struct{ name, code, construct string }{
		{"1,000,000 unary minus", "x = " + strings.Repeat("-", 1_000_000) + "1", "unary operators"},
		{"100,000 ternaries", "x = " + strings.Repeat("1 if 1 else ", 100_000) + "1", "conditional expressions"},
		{"70,000-term + chain", "x = " + strings.Repeat("1+", 69_999) + "1", "a chain of binary operators"},
		{"70,000-term + chain of names", "a = 1\nx = " + strings.Repeat("a+", 69_999) + "a", "a chain of binary operators"},
		{"100,000 nots", "x = " + strings.Repeat("not ", 100_000) + "1", "'not' operators"},
		{"100,000 elifs", "a = 0\nif a: pass\n" + strings.Repeat("elif a: pass\n", 100_000), "elif branches"},
		{"100,000 f-string fields", "a = 1\nx = f'" + strings.Repeat("{a}", 100_000) + "'", "replacement fields"},
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			res := executeWithin(t, e, a.code, nestingBound)
			if res.Err == nil || res.Err.Type != "SyntaxError" ||
				!strings.HasPrefix(res.Err.Message, "the code is nested too deeply: "+a.construct) {
				t.Fatalf("got %+v, want a SyntaxError: the code is nested too deeply: %s...", res.Err, a.construct)
			}
			if !strings.Contains(res.Err.Message, "1000 levels") {
				t.Errorf("the message does not give the limit: %s", res.Err.Message)
			}
			// The executor is still usable, its state intact.
			res = executeWithin(t, e, "1 + 1", nestingBound)
			if res.Err != nil || res.Repr != "2" {
				t.Fatalf("1 + 1 after the attack: %+v", res)
			}
		})
	}
}

// TestNestingUnderLimit runs code just under the limits and compares its
// answer with CPython's.
func TestNestingUnderLimit(t *testing.T) {
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	cases := []struct {
		name, code, want string
	}{
		{"999 unary minus", "x = " + strings.Repeat("-", 999) + "7", "-7"},
		{"998 unary mixed", "x = " + strings.Repeat("-~", 499) + "7", "506"},
		{"998 ternaries", "a = 0\nx = " + strings.Repeat("a if a else ", 998) + "5", "5"},
		{"998-term + chain", "x = " + strings.Repeat("1+", 997) + "1", "998"},
		{"998-term + chain of names", "a = 2\nx = " + strings.Repeat("a+", 997) + "a", "1996"},
		{"990-term string chain", "a = 'ab'\nx = len(" + strings.Repeat("a+", 989) + "a)", "1980"},
		{"998 nots", "x = " + strings.Repeat("not ", 998) + "0", "False"},
		{"998-term and chain", "x = " + strings.Repeat("1 and ", 997) + "3", "3"},
		{"200-term comparison chain", "a = 1\nx = " + strings.Repeat("a < a + 1 < ", 100) + "9", "False"},
		{"200-term comparison chain, true", "a = 1\nx = " + strings.Repeat("a < ", 200) + "9", "False"},
		{"990 subscripts", "a = [0]\na[0] = a\nx = a" + strings.Repeat("[0]", 990) + " is a", "True"},
		{"998-term power chain", "x = " + strings.Repeat("1**", 997) + "1", "1"},
		{"900 elifs", "a = 899\nif a == 0: x = 0\n" + elifs(900) + "else: x = -1", "899"},
		{"900 f-string fields", "a = 1\nx = len(f'" + strings.Repeat("{a}", 900) + "')", "900"},
		{"900 starred items", "a = [1]\nx = len([" + strings.Repeat("*a, ", 900) + "])", "900"},
	}
	python := pythonAnswers(t, cases)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := executeWithin(t, e, c.code+"\nx", nestingBound)
			if res.Err != nil {
				t.Fatalf("error: %+v", res.Err)
			}
			if res.Repr != c.want {
				t.Errorf("x = %s, want %s", res.Repr, c.want)
			}
			if python != nil && python[i] != c.want {
				t.Errorf("CPython says %s, the test wants %s", python[i], c.want)
			}
		})
	}
}

// elifs is "elif a == i: x = i" for i from 1 to n.
func elifs(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "elif a == %d: x = %d\n", i, i)
	}
	return b.String()
}

// pythonAnswers runs the cases' code under CPython and returns repr(x)
// for each, or nil when cpythontest.ToCheck gives no python3 (the answers are
// written in the cases).
func pythonAnswers(t *testing.T, cases []struct{ name, code, want string }) []string {
	t.Helper()
	py := cpythontest.ToCheck(t)
	if py == "" {
		return nil
	}
	var script strings.Builder
	for _, c := range cases {
		script.WriteString("exec(compile(" + pyQuote(c.code+"\nprint(repr(x))") + ", 'case', 'exec'), {})\n")
	}
	out, err := exec.Command(py, "-c", script.String()).Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("python3 printed %d lines for %d cases", len(lines), len(cases))
	}
	return lines
}

// pyQuote quotes s as a Python string literal.
func pyQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`)
	return "'" + r.Replace(s) + "'"
}
