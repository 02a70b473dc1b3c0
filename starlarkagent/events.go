package starlarkagent

// Event is something that happened during a streamed run: *ModelDelta,
// *CodeAction, *ToolCallEvent, *Observation, *StepEnd, *FinalAnswer or
// *RunEnd. RunEnd is always the last event.
type Event interface{ isEvent() }

// ModelDelta is a piece of the model's answer as it streams in (only with
// a providers.StreamingModel). Step is the action step number, 0 for a
// planning or final-answer call made outside a step.
type ModelDelta struct {
	Step    int
	Content string
}

// CodeAction is the code of a step, about to run.
type CodeAction struct {
	Step int
	Code string
}

// ToolCallEvent reports a tool call the code made, as the call returns and
// while the code still runs (so before the step's Observation).
type ToolCallEvent struct {
	Step int
	Call ToolCall
}

// Observation is what the execution of a step produced. Err is set when
// the step failed; Text then holds what the code printed before failing.
type Observation struct {
	Step int
	Text string
	Err  *StepError
}

// StepEnd carries a step once it is complete and in memory.
type StepEnd struct {
	Step Step
}

// FinalAnswer carries the run's answer.
type FinalAnswer struct {
	Output any
}

// RunEnd carries the run's result; it is the last event of a stream.
type RunEnd struct {
	Result *RunResult
}

func (*ModelDelta) isEvent()    {}
func (*CodeAction) isEvent()    {}
func (*ToolCallEvent) isEvent() {}
func (*Observation) isEvent()   {}
func (*StepEnd) isEvent()       {}
func (*FinalAnswer) isEvent()   {}
func (*RunEnd) isEvent()        {}
