package core

import (
	"time"

	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/vm/starlark"
)

// Reading returns what live reads from the outside world, through the
// thread's contract.Reader when the executor gave it one (which records
// the reading, or answers it from a record).
func Reading(th *starlark.Thread, live func() int64) int64 {
	if th != nil {
		if r, ok := th.Local(contract.ReaderKey).(contract.Reader); ok {
			return r.Read(live)
		}
	}
	return live()
}

// Now is the wall clock, read through Reading (in nanoseconds: a replayed
// reading has no monotonic part).
func Now(th *starlark.Thread) time.Time {
	return time.Unix(0, Reading(th, func() int64 { return time.Now().UnixNano() }))
}

// Entropy is a seed for a generator made without one, read through
// Reading.
func Entropy(th *starlark.Thread) int64 {
	return Reading(th, func() int64 { return time.Now().UnixNano() })
}
