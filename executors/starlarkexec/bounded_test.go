package starlarkexec

// Builtins that cannot be pre-empted, attacked end to end: each attack
// must end with the right error soon after the deadline, and stop there,
// so that the executor keeps its state (an execution that outlives the
// grace after its deadline is abandoned and the state is lost) and the
// next step does not wait for abandoned work.

import (
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
)

// boundedLimits are the limits of these tests: short, so that an attack
// that holds out past its deadline shows as a lost state.
var boundedLimits = executors.Limits{Timeout: 2 * time.Second, MaxMemory: 64 << 20}

func TestBoundedPowWithModulusStopsAtDeadline(t *testing.T) {
	// big.Int.Exp ran for minutes after the TimeoutError; the next step
	// and Close waited for it.
	e := newTestExecutor(t, Options{Limits: boundedLimits})
	run(t, e, "a = 5")
	res := executeWithin(t, e, "pow(3, 2**60000+1, 2**60000+3)", 15*time.Second)
	if res.Err == nil || res.Err.Type != "TimeoutError" {
		t.Fatalf("pow(3, 2**60000+1, 2**60000+3): err = %+v, want TimeoutError", res.Err)
	}
	// The work stopped at the deadline: the executor was not abandoned,
	// its state is intact, and the next step runs at once.
	res = executeWithin(t, e, "print(a + 1)", hangBound)
	if res.Err != nil || res.Stdout != "6\n" {
		t.Errorf("the step after the pow: stdout %q, err %+v; want 6 (the state kept)", res.Stdout, res.Err)
	}
}

func TestBoundedBuiltinsEndToEnd(t *testing.T) {
	for _, c := range []struct {
		name, code string
		errType    string // "" for success
		stdout     string // the output wanted on success
		msg        string // part of the error message wanted
	}{
		// 56 MB of hex under 64 MiB: the 28 MB result does not fit. The
		// old fromhex charged nothing and took seconds (Sscanf per byte).
		{name: "fromhex", code: `b = bytes.fromhex("00" * (28 << 20))`, errType: "MemoryError"},
		{name: "fromhex result", code: `print(len(bytes.fromhex("0a" * (4 << 20))))`, stdout: "4194304\n"},
		{name: "str of a huge int", code: `s = str(10 ** 5000)`, errType: "ValueError", msg: "hex("},
		{name: "print of a huge int", code: `print(-10 ** 4300)`, errType: "ValueError", msg: "Exceeds the limit (4300 digits)"},
		{name: "json of a huge int", code: "import json\ns = json.dumps([10 ** 4300])", errType: "ValueError", msg: "Exceeds the limit (4300 digits)"},
		{name: "f-string of a huge int", code: `s = f"{10 ** 4300}"`, errType: "ValueError", msg: "Exceeds the limit (4300 digits)"},
		{name: "percent d of a huge int", code: `s = "%d" % 10 ** 4300`, errType: "ValueError", msg: "Exceeds the limit (4300 digits)"},
		{name: "str at the limit", code: `print(len(str(10 ** 4299)))`, stdout: "4300\n"},
		{name: "hex of a huge int", code: `print(len(hex(10 ** 5000)))`, stdout: "4155\n"},
		{name: "int from a huge hex string", code: `n = int("f" * 10 ** 7, 16)`, errType: "MemoryError"},
		// math/big's GCD of two 2**22-bit numbers takes minutes.
		{name: "gcd", code: "import math, random\n" +
			"def big():\n    return int.from_bytes(b''.join(random.getrandbits(1 << 20).to_bytes(1 << 17, 'big') for _ in range(4)), 'big')\n" +
			"g = math.gcd(big(), big())", errType: "MemoryError"},
		// getrandbits or-ed each word into the result: quadratic.
		{name: "getrandbits", code: "import random\nprint(random.getrandbits(1 << 20).bit_length() > (1 << 20) - 64)", stdout: "True\n"},
		// big.Int.Sqrt of a 2**22-bit number took seconds, unstoppable.
		{name: "isqrt", code: "import math\nprint(math.isqrt(int('f' * 10 ** 6, 16)).bit_length())", stdout: "2000000\n"},
		{name: "format precision", code: `print(len(format(1e300, ".20000000f")))`, stdout: "20000302\n"},
		{name: "percent precision", code: `print(len("%.20000000e" % -1.5))`, stdout: "20000007\n"},
		// An endless iterator of empty strings: join's list of parts grew
		// without a charge to gigabytes.
		{name: "join of an endless iterator", code: "import itertools\ns = ''.join(itertools.repeat(''))", errType: "MemoryError"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newTestExecutor(t, Options{Limits: boundedLimits})
			run(t, e, "a = 5")
			res := executeWithin(t, e, c.code, 15*time.Second)
			switch {
			case c.errType == "" && res.Err != nil:
				t.Errorf("err = %s: %s, want success", res.Err.Type, res.Err.Message)
			case c.errType == "" && res.Stdout != c.stdout:
				t.Errorf("stdout = %q, want %q", res.Stdout, c.stdout)
			case c.errType != "" && (res.Err == nil || res.Err.Type != c.errType):
				t.Errorf("err = %+v, want %s", res.Err, c.errType)
			case c.errType != "" && !strings.Contains(res.Err.Message, c.msg):
				t.Errorf("message %q does not say %q", res.Err.Message, c.msg)
			}
			res = executeWithin(t, e, "print(a + 1)", hangBound)
			if res.Err != nil || res.Stdout != "6\n" {
				t.Errorf("the next step: stdout %q, err %+v; want 6 (the state kept)", res.Stdout, res.Err)
			}
		})
	}
}

// TestEndlessIteratorsStopAtDeadline: loops inside builtins that consume
// an iterator without a thread of their own (x in it, islice skipping,
// chain skipping empty parts) spun on after their execution was abandoned,
// keeping a core busy for the life of the process. The iterators now stop
// with their execution: the step ends at its deadline with its state kept,
// and no abandoned work is left running (see stopsAtDeadline).
func TestEndlessIteratorsStopAtDeadline(t *testing.T) {
	limits := executors.Limits{Timeout: 300 * time.Millisecond, MaxMemory: 64 << 20}
	for _, code := range []string{
		"import itertools\nx = 1 in itertools.repeat(0)",
		"import itertools\nx = -1 in itertools.count()",
		"import itertools\nx = 3 in itertools.cycle([1, 2])",
		"import itertools\nx = tuple(itertools.islice(itertools.repeat(0), 10**12, None))",
		"import itertools\nx = list(itertools.chain.from_iterable(itertools.repeat('')))",
		"x = -1 in iter(range(10**15))",
		"x = 'b' in iter('a' * 10**6 * 50)",
	} {
		t.Run(code[strings.LastIndexByte(code, '\n')+1:], func(t *testing.T) {
			e := newTestExecutor(t, Options{Limits: limits})
			stopsAtDeadline(t, e, "kept = 41", code)
		})
	}
}

// TestKeptIteratorStopsAtDeadline: an endless iterator made by one step
// and consumed by a builtin of the next stops at the next one's deadline.
func TestKeptIteratorStopsAtDeadline(t *testing.T) {
	e := newTestExecutor(t, Options{Limits: executors.Limits{Timeout: 300 * time.Millisecond, MaxMemory: 64 << 20}})
	stopsAtDeadline(t, e, "import itertools\nr = itertools.repeat(0)\nkept = 41", "x = tuple(itertools.islice(r, 10**12, None))")
}

// stopsAtDeadline runs setup, which binds kept = 41, then code, which
// must end in a TimeoutError at its deadline, and checks that code
// stopped there: no work of it is left running, and the state is kept.
//
// The engine abandons an execution that has not stopped 50 ms after its
// deadline (abandonGrace) and starts afresh, saying so. A loop that
// checks for cancellation stops within that grace when it gets a CPU, but
// on a loaded machine its goroutines may wait longer than that for one
// (at a load of 7 on 2 cores, one attempt in 15 was abandoned, and a
// third of those again): an abandoned attempt is then tried again, after
// its work has ended. A loop that never checks, or checks too seldom, is
// abandoned every time: the endless ones here never end
// (waitAbandonedDone fails), and every attempt of the finite one loses
// the state.
func stopsAtDeadline(t *testing.T, e *Executor, setup, code string) {
	t.Helper()
	const attempts = 10
	for i := 1; ; i++ {
		run(t, e, setup)
		res := executeWithin(t, e, code, 10*time.Second)
		if res.Err == nil || res.Err.Type != "TimeoutError" {
			t.Fatalf("err = %+v, want TimeoutError", res.Err)
		}
		waitAbandonedDone(t, e)
		abandoned := strings.Contains(res.Err.Message, startedAfresh)
		r := run(t, e, "kept + 1")
		if !abandoned {
			if r.Err != nil || r.Repr != "42" {
				t.Errorf("state after the step: %+v %s; want 42", r.Err, r.Repr)
			}
			return
		}
		// The model was told, and the next step says so again.
		if r.Err == nil || r.Err.Type != "NameError" || len(r.Notes) == 0 {
			t.Errorf("after an abandoned step: %+v %s, notes %q; want a NameError and a note", r.Err, r.Repr, r.Notes)
		}
		if i == attempts {
			t.Fatalf("abandoned %d times out of %d: the step does not stop within %s of its deadline (%s)", i, attempts, abandonGrace, res.Err.Message)
		}
		t.Logf("attempt %d abandoned (a loaded machine?): %s", i, res.Err.Message)
	}
}

// waitAbandonedDone fails the test if work an execution of e abandoned
// still runs 30 s later: a bound only work that never stops exceeds.
func waitAbandonedDone(t *testing.T, e *Executor) {
	t.Helper()
	for wait := time.Now(); e.abandoned.Load() != 0; time.Sleep(10 * time.Millisecond) {
		if time.Since(wait) > 30*time.Second {
			t.Fatal("the loop still runs 30 s after its execution was abandoned")
		}
	}
}
