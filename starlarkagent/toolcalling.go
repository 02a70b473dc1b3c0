package starlarkagent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/star-agent/star-agent/prompts"
	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/pyvalue"
	"github.com/star-agent/star-agent/tool"
)

// The tool-calling agent (Options.ActionType ActionToolCalling) runs the
// same loop as the code agent, with one difference in the action step:
// the model answers with native tool calls instead of a code block. The
// calls of one answer run concurrently, each with the step's context, and
// each result goes back to the model as a RoleTool message with the call's
// ID; a failed call's answer is its error, marked (prompts.ToolError), so
// the model can correct it. final_answer(answer) is a tool like the others
// and ends the run when its answer passes the checks.

// DefaultMaxToolThreads is the number of tool calls of one step that run
// at once when Options.MaxToolThreads is 0.
const DefaultMaxToolThreads = 8

// MaxToolCallsPerStep is the number of calls of one answer that run; the
// model is told the others did not.
const MaxToolCallsPerStep = 64

// toolStops end a tool-calling model's text, as in smolagents.
var toolStops = []string{"Observation:", "Calling tools:"}

// setupToolCalling finishes New for a tool-calling agent: tools holds the
// instrumented tools and managed agents, team the managed agents.
func (a *Agent) setupToolCalling(tools []tool.Tool, team []prompts.Agent) error {
	a.exec = a.opts.Executor // closed with the agent, never used
	a.callable = make(map[string]tool.Tool, len(tools))
	for _, t := range tools {
		spec := t.Spec()
		a.callable[spec.Name] = t
		a.toolDefs = append(a.toolDefs, toolDefinition(spec))
	}
	a.toolDefs = append(a.toolDefs, toolDefinition(finalAnswerSpec))
	system, err := a.prompts.Render(prompts.ToolCallingSystemPrompt, prompts.Data{
		Tools:         a.toolSpec,
		ManagedAgents: team,
		Instructions:  a.opts.Instructions,
	})
	if err != nil {
		return fmt.Errorf("starlarkagent: %w", err)
	}
	a.system = system
	a.memory = Memory{System: SystemPromptStep{SystemPrompt: system}, prompts: a.prompts}
	return nil
}

// ToolDefinition returns the definition a model gets of a tool for native
// tool calls: its name, description, and a JSON object schema of its
// inputs (required unless Nullable; Input.Schema refines each).
func ToolDefinition(spec tool.Spec) providers.ToolDefinition { return toolDefinition(spec) }

func toolDefinition(spec tool.Spec) providers.ToolDefinition {
	props := make(map[string]any, len(spec.Inputs))
	required := []string{}
	for _, in := range spec.Inputs {
		p := make(map[string]any, len(in.Schema)+2)
		for k, v := range in.Schema {
			p[k] = v
		}
		if _, ok := p["type"]; !ok {
			switch in.Type {
			case tool.Any, "":
			case tool.Image, tool.Audio:
				p["type"] = "string"
			default:
				p["type"] = string(in.Type)
			}
		}
		if in.Description != "" {
			p["description"] = in.Description
		}
		props[in.Name] = p
		if !in.Nullable {
			required = append(required, in.Name)
		}
	}
	return providers.ToolDefinition{
		Name:        spec.Name,
		Description: spec.Description,
		Parameters:  map[string]any{"type": "object", "properties": props, "required": required},
	}
}

// toolAction runs one action step of a tool-calling agent.
func (r *runner) toolAction(n int) (st *ActionStep, err error) {
	a := r.a
	msgs, err := r.prompt(n)
	if err != nil {
		return nil, err
	}
	st = &ActionStep{Number: n, Timing: Timing{Start: time.Now()}}
	st.ModelInput = msgs
	defer func() {
		st.Timing.End = time.Now()
		st.Notice = r.spend.notice()
		a.appendStep(st)
		r.logStep(st)
		r.endStep(st)
	}()

	msg, err := r.generateMessage(st.ModelInput, providers.GenerateOptions{
		StopSequences: toolStops, Tools: a.toolDefs, ToolChoice: "required",
	}, n)
	st.Usage = *msg.Usage
	if err != nil {
		if r.ctx.Err() != nil {
			st.Error = &StepError{Kind: ErrorInterrupted, Message: "the run was interrupted during the model call"}
			return st, r.interrupted()
		}
		st.Error = &StepError{Kind: ErrorModel, Message: err.Error()}
		return st, fmt.Errorf("starlarkagent: step %d: model: %w", n, err)
	}
	st.ModelOutput = msg.Content
	if len(msg.ToolCalls) == 0 {
		st.Error = &StepError{Kind: ErrorParse, Message: promptText(a.prompts, prompts.NoToolCall, prompts.Data{})}
		r.emit(&Observation{Step: n, Err: st.Error})
		return st, nil
	}
	calls := uniqueIDs(n, msg.ToolCalls)
	st.ModelToolCalls = objectArguments(calls)
	st.ToolCalls, st.ManagedUsage, st.Replay = r.callTools(n, calls)
	r.usage = r.usage.Add(st.ManagedUsage)
	for _, c := range st.ToolCalls {
		st.ObservationImages = collectImages(st.ObservationImages, c.Result)
	}
	st.Observation = callsObservation(a.prompts, st.ToolCalls)
	if r.ctx.Err() != nil {
		st.Error = &StepError{Kind: ErrorInterrupted, Message: "the run was interrupted during the tool calls"}
		return st, r.interrupted()
	}
	for _, c := range st.ToolCalls {
		if c.Name != finalAnswerSpec.Name || c.Error != "" {
			continue
		}
		st.Output = c.Result
		if msg := r.check(c.Result); msg != "" {
			st.Error = &StepError{Kind: ErrorFinalAnswerCheck, Message: msg}
		} else {
			st.IsFinal = true
		}
		break
	}
	r.emit(&Observation{Step: n, Text: st.Observation, Err: st.Error})
	return st, nil
}

// objectArguments returns calls with arguments that are not a JSON
// object replaced by {}: providers must send an object back, and the
// call's error quotes the text the model wrote.
func objectArguments(calls []providers.ToolCall) []providers.ToolCall {
	calls = slices.Clone(calls)
	for i := range calls {
		if _, err := decodeArguments(calls[i].Arguments); err != nil {
			calls[i].Arguments = json.RawMessage("{}")
		}
	}
	return calls
}

// uniqueIDs gives every call an ID of its own: servers and recordings may
// leave them empty or repeat them, and the answers are paired by ID.
func uniqueIDs(n int, calls []providers.ToolCall) []providers.ToolCall {
	calls = slices.Clone(calls)
	seen := map[string]bool{}
	for i := range calls {
		if calls[i].ID == "" || seen[calls[i].ID] {
			calls[i].ID = fmt.Sprintf("call_%d_%d", n, i)
		}
		seen[calls[i].ID] = true
	}
	return calls
}

// callTools runs the calls concurrently and returns their records, in the
// order of the calls, the token usage of the managed agents called, and
// the step's replay record (RunOptions.Record). Call i has the CallID
// number i+1, so that a replay answers it, or makes it again, under the
// same key.
func (r *runner) callTools(n int, calls []providers.ToolCall) ([]ToolCall, providers.Usage, *StepRecord) {
	out := make([]ToolCall, len(calls))
	var sr *stepRecorder
	if r.record || n <= len(r.replay) {
		var replay *StepRecord
		if n <= len(r.replay) {
			replay = r.replay[n-1]
		}
		sr = newStepRecorder(replay)
	}
	var (
		mu      sync.Mutex
		managed providers.Usage
		wg      sync.WaitGroup
	)
	threads := r.a.opts.MaxToolThreads
	if threads == 0 {
		threads = DefaultMaxToolThreads
	}
	sem := make(chan struct{}, threads)
	for i, c := range calls {
		if i >= MaxToolCallsPerStep {
			out[i] = ToolCall{ID: c.ID, Name: c.Name, Error: fmt.Sprintf(
				"not run: an answer may make at most %d tool calls; make this call again in the next step if it is still needed", MaxToolCallsPerStep)}
			continue
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			rec, u := r.callTool(n, i, c, sr)
			out[i] = rec
			mu.Lock()
			defer mu.Unlock()
			managed = managed.Add(u)
			r.emit(&ToolCallEvent{Step: n, Call: rec})
		})
	}
	wg.Wait()
	var record *StepRecord
	if r.record {
		record = sr.done()
	}
	return out, managed, record
}

// callTool runs one call. Every failure, from arguments that are not JSON
// to the tool's own error, is in the record for the model to read.
func (r *runner) callTool(n, i int, c providers.ToolCall, sr *stepRecorder) (ToolCall, providers.Usage) {
	rec := ToolCall{ID: c.ID, Name: c.Name}
	args, err := decodeArguments(c.Arguments)
	if err != nil {
		rec.Error = fmt.Sprintf("the arguments of %s are not a JSON object (%s): %v", c.Name, clip(string(c.Arguments), 200), err)
		return rec, providers.Usage{}
	}
	rec.Arguments = args
	return r.callBound(n, i, rec, sr)
}

// callBound runs call i of step n, whose arguments have been decoded.
func (r *runner) callBound(n, i int, rec ToolCall, sr *stepRecorder) (ToolCall, providers.Usage) {
	a := r.a
	spec := finalAnswerSpec
	t, ok := a.callable[rec.Name]
	switch {
	case ok:
		spec = t.Spec()
	case rec.Name != finalAnswerSpec.Name:
		rec.Error = fmt.Sprintf("there is no tool named %q; the tools are: %s", rec.Name, strings.Join(a.toolNames(), ", "))
		return rec, providers.Usage{}
	}
	bound, err := tool.Bind(spec, nil, rec.Arguments)
	if err != nil {
		rec.Error = err.Error()
		return rec, providers.Usage{}
	}
	if !ok { // final_answer
		rec.Result = bound["answer"]
		return rec, providers.Usage{}
	}
	scope := &execScope{r: r, step: n}
	scope.seq.Store(int64(i)) // its CallID is number i+1
	ctx := context.WithValue(r.ctx, scopeKey{}, scope)
	ctx = context.WithValue(ctx, recorderKey{}, sr)
	start := time.Now()
	out, err := t.Call(ctx, bound)
	rec.Duration = time.Since(start)
	rec.Result = out
	if err != nil {
		rec.Error = err.Error()
	}
	scope.mu.Lock()
	defer scope.mu.Unlock()
	for _, c := range scope.calls { // the instrumented tool's own record
		if c.Approval != nil {
			rec.Approval, rec.Arguments = c.Approval, c.Arguments
		}
	}
	return rec, scope.managed
}

// toolNames lists the names a tool-calling model may call.
func (a *Agent) toolNames() []string {
	names := make([]string, 0, len(a.toolDefs))
	for _, d := range a.toolDefs {
		names = append(names, d.Name)
	}
	return names
}

// decodeArguments reads a call's JSON arguments into JSON-shaped Go values
// (int64 for integers); empty arguments are no arguments.
func decodeArguments(raw json.RawMessage) (map[string]any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var args map[string]any
	if err := dec.Decode(&args); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("text after the JSON object")
	}
	if args == nil {
		return map[string]any{}, nil
	}
	return pyvalue.Numbers(args).(map[string]any), nil
}

// toolResultText is the answer the model reads for a call.
func toolResultText(p *prompts.Set, c ToolCall) string {
	if c.Error != "" {
		return promptText(p, prompts.ToolError, prompts.Data{Error: c.Error})
	}
	v := describeImages(c.Result)
	s, ok := v.(string)
	if !ok {
		s = pyRepr(v)
	}
	return truncate(p, s, MaxOutputLength)
}

// callsObservation sums up a step's calls for people and for a manager's
// summary: each call in Python syntax and what it answered.
func callsObservation(p *prompts.Set, calls []ToolCall) string {
	var b strings.Builder
	for i, c := range calls {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s\n%s\n", c.PythonCall(), strings.TrimRight(toolResultText(p, c), "\n"))
	}
	return b.String()
}

// PythonCall shows the call as Python, with keyword arguments in
// alphabetical order: get_weather(city='Paris').
func (c ToolCall) PythonCall() string {
	keys := make([]string, 0, len(c.Arguments))
	for k := range c.Arguments {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(c.Name)
	b.WriteByte('(')
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(pyRepr(c.Arguments[k]))
	}
	b.WriteByte(')')
	return b.String()
}
