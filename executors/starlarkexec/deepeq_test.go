package starlarkexec

import (
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/executors"
)

// Comparisons, hashing and printing of values that share their parts,
// attacked end to end: the loops the VM and the builtins run on the
// code's behalf end at the deadline with the state kept (see
// stopsAtDeadline), and self-sharing values compare as CPython answers.

// pairExplosionSetup binds x and y: equal tuples 30 deep with 256 values
// at each level that share their parts in different patterns, so that a
// comparison meets pairs of parts that grow as 2**level (no memo holds
// them all: it would take 2**30 steps), and d, s, lx, ly holding them.
const pairExplosionSetup = `W = 256
xs = [0] * W
ys = [0] * W
for _ in range(30):
    xs = [(xs[2*i % W], xs[(2*i+1) % W]) for i in range(W)]
    ys = [(ys[3*i % W], ys[(3*i+1) % W]) for i in range(W)]
x, y = xs[0], ys[0]
d = {x: 1}
s = {x}
lx = [x]
ly = [y]
kept = 41`

// TestDeepComparisonsStopAtDeadline: each loop kind that compares deep
// values on the code's behalf. Before, every one but the first few was
// abandoned at the deadline and spun on (2**30 steps), or failed at once
// with a RecursionError that CPython does not raise (CompareLimit 10).
func TestDeepComparisonsStopAtDeadline(t *testing.T) {
	limits := executors.Limits{Timeout: 500 * time.Millisecond, MaxMemory: 256 << 20}
	for _, code := range []string{
		"r = x == y",
		"r = x != y",
		"r = lx == ly",
		"r = {1: x} == {1: y}",
		"r = x < y",
		"r = [[x]] <= [[y]]",
		"r = x in [y]",
		"r = x in (1, y)",
		"r = x in {y: 1}",
		"r = x in {y}",
		"r = d[y]",
		"d[y] = 2",
		"r = d.get(y)",
		"r = {x: 1, y: 2}",
		"r = [x].index(y)",
		"r = [x].count(y)",
		"ly.remove(x)",
		"r = sorted([x, y])",
		"r = max(x, y)",
		"r = set([x, y])",
		"s.add(y)",
		"r = frozenset([x, y])",
		"s.remove(y)",
		"s.discard(y)",
		"r = d.pop(y)",
		"del d[y]",
	} {
		t.Run(code, func(t *testing.T) {
			e := newTestExecutor(t, Options{Limits: limits})
			stopsAtDeadline(t, e, pairExplosionSetup, code)
		})
	}
}

// TestSelfSharingValuesCompare: values that share their parts sixty
// levels deep (2**60 leaves) compare, hash and look up in linear time
// and answer as CPython would (which takes 2**60 steps for most); the
// step's deadline is far away, Execute's bound (executeWithin) is the
// hang check.
func TestSelfSharingValuesCompare(t *testing.T) {
	e := newTestExecutor(t, Options{Limits: executors.Limits{Timeout: time.Minute}})
	run(t, e, "a = ()\nb = ()\nfor _ in range(60):\n    a = (a, a)\n    b = (b, b)\n"+
		"la = []\nlb = []\nfor _ in range(60):\n    la = [la, la]\n    lb = [lb, lb]\n"+
		"da = {}\ndb = {}\nfor _ in range(60):\n    da = {1: da, 2: da}\n    db = {1: db, 2: db}\n")
	for _, c := range []struct{ code, want string }{
		{"print(a == b, a != b, a < b, a <= b, a > b, a >= b)", "True False False True False True"},
		{"print(la == lb, la != lb, la < lb, la <= lb)", "True False False True"},
		{"print(da == db, da != db)", "True False"},
		{"print([a].index(b), [a, b].count(b), a in [b], a in (b,))", "0 2 True True"},
		{"print(a in {b: 1}, {a: 1}[b], len({a, b}), len(set([a, b])))", "True 1 1 1"},
		{"print(sorted([a, b]) == [a, b], max(a, b) is a, hash(a) == hash(b))", "True True True"},
		{"print({1: a} == {1: b}, [la] == [lb], la in [lb])", "True True True"},
		{"x = lb\nfor _ in range(60):\n    x = x[0]\nx.append(1)\nprint(la == lb, la < lb, lb > la)", "False True True"},
	} {
		res := executeWithin(t, e, c.code, time.Minute)
		if res.Err != nil || strings.TrimSpace(res.Stdout) != c.want {
			t.Errorf("%s: got %q, %+v; want %s", c.code, res.Stdout, res.Err, c.want)
		}
	}
}

// TestKeptIteratorInStopsAtDeadline: x in it, for an endless iterator
// kept from an earlier step with no builtin in between, spun on after its
// execution was abandoned (the iterator paced itself on its maker's
// ended execution). The interpreter now hands it its thread.
func TestKeptIteratorInStopsAtDeadline(t *testing.T) {
	e := newTestExecutor(t, Options{Limits: executors.Limits{Timeout: 300 * time.Millisecond, MaxMemory: 64 << 20}})
	stopsAtDeadline(t, e, "import itertools\nr = itertools.count()\nkept = 41", "x = -1 in r")
}

// TestLongBuiltinLoopsStopAtDeadline: other loops run on the code's
// behalf, which already ended at the deadline before this change and must
// go on doing so: the endless iterators Python itself never ends on, a
// sort whose __lt__ is slow. (repr of a value that shares its parts also
// ends at the deadline, but its buffer, uncharged, may leave the next
// step over a 64 MiB limit: not tested here.)
func TestLongBuiltinLoopsStopAtDeadline(t *testing.T) {
	limits := executors.Limits{Timeout: 300 * time.Millisecond, MaxMemory: 64 << 20}
	for _, c := range []struct{ setup, code string }{
		{"import itertools\nkept = 41", "x = 5.5 in itertools.count()"},
		{"import itertools\nkept = 41", "x = max(itertools.count())"},
		{"import itertools\nkept = 41", "x = sum(itertools.count())"},
		{"import itertools\nkept = 41", "x = ''.join(str(i) for i in itertools.count())"},
		{"class C:\n    def __init__(self, v):\n        self.v = v\n    def __lt__(self, o):\n        for i in range(1000):\n            pass\n        return self.v < o.v\ncs = [C(i) for i in range(20000)]\nkept = 41", "x = sorted(cs)"},
	} {
		t.Run(c.code, func(t *testing.T) {
			e := newTestExecutor(t, Options{Limits: limits})
			stopsAtDeadline(t, e, c.setup, c.code)
		})
	}
}
