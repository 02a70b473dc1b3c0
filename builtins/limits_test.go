package builtins_test

import (
	"errors"
	"testing"
	"time"

	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/internal/builtinstest"
	"github.com/star-agent/star-agent/vm/starlark"
)

// budgetThread returns a thread with a budget of limit bytes whose Done
// channel closes after d (never if d is 0).
func budgetThread(limit int64, d time.Duration) *starlark.Thread {
	th := &starlark.Thread{Name: "limits"}
	done := make(chan struct{})
	if d > 0 {
		time.AfterFunc(d, func() { close(done) })
	}
	core.SetBudget(th, &core.Budget{Limit: limit, Done: done, Reason: func() string { return "timeout" }})
	return th
}

func TestSortStopsAtDeadline(t *testing.T) {
	const n = 1 << 20
	vals := make([]starlark.Value, n)
	for i := range vals {
		vals[i] = starlark.MakeInt((i * 7919) % n)
	}
	// The deadline passes as the sort starts: a sort that checks it
	// stops, one that does not sorts all 2**20 values and succeeds.
	th := budgetThread(1<<30, time.Nanosecond)
	err := core.SortValues(th, vals, starlark.None, false)
	var intr *core.Interrupt
	if !errors.As(err, &intr) {
		t.Fatalf("sort of %d values past its deadline: err = %v, want an Interrupt", n, err)
	}
}

func TestSortIsStableAndCorrect(t *testing.T) {
	vals := make([]starlark.Value, 1000)
	for i := range vals {
		vals[i] = starlark.Tuple{starlark.MakeInt((i * 37) % 10), starlark.MakeInt(i)}
	}
	key := starlark.NewBuiltin("k", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
		return args[0].(starlark.Tuple)[0], nil
	})
	for _, reverse := range []bool{false, true} {
		s := append([]starlark.Value(nil), vals...)
		if err := core.SortValues(&starlark.Thread{}, s, key, reverse); err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(s); i++ {
			a, b := s[i-1].(starlark.Tuple), s[i].(starlark.Tuple)
			ka, _ := a[0].(starlark.Int).Int64()
			kb, _ := b[0].(starlark.Int).Int64()
			ia, _ := a[1].(starlark.Int).Int64()
			ib, _ := b[1].(starlark.Int).Int64()
			if (!reverse && ka > kb) || (reverse && ka < kb) || (ka == kb && ia > ib) {
				t.Fatalf("reverse=%v: not a stable sort at %d: %v then %v", reverse, i, a, b)
			}
		}
	}
}

func TestMemoryBombsRefused(t *testing.T) {
	env := builtinstest.Env()
	for _, src := range []string{
		`M("x", 1000000000000)`,
		`M([1, 2, 3], 100000000)`,
		`P(10, 10000000)`,
		`M(P(2, 600000), P(2, 600000))`,
		`list(range(100000000))`,
		`A("x", "ljust")(1000000000)`,
		`A(M("a", 1000000), "replace")("a", M("b", 1000))`,
		`A(",", "join")(M(["xxxxxxxxxx"], 10000000))`,
		`sorted(range(100000000))`,
		`math.factorial(1000000)`,
		`A("{:1000000000}", "format")(1)`,
		`bytes(1000000000)`,
	} {
		th := budgetThread(64<<20, 0)
		_, err := starlark.EvalOptions(builtinstest.FileOptions, th, "bomb.py", src, env)
		if err == nil {
			t.Errorf("%s: no error, want MemoryError", src)
			continue
		}
		if typ, msg := core.Classify(err); typ != "MemoryError" {
			t.Errorf("%s: %s: %s, want MemoryError", src, typ, msg)
		}
	}
}

func TestSleepHonoursDeadline(t *testing.T) {
	env := builtinstest.Env()
	// sleep(3600) returns only through the deadline: an Interrupt is
	// the proof that it was honoured (the hang guard is the test's own
	// timeout).
	th := budgetThread(1<<30, 20*time.Millisecond)
	_, err := starlark.EvalOptions(builtinstest.FileOptions, th, "s.py", `time.sleep(3600)`, env)
	var intr *core.Interrupt
	if !errors.As(err, &intr) {
		t.Fatalf("err = %v, want Interrupt", err)
	}
}

func TestDunderAttributesRefused(t *testing.T) {
	env := builtinstest.Env()
	for _, src := range []string{`getattr(1, "__dict__")`, `getattr(getattr(1, "__class__"), "__bases__")`, `hasattr([], "__len__")`, `setattr(1, "__x", 2)`, `setattr(len, "__doc__", "x")`, `A("{0.__class__.__mro__}", "format")(1)`} {
		_, err := starlark.EvalOptions(builtinstest.FileOptions, &starlark.Thread{}, "d.py", src, env)
		if typ, _ := core.Classify(errOrNil(err)); typ != "AttributeError" {
			t.Errorf("%s: got %v, want AttributeError", src, err)
		}
	}
}

func errOrNil(err error) error {
	if err == nil {
		return errors.New("no error")
	}
	return err
}

func TestPrintWritesToStdoutWriter(t *testing.T) {
	env := builtinstest.Env()
	var out stringWriter
	th := &starlark.Thread{}
	th.SetLocal(contract.StdoutKey, &out)
	if _, err := starlark.ExecFileOptions(builtinstest.FileOptions, th, "p.py", `print(1, "a", [None, "b"], sep="|", end="")
print(1.0, True)`, env); err != nil {
		t.Fatal(err)
	}
	if want := "1|a|[None, 'b']1.0 True\n"; out.s != want {
		t.Errorf("printed %q, want %q", out.s, want)
	}
}

type stringWriter struct{ s string }

func (w *stringWriter) Write(p []byte) (int, error) { w.s += string(p); return len(p), nil }
