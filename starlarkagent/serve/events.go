package serve

import (
	"encoding/json"
	"time"

	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/pyvalue"
	"github.com/star-agent/star-agent/starlarkagent"
)

// State is the state of a run (see API.md).
type State string

// The states of a run.
const (
	StateQueued           State = "queued"
	StateRunning          State = "running"
	StateAwaitingApproval State = "awaiting_approval"
	StateSuccess          State = "success"
	StateMaxSteps         State = "max_steps"
	StateError            State = "error"
	// StateBudgetExceeded: the run spent its budget (max_total_tokens,
	// max_cost, or the server\'s) before it ended.
	StateBudgetExceeded State = "budget_exceeded"
	StateCancelled      State = "cancelled"
	StateInterrupted    State = "interrupted"
)

// Final reports whether a run in state s has ended.
func (s State) Final() bool {
	return s != StateQueued && s != StateRunning && s != StateAwaitingApproval
}

// storedEvent is one event of a run as it is stored and streamed.
type storedEvent struct {
	ID   int64
	Type string
	Data json.RawMessage
}

// The data of each event type (API.md, "Event types").
type (
	stateEvent struct {
		State State     `json:"state"`
		Time  time.Time `json:"time"`
		// Attempt and Replayed are set when a server resumes a run
		// another left: its attempt, and how many action steps it
		// replayed from the record.
		Attempt  int64 `json:"attempt,omitempty"`
		Replayed int   `json:"replayed,omitempty"`
	}
	taskEvent struct {
		Task           string         `json:"task"`
		AdditionalArgs map[string]any `json:"additional_args,omitempty"`
	}
	deltaEvent struct {
		Step    int    `json:"step"`
		Content string `json:"content"`
	}
	codeEvent struct {
		Step int    `json:"step"`
		Code string `json:"code"`
	}
	// auditEvent is one tool call at any depth (managed agents'
	// included): the run's audit trail.
	auditEvent struct {
		Tenant    string                  `json:"tenant,omitempty"`
		Agent     string                  `json:"agent"`
		Step      int                     `json:"step"`
		Tool      string                  `json:"tool"`
		Arguments any                     `json:"arguments"`
		Outcome   string                  `json:"outcome"`
		Error     string                  `json:"error,omitempty"`
		Duration  float64                 `json:"duration"`
		Approval  *starlarkagent.Approval `json:"approval,omitempty"`
		Time      time.Time               `json:"time"`
	}
	toolCallEvent struct {
		Step      int            `json:"step"`
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
		Result    any            `json:"result,omitempty"`
		Error     string         `json:"error,omitempty"`
		Duration  float64        `json:"duration"`
		// Approval is the decision on a call that needed one.
		Approval *starlarkagent.Approval `json:"approval,omitempty"`
	}
	observationEvent struct {
		Step int    `json:"step"`
		Text string `json:"text"`
	}
	errorEvent struct {
		Step    int                     `json:"step"`
		Kind    starlarkagent.ErrorKind `json:"kind"`
		Type    string                  `json:"type,omitempty"`
		Message string                  `json:"message"`
		Line    int                     `json:"line,omitempty"`
		Source  string                  `json:"source,omitempty"`
	}
	// Outputs are written in pyvalue.Marshal's form (docs/json.md), as
	// the run's record is: a NaN or a tuple answer is an event too. That
	// form is for programs; Repr is the answer as Python prints it (as
	// RunResult.Repr, absent when the output is None), for people.
	finalAnswerEvent struct {
		Output pyvalue.JSON `json:"output"`
		Repr   string       `json:"repr,omitempty"`
	}
	endEvent struct {
		State      State           `json:"state"`
		Output     pyvalue.JSON    `json:"output"`
		Repr       string          `json:"repr,omitempty"`
		Error      string          `json:"error,omitempty"`
		TokenUsage providers.Usage `json:"token_usage"`
		Timing     timingJSON      `json:"timing"`
		// Steps counts the action steps, as the CLI does: not the task
		// step, planning or the final answer written from memory.
		Steps int `json:"steps"`
	}
)

// reprOf is Python's repr of an answer, "" for None, as
// RunResult.Repr.
func reprOf(v any) string {
	if v == nil {
		return ""
	}
	return pyvalue.Repr(v)
}

// actionSteps counts the action steps among steps.
func actionSteps(steps []starlarkagent.Step) int {
	n := 0
	for _, s := range steps {
		if _, ok := s.(*starlarkagent.ActionStep); ok {
			n++
		}
	}
	return n
}

// timingJSON is starlarkagent.Timing's JSON, for timings the server makes.
type timingJSON struct {
	Start    time.Time `json:"start_time"`
	End      time.Time `json:"end_time"`
	Duration float64   `json:"duration"`
}

func timingOf(start, end time.Time) timingJSON {
	return timingJSON{Start: start.UTC(), End: end.UTC(), Duration: end.Sub(start).Seconds()}
}

// stepJSON encodes a step as the agent's JSON does, tagged with its type,
// without the model inputs (they repeat the whole conversation).
func stepJSON(s starlarkagent.Step) (json.RawMessage, error) {
	steps, err := resultSteps(&starlarkagent.RunResult{Steps: []starlarkagent.Step{lean(s)}})
	if err != nil {
		return nil, err
	}
	return steps[0], nil
}

// resultSteps encodes the steps of res through RunResult's own JSON,
// which tags each with its type (the tagging is not exported by itself).
func resultSteps(res *starlarkagent.RunResult) ([]json.RawMessage, error) {
	b, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	var j struct {
		Steps []json.RawMessage `json:"steps"`
	}
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, err
	}
	return j.Steps, nil
}

// storedStepJSON is stepJSON with what a replay of the step needs
// (ActionStep.Replay), which only the store keeps.
func storedStepJSON(s starlarkagent.Step) (json.RawMessage, error) {
	a, ok := s.(*starlarkagent.ActionStep)
	if !ok || a.Replay == nil {
		return stepJSON(s)
	}
	c := *a
	c.ModelInput = nil
	steps, err := resultSteps(&starlarkagent.RunResult{Steps: []starlarkagent.Step{&c}})
	if err != nil {
		return nil, err
	}
	return steps[0], nil
}

// lean returns s without its model inputs and replay record, copied
// rather than changed: the agent's memory shares its steps.
func lean(s starlarkagent.Step) starlarkagent.Step {
	switch s := s.(type) {
	case *starlarkagent.ActionStep:
		c := *s
		c.ModelInput, c.Replay = nil, nil
		return &c
	case *starlarkagent.PlanningStep:
		c := *s
		c.ModelInput = nil
		return &c
	case *starlarkagent.SummaryStep:
		c := *s
		c.ModelInput = nil
		return &c
	}
	return s
}

// leanResult is res with lean steps, for storing and answering.
func leanResult(res *starlarkagent.RunResult) *starlarkagent.RunResult {
	c := *res
	c.Steps = make([]starlarkagent.Step, len(res.Steps))
	for i, s := range res.Steps {
		c.Steps[i] = lean(s)
	}
	return &c
}
