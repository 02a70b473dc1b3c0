package starlarkagent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/star-agent/star-agent/prompts"
	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/pyvalue"
)

// StepKind names the type of a memory step, as it appears in JSON.
type StepKind string

// The kinds of steps a memory holds.
const (
	KindSystemPrompt StepKind = "system_prompt"
	KindTask         StepKind = "task"
	KindPlanning     StepKind = "planning"
	KindAction       StepKind = "action"
	KindFinalAnswer  StepKind = "final_answer"
)

// Step is one entry of an agent's memory: *SystemPromptStep, *TaskStep,
// *PlanningStep, *ActionStep, *SummaryStep or *FinalAnswerStep.
type Step interface {
	// Kind names the step's type.
	Kind() StepKind
	// messages renders the step as the model will read it, with the
	// texts of p (nil: the default prompts).
	messages(p *prompts.Set) []providers.Message
}

// Timing records when something started and ended.
type Timing struct {
	Start time.Time
	End   time.Time
}

// Duration is End minus Start (0 while not ended).
func (t Timing) Duration() time.Duration {
	if t.End.IsZero() {
		return 0
	}
	return t.End.Sub(t.Start)
}

type timingJSON struct {
	Start    time.Time `json:"start_time"`
	End      time.Time `json:"end_time"`
	Duration float64   `json:"duration"` // seconds
}

// MarshalJSON writes start_time, end_time and duration (in seconds).
func (t Timing) MarshalJSON() ([]byte, error) {
	return json.Marshal(timingJSON{t.Start, t.End, t.Duration().Seconds()})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (t *Timing) UnmarshalJSON(b []byte) error {
	var j timingJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	t.Start, t.End = j.Start, j.End
	return nil
}

// SystemPromptStep holds the system prompt the model reads first.
type SystemPromptStep struct {
	SystemPrompt string `json:"system_prompt"`
}

// TaskStep is a task given to the agent; a resumed run adds another.
type TaskStep struct {
	Task           string         `json:"task"`
	AdditionalArgs map[string]any `json:"additional_args,omitempty"`
	// Images go to the model with the task (RunOptions.Images).
	Images []providers.Image `json:"images,omitempty"`
}

// PlanningStep is a plan the model wrote before acting (on the first step
// and every PlanningInterval steps).
type PlanningStep struct {
	ModelInput  []providers.Message `json:"model_input,omitempty"`
	ModelOutput string              `json:"model_output"`
	// Plan is the text the next steps read, framing ModelOutput.
	Plan   string          `json:"plan"`
	Usage  providers.Usage `json:"token_usage"`
	Timing Timing          `json:"timing"`
}

// ActionStep is one turn of the loop: a model call, the code it wrote, and
// what running the code produced.
type ActionStep struct {
	// Number counts the action steps of a run, from 1.
	Number      int                 `json:"step_number"`
	ModelInput  []providers.Message `json:"model_input,omitempty"`
	ModelOutput string              `json:"model_output"`
	// Code is the code block found in ModelOutput ("" on a parse error).
	Code string `json:"code,omitempty"`
	// Observation is what the model reads about the execution: execution
	// logs and the last output.
	Observation string `json:"observation,omitempty"`
	// Output is the value of the code's last expression, or its final answer.
	Output any `json:"output,omitempty"`
	// IsFinal reports that the code called final_answer and the answer
	// passed the checks.
	IsFinal bool `json:"is_final_answer,omitempty"`
	// ModelToolCalls are the native tool calls of a tool-calling model
	// (Options.ActionType), as it wrote them (IDs made unique).
	ModelToolCalls []providers.ToolCall `json:"model_tool_calls,omitempty"`
	// ToolCalls are the tool (and managed agent) calls the code made, or
	// for a tool-calling agent its calls as they ran, in the order of
	// ModelToolCalls.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ObservationImages are the images the step produced (returned by
	// tools, or the code's value), sent to the model with the observation.
	ObservationImages []providers.Image `json:"observation_images,omitempty"`
	// Error is why the step failed, if it did; the model reads it.
	Error *StepError `json:"error,omitempty"`
	// Notice is what the agent adds for the model after the
	// observation: how much of the budget remains, once it runs low.
	Notice string `json:"notice,omitempty"`
	// Usage counts the tokens of this step's model call.
	Usage providers.Usage `json:"token_usage"`
	// ManagedUsage counts the tokens used by managed agents this step called.
	ManagedUsage providers.Usage `json:"managed_token_usage,omitzero"`
	Timing       Timing          `json:"timing"`
	// Imports are the modules the code imported.
	Imports []string `json:"imports,omitempty"`
	// Engine names what ran the code.
	Engine string `json:"engine,omitempty"`
	// Replay is what a replay of the step needs (RunOptions.Record).
	Replay *StepRecord `json:"replay,omitempty"`
}

// FinalAnswerStep ends a run with its answer.
type FinalAnswerStep struct {
	Output any `json:"output"`
	// FromMemory reports that the answer was written from memory by one
	// last model call after the step budget ran out.
	FromMemory bool            `json:"from_memory,omitempty"`
	Usage      providers.Usage `json:"token_usage,omitzero"`
}

// ToolCall records one call of a tool by the code, or by a tool-calling
// model.
type ToolCall struct {
	// ID is the model's ID of a native tool call ("" for a call by code).
	ID        string         `json:"id,omitempty"`
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
	Result    any            `json:"result,omitempty"`
	Error     string         `json:"error,omitempty"`
	Duration  time.Duration  `json:"duration_ns"`
	// Approval is the decision on a call that needed approval.
	Approval *Approval `json:"approval,omitempty"`
}

// ErrorKind classifies the error of a step.
type ErrorKind string

// The kinds of step errors.
const (
	// ErrorParse: the model's output held no code block.
	ErrorParse ErrorKind = "parse"
	// ErrorExecution: the code raised an exception.
	ErrorExecution ErrorKind = "execution"
	// ErrorFinalAnswerCheck: a final-answer check rejected the answer.
	ErrorFinalAnswerCheck ErrorKind = "final_answer_check"
	// ErrorModel: the model call failed; the run ends.
	ErrorModel ErrorKind = "model"
	// ErrorExecutor: the executor broke; the run ends.
	ErrorExecutor ErrorKind = "executor"
	// ErrorInterrupted: the run's context was cancelled during the step.
	ErrorInterrupted ErrorKind = "interrupted"
)

// StepError is why a step failed. Message is what the model reads.
type StepError struct {
	Kind ErrorKind `json:"kind"`
	// Type is the Python exception type of an execution error.
	Type    string `json:"type,omitempty"`
	Message string `json:"message"`
	// Line and Source locate an execution error in the code.
	Line   int    `json:"line,omitempty"`
	Source string `json:"source,omitempty"`
	// Hint is for the operator (executors.ExecError.Hint): a change of
	// configuration that would let the code run. It is logged and never
	// rendered into a message to the model.
	Hint string `json:"hint,omitempty"`
}

func (e *StepError) Error() string { return e.Message }

// Kind implements Step.
func (*SystemPromptStep) Kind() StepKind { return KindSystemPrompt }

// Kind implements Step.
func (*TaskStep) Kind() StepKind { return KindTask }

// Kind implements Step.
func (*PlanningStep) Kind() StepKind { return KindPlanning }

// Kind implements Step.
func (*ActionStep) Kind() StepKind { return KindAction }

// Kind implements Step.
func (*FinalAnswerStep) Kind() StepKind { return KindFinalAnswer }

// Memory is what an agent remembers: its system prompt and the steps of its
// runs. It is read by the model as a conversation (see Messages), printed by
// Replay, and saved and restored with encoding/json.
type Memory struct {
	System SystemPromptStep
	Steps  []Step

	// prompts frame the steps in Messages: those of the agent whose
	// memory this is, the defaults for a memory read from JSON.
	prompts *prompts.Set
}

// Messages renders the memory as the conversation the model reads; a
// SummaryStep shows in place of the steps it condenses.
func (m *Memory) Messages() []providers.Message { return m.render(0, 0) }

// ActionSteps returns the action steps, in order.
func (m *Memory) ActionSteps() []*ActionStep {
	var out []*ActionStep
	for _, s := range m.Steps {
		if a, ok := s.(*ActionStep); ok {
			out = append(out, a)
		}
	}
	return out
}

type memoryJSON struct {
	SystemPrompt string            `json:"system_prompt"`
	Steps        []json.RawMessage `json:"steps"`
	Images       imageStore        `json:"images,omitempty"`
}

// MarshalJSON writes the memory with each step tagged by its "type". The
// bytes of images are written once, in "images" by content hash
// ("sha256:<hex>": base64); the steps refer to them by "data_sha256".
func (m *Memory) MarshalJSON() ([]byte, error) {
	images := imageStore{}
	steps, err := marshalSteps(m.Steps, images)
	if err != nil {
		return nil, err
	}
	return marshal(memoryJSON{SystemPrompt: m.System.SystemPrompt, Steps: steps, Images: images})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (m *Memory) UnmarshalJSON(b []byte) error {
	var j memoryJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	steps, err := unmarshalSteps(j.Steps, j.Images)
	if err != nil {
		return err
	}
	m.System.SystemPrompt = j.SystemPrompt
	m.Steps = steps
	return nil
}

func marshalSteps(steps []Step, images imageStore) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, 0, len(steps))
	for _, s := range steps {
		b, err := marshalStep(s)
		if err == nil {
			b, err = images.pack(b)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// marshalStep encodes s with a leading "type" field, its outputs in
// pyvalue.Marshal's form (32.0 stays a float, NaN and tuples survive).
func marshalStep(s Step) (json.RawMessage, error) {
	body, err := marshal(faithfulSteps([]Step{s})[0])
	if err != nil {
		return nil, fmt.Errorf("step %s: %w", s.Kind(), err)
	}
	tag := `{"type":"` + string(s.Kind()) + `"`
	if len(body) > 2 {
		tag += ","
	}
	return append([]byte(tag), body[1:]...), nil
}

func unmarshalSteps(raw []json.RawMessage, images imageStore) ([]Step, error) {
	steps := make([]Step, 0, len(raw))
	for i, r := range raw {
		r, err := images.unpack(r)
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", i, err)
		}
		var head struct {
			Type StepKind `json:"type"`
		}
		if err := json.Unmarshal(r, &head); err != nil {
			return nil, fmt.Errorf("step %d: %w", i, err)
		}
		var s Step
		switch head.Type {
		case KindSystemPrompt:
			s = new(SystemPromptStep)
		case KindTask:
			s = new(TaskStep)
		case KindPlanning:
			s = new(PlanningStep)
		case KindAction:
			s = new(ActionStep)
		case KindFinalAnswer:
			s = new(FinalAnswerStep)
		case KindSummary:
			s = new(SummaryStep)
		default:
			return nil, fmt.Errorf("step %d: unknown type %q", i, head.Type)
		}
		dec := json.NewDecoder(bytes.NewReader(r))
		dec.UseNumber()
		if err := dec.Decode(s); err != nil {
			return nil, fmt.Errorf("step %d (%s): %w", i, head.Type, err)
		}
		fixStepNumbers(s)
		steps = append(steps, s)
	}
	return steps, nil
}

// fixStepNumbers turns the json.Numbers of a decoded step's values into
// int64 or float64, the JSON-shaped types the rest of star-agent uses.
func fixStepNumbers(s Step) {
	switch s := s.(type) {
	case *TaskStep:
		if s.AdditionalArgs != nil {
			s.AdditionalArgs = pyvalue.Numbers(s.AdditionalArgs).(map[string]any)
		}
	case *ActionStep:
		s.Output = decodeValue(s.Output)
		for i := range s.ToolCalls {
			c := &s.ToolCalls[i]
			if c.Arguments != nil {
				c.Arguments = pyvalue.Numbers(c.Arguments).(map[string]any)
			}
			c.Result = pyvalue.Numbers(c.Result)
		}
	case *FinalAnswerStep:
		s.Output = decodeValue(s.Output)
	}
}

// marshal is json.Marshal without HTML escaping: memory is full of code
// and tags ("<code>", "->") that should stay readable.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
