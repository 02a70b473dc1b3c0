package starlarkagent

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/pyvalue"
)

// A run resumed by replay (star-agent serve, after the server running it
// died) runs the code of its recorded steps again to rebuild the
// interpreter's state. For the code to compute the same values, each
// action step can keep a StepRecord (RunOptions.Record): what the code
// read from the outside world in the Starlark engine (clocks, the seeds
// of random generators) and the results of its tool calls. Given back
// (RunOptions.Replay), the readings are answered from the record, and a
// tool call that matches the recorded one at its place (same tool, same
// arguments) gets the recorded result without the tool being called. A
// call the record lacks (it failed, it was in flight, the code now does
// something else) is made for real, with the same CallID as before.

// StepRecord is what a replay of an action step needs.
type StepRecord struct {
	// Readings are what the code read through the engine's
	// executors.Tape, in order.
	Readings []int64 `json:"readings,omitempty"`
	// Calls are the step's tool calls in the order of their CallID.
	Calls []RecordedCall `json:"calls,omitempty"`
}

// RecordedCall is one tool call of a StepRecord. Arguments and Result
// are in pyvalue's JSON form, which keeps Python's types; a call that
// failed, or whose values that form cannot carry, has no Result and is
// made again on replay.
type RecordedCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
}

// stepRecorder collects the record of one step and answers its replay.
type stepRecorder struct {
	tape   *executors.Tape
	replay *StepRecord // nil: nothing to replay
	mu     sync.Mutex
	calls  []RecordedCall
}

func newStepRecorder(replay *StepRecord) *stepRecorder {
	var readings []int64
	if replay != nil {
		readings = replay.Readings
	}
	return &stepRecorder{tape: executors.NewTape(readings), replay: replay}
}

// replayed returns the recorded result of call number n (from 1) of the
// step, if the record has one for this tool and these arguments.
func (s *stepRecorder) replayed(n int, name string, args map[string]any) (any, bool) {
	if s == nil || s.replay == nil || n < 1 || n > len(s.replay.Calls) {
		return nil, false
	}
	c := s.replay.Calls[n-1]
	if c.Name != name || c.Result == nil {
		return nil, false
	}
	a, err := pyvalue.Marshal(args)
	if err != nil || !bytes.Equal(a, c.Arguments) {
		return nil, false
	}
	v, err := pyvalue.Unmarshal(c.Result)
	if err != nil {
		return nil, false
	}
	return v, true
}

// record keeps call number n (from 1) of the step.
func (s *stepRecorder) record(n int, name string, args map[string]any, result any, failed bool) {
	if s == nil || n < 1 {
		return
	}
	c := RecordedCall{Name: name}
	if a, err := pyvalue.Marshal(args); err == nil {
		c.Arguments = a
		if !failed {
			if r, err := pyvalue.Marshal(result); err == nil {
				c.Result = r
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.calls) < n {
		s.calls = append(s.calls, RecordedCall{})
	}
	s.calls[n-1] = c
}

// done returns the step's record.
func (s *stepRecorder) done() *StepRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := &StepRecord{Readings: s.tape.Readings(), Calls: s.calls}
	if len(rec.Readings) == 0 && len(rec.Calls) == 0 {
		return nil
	}
	return rec
}

type recorderKey struct{}

func recorderFrom(ctx context.Context) *stepRecorder {
	s, _ := ctx.Value(recorderKey{}).(*stepRecorder)
	return s
}
