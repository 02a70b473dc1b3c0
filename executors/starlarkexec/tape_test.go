package starlarkexec

import (
	"context"
	"testing"

	"github.com/star-agent/star-agent/executors"
)

// The readings of an execution (random seeds, clocks) recorded on a tape
// are answered again by a tape made from them: a fresh executor running
// the same code computes the same values; without a tape it does not.
func TestTapeReplaysReadings(t *testing.T) {
	const code = `import random, time, datetime
r = random.random()
g = random.Random().randint(0, 1 << 60)
t = time.time()
p = time.perf_counter()
n = datetime.datetime.now().isoformat()
(r, g, t, p, n)`
	run := func(tape *executors.Tape) string {
		e := newTestExecutor(t, Options{AuthorizedImports: []string{"random", "time", "datetime"}})
		ctx := context.Background()
		if tape != nil {
			ctx = executors.WithTape(ctx, tape)
		}
		res, err := e.Execute(ctx, code)
		if err != nil || res.Err != nil {
			t.Fatalf("%v %+v", err, res.Err)
		}
		return res.Repr
	}
	rec := executors.NewTape(nil)
	first := run(rec)
	readings := rec.Readings()
	if len(readings) != 5 {
		t.Fatalf("readings %v, want 5 (two seeds, three clocks)", readings)
	}
	if again := run(executors.NewTape(readings)); again != first {
		t.Errorf("replayed: %s\nfirst:    %s", again, first)
	}
	if live := run(nil); live == first {
		t.Errorf("without a tape the values are the same: %s", live)
	}
}
