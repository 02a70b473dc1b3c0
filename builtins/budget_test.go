package builtins

import (
	"testing"

	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/vm/starlark"
)

// TestPressureMeasures: grants that undercount what an execution holds
// must not let it pass its limit. Once an eighth of the limit has been
// granted and the engine says to (Pressure), the next grant measures, and
// a measurement over the limit refuses it, though Live alone would allow
// it.
func TestPressureMeasures(t *testing.T) {
	const limit = 1 << 20
	measured := 0
	b := &core.Budget{
		Limit:    limit,
		Measure:  func() int64 { measured++; return limit - 1000 },
		Pressure: func() bool { return true },
	}
	th := &starlark.Thread{}
	core.SetBudget(th, b)
	var err error
	granted := 0
	for granted < limit/2 && err == nil {
		err = core.Alloc(th, 4096)
		granted += 4096
	}
	if err == nil || measured == 0 {
		t.Fatalf("granted %d bytes of a %d-byte limit whose measurement says it is full: err %v, %d measurements", granted, limit, err, measured)
	}
	if granted > limit/8+2*4096 {
		t.Errorf("refused only after %d bytes granted; Pressure is due after an eighth of the limit", granted)
	}
	// Without pressure, Live alone decides until it reaches the limit.
	b2 := &core.Budget{Limit: limit, Measure: func() int64 { return limit - 1000 }}
	th2 := &starlark.Thread{}
	core.SetBudget(th2, b2)
	if err := core.Alloc(th2, limit/4); err != nil {
		t.Fatalf("no pressure: %v", err)
	}
}
