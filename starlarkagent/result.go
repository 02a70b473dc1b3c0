package starlarkagent

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/pyvalue"
)

// RunOptions tune one run. The zero value starts a fresh run.
type RunOptions struct {
	// RunID names the run in the idempotency keys its tools get (see
	// CallIDFrom): a server that resumes a run elsewhere passes the same
	// id, so that a tool call made again has the same key.
	RunID string
	// AdditionalArgs are handed to the code as global variables, and listed
	// to the model after the task.
	AdditionalArgs map[string]any
	// Resume keeps the memory of earlier runs, so that the model sees them
	// and the new task continues the conversation. Without it the memory
	// starts again from the system prompt. (The executor's variables are
	// kept either way, as in smolagents.)
	Resume bool
	// MaxSteps, when positive, overrides Options.MaxSteps for this run.
	MaxSteps int
	// Images go to the model with the task (PNG, JPEG, GIF or WebP; a
	// missing MIMEType is detected from the bytes).
	Images []providers.Image
	// Approver, when set, decides this run's calls that need approval
	// instead of Options.Approver.
	Approver Approver
	// Budget, when set, replaces Options.Budget for this run.
	Budget *Budget
	// Audit, when set, receives every tool call of the run as it
	// returns, those of managed agents included (see AuditRecord).
	Audit func(AuditRecord)
	// Record has each action step keep what an exact replay of it needs
	// (ActionStep.Replay): the Starlark engine's clock and random
	// readings, and its tool calls' results.
	Record bool
	// Replay are the records of the first action steps of an earlier
	// attempt of this run (ActionStep.Replay, step 1 first; nil where a
	// step has none), whose code is run again: readings are answered from
	// them, and tool calls that match a recorded one are answered with
	// its result instead of being made (see StepRecord).
	Replay []*StepRecord
}

// RunState says how a run ended.
type RunState string

// The states a run ends in.
const (
	// StateSuccess: the code called final_answer and every check passed.
	StateSuccess RunState = "success"
	// StateMaxSteps: the step budget ran out; Output was written from
	// memory by one last model call, or when that call failed is
	// "Error in generating final LLM output:" and its error.
	StateMaxSteps RunState = "max_steps"
	// StateBudgetExceeded (budget.go): the budget ran out.

	// StateError: the run failed (model error, broken executor,
	// cancellation); Err says why.
	StateError RunState = "error"
)

// ErrInterrupted is matched (with errors.Is) by the error of a run whose
// context was cancelled, or whose stream the consumer stopped reading.
var ErrInterrupted = errors.New("run interrupted")

// RunResult is the outcome of a run.
type RunResult struct {
	// Output is the final answer: the value passed to final_answer (a
	// JSON-shaped Go value), or the text written from memory at max steps.
	Output any
	State  RunState
	// Steps are the memory steps of this run, from its task step on.
	Steps []Step
	// TokenUsage sums the tokens of every model call of the run, those of
	// managed agents included.
	TokenUsage providers.Usage
	Timing     Timing
	// Err is why the run failed when State is StateError.
	Err error
}

type runResultJSON struct {
	Output     any               `json:"output"`
	Repr       string            `json:"repr,omitempty"`
	State      RunState          `json:"state"`
	Steps      []json.RawMessage `json:"steps"`
	TokenUsage providers.Usage   `json:"token_usage"`
	Timing     Timing            `json:"timing"`
	Error      string            `json:"error,omitempty"`
	Images     imageStore        `json:"images,omitempty"`
}

// MarshalJSON writes output, repr (Repr), state, steps (each tagged with its "type"),
// token_usage {input_tokens, output_tokens}, timing, error, and the
// images of the steps by content hash (see Memory.MarshalJSON). The output
// and the steps' outputs are Python values in pyvalue.Marshal's form
// (docs/json.md): 32.0 stays a float, NaN, tuples, sets and bytes have
// their tags.
func (r *RunResult) MarshalJSON() ([]byte, error) {
	images := imageStore{}
	steps, err := marshalSteps(faithfulSteps(r.Steps), images)
	if err != nil {
		return nil, err
	}
	j := runResultJSON{Output: pyvalue.JSON{V: r.Output}, Repr: r.Repr(), State: r.State, Steps: steps, TokenUsage: r.TokenUsage, Timing: r.Timing, Images: images}
	if r.Err != nil {
		j.Error = r.Err.Error()
	}
	return marshal(j)
}

// Repr is Python's repr of Output, as CPython would print it ("" when
// there is no output).
func (r *RunResult) Repr() string {
	if r.Output == nil {
		return ""
	}
	return pyvalue.Repr(r.Output)
}

// UnmarshalJSON reads what MarshalJSON writes; Err keeps only its text.
func (r *RunResult) UnmarshalJSON(b []byte) error {
	var j runResultJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&j); err != nil {
		return err
	}
	j.Output = decodeValue(j.Output)
	steps, err := unmarshalSteps(j.Steps, j.Images)
	if err != nil {
		return err
	}
	for _, s := range steps {
		switch s := s.(type) {
		case *ActionStep:
			s.Output = decodeValue(s.Output)
		case *FinalAnswerStep:
			s.Output = decodeValue(s.Output)
		}
	}
	*r = RunResult{Output: j.Output, State: j.State, Steps: steps, TokenUsage: j.TokenUsage, Timing: j.Timing}
	if j.Error != "" {
		r.Err = errors.New(j.Error)
	}
	return nil
}

// faithfulSteps returns steps with the outputs of action and final answer
// steps wrapped so that they are written in pyvalue.Marshal's form: a NaN
// answer does not make the result unwritable, and a tuple stays one.
func faithfulSteps(steps []Step) []Step {
	out := make([]Step, len(steps))
	for i, s := range steps {
		switch s := s.(type) {
		case *ActionStep:
			if s.Output != nil {
				c := *s
				c.Output = pyvalue.JSON{V: s.Output}
				s = &c
			}
			out[i] = s
		case *FinalAnswerStep:
			c := *s
			c.Output = pyvalue.JSON{V: s.Output}
			out[i] = &c
		default:
			out[i] = s
		}
	}
	return out
}

// decodeValue reads back a value written in pyvalue.Marshal's form (its
// tags); JSON that is not, such as a map with a "$" key written by an
// older version, is kept as it was read.
func decodeValue(v any) any {
	if d, err := pyvalue.Decode(v); err == nil {
		return d
	}
	return pyvalue.Numbers(v)
}
