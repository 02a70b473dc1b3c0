package isolation

import (
	"context"
	"testing"

	"github.com/star-agent/star-agent/executors"
)

// A tape crosses into the engine's process: its readings come back in
// the trailer, and a tape made from them makes another child compute the
// same values.
func TestTapeCrossesTheChild(t *testing.T) {
	const code = `import random, time
(random.random(), time.time_ns())`
	run := func(tape *executors.Tape) string {
		e := newIsolatedTest(t, Options{AuthorizedImports: []string{"random", "time"}}, nil)
		res, err := e.Execute(executors.WithTape(context.Background(), tape), code)
		if err != nil || res.Err != nil {
			t.Fatalf("%v %+v", err, res.Err)
		}
		return res.Repr
	}
	rec := executors.NewTape(nil)
	first := run(rec)
	if n := len(rec.Readings()); n != 2 {
		t.Fatalf("readings %v, want 2", rec.Readings())
	}
	again := executors.NewTape(rec.Readings())
	if got := run(again); got != first {
		t.Errorf("replayed in another child: %s, first %s", got, first)
	}
	if got := again.Readings(); len(got) != 2 || got[0] != rec.Readings()[0] {
		t.Errorf("the replaying tape recorded %v", got)
	}
}
