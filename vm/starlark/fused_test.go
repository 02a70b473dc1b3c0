package starlark_test

import (
	"strings"
	"testing"

	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// The interpreter fuses pairs of instructions (compile.ITERJMP_SETLOCAL
// and the next); these tests check that a fused pair computes, counts
// steps and reports errors as the two instructions do.

// fusedSrc runs every fused pair, jumps into the second instruction of
// some and leaves loops both ways.
const fusedSrc = `
def sums(n):
    t = 0
    for i in range(n):
        t = t + i
    for x in [10, 20, 30]:
        t = t + x
    for c in ("a", "b"):
        pass
    while t > 1000:
        t = t - 7
    return t, i, x, c

def nested(n):
    out = []
    for i in range(n):
        for j in range(i):
            if j % 2:
                continue
            out.append(i * j)
    return out

r1 = sums(100)
r2 = nested(6)
`

// TestFusedInstructions checks results and the exact step count, which
// is the one the unfused instructions counted.
func TestFusedInstructions(t *testing.T) {
	thread := &starlark.Thread{Name: "fused"}
	globals, err := starlark.ExecFileOptions(&syntax.FileOptions{While: true}, thread, "fused.star", fusedSrc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := globals["r1"].String(), `(999, 99, 30, "b")`; got != want {
		t.Errorf("sums(100) = %s, want %s", got, want)
	}
	if got, want := globals["r2"].String(), "[0, 0, 0, 6, 0, 8, 0, 10, 20]"; got != want {
		t.Errorf("nested(6) = %s, want %s", got, want)
	}
	// Counted before instructions were fused (go test at e5fafa1).
	if got, want := thread.ExecutionSteps(), uint64(fusedSteps); got != want {
		t.Errorf("%d steps, want %d", got, want)
	}
}

const fusedSteps = 6565

// TestFusedErrorPosition checks that an unbound local read by the second
// half of a fused pair (LOCAL LOCAL) is reported at its own line.
func TestFusedErrorPosition(t *testing.T) {
	const src = `
def f(flag):
    x = 1
    if flag:
        y = 2
    return (x +
            y)

f(False)
`
	thread := &starlark.Thread{Name: "pos"}
	_, err := starlark.ExecFile(thread, "pos.star", src, nil)
	evalErr, ok := err.(*starlark.EvalError)
	if !ok {
		t.Fatalf("got %v, want an EvalError", err)
	}
	if !strings.Contains(evalErr.Msg, "local variable y referenced before assignment") {
		t.Errorf("error %q", evalErr.Msg)
	}
	if got := evalErr.CallStack.At(0).Pos.Line; got != 7 {
		t.Errorf("error at line %d, want 7\n%s", got, evalErr.Backtrace())
	}
}
