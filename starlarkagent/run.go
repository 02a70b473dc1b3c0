package starlarkagent

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/prompts"
	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/tool"
)

// Run solves task and returns the result, which is never nil; the error is
// the result's Err.
func (a *Agent) Run(ctx context.Context, task string, opts RunOptions) (*RunResult, error) {
	res := a.run(ctx, task, opts, nil)
	return res, res.Err
}

// Stream solves task like Run, yielding events as they happen: model
// deltas (when the model streams), each step's code before it runs, tool
// calls, observations, step ends, the final answer, and last a RunEnd with
// the result. When the run fails, the RunEnd is yielded with the error.
// Stopping the iteration cancels the run.
func (a *Agent) Stream(ctx context.Context, task string, opts RunOptions) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		stopped := false
		emit := func(e Event) bool {
			if stopped {
				return false
			}
			var err error
			if end, ok := e.(*RunEnd); ok {
				err = end.Result.Err
			}
			stopped = !yield(e, err)
			return !stopped
		}
		a.run(ctx, task, opts, emit)
	}
}

// startTask resets the memory (unless opts.Resume), adds the task step,
// and hands the additional arguments to the code. It returns the index of
// the task step in memory. ctx bounds handing the arguments to the
// executor. Call it with a.mu held.
func (a *Agent) startTask(ctx context.Context, task string, opts RunOptions) (int, error) {
	a.memMu.Lock()
	if !opts.Resume {
		a.memory = Memory{System: SystemPromptStep{SystemPrompt: a.system}, prompts: a.prompts}
	}
	first := len(a.memory.Steps)
	a.memMu.Unlock()
	var images []providers.Image
	var err error
	for i, img := range opts.Images {
		if img, err = checkImage(img); err != nil {
			images, err = nil, fmt.Errorf("starlarkagent: task image %d: %w", i+1, err)
			break
		}
		images = append(images, img)
	}
	for name := range opts.AdditionalArgs {
		if err == nil && (tool.IsReserved(name) || a.names[name]) {
			err = fmt.Errorf("starlarkagent: additional_args: the name %q is reserved: it is the agent's own or a tool's (%s and the tools' names cannot be variables); give the value another name", name, strings.Join(tool.ReservedNames, ", "))
		}
	}
	a.appendStep(&TaskStep{Task: task, AdditionalArgs: opts.AdditionalArgs, Images: images})
	if err != nil {
		return first, err
	}
	if len(opts.AdditionalArgs) > 0 && !a.toolCalling {
		if err := a.exec.SetVariables(ctx, opts.AdditionalArgs); err != nil {
			return first, fmt.Errorf("starlarkagent: additional args: %w", err)
		}
	}
	return first, nil
}

// StartTask puts a task in the agent's memory for manual stepping with
// Step: the memory starts again (unless opts.Resume), the task is added
// with its images, and opts.AdditionalArgs are handed to the code.
// opts.MaxSteps is not enforced: the caller decides when to stop.
func (a *Agent) StartTask(task string, opts RunOptions) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, err := a.startTask(context.Background(), task, opts)
	return err
}

// Step runs the next step of the task in memory (see StartTask; a Run
// leaves its task there too): the plan first when one is due
// (Options.PlanningInterval), then one action step, with the callbacks,
// checks, logs and spans of Run. It returns the action step, which is in
// memory; when its final answer passed the checks (IsFinal), the task is
// done and a FinalAnswerStep follows it in memory. The error is one that
// would end a run (model or executor failure, cancellation); step errors
// the model can act on are in the step. Step emits no events, and
// counts no budget: Run is StartTask, then Step until a final answer or
// MaxSteps, then an answer written from memory; Stream is Run with events.
func (a *Agent) Step(ctx context.Context) (*ActionStep, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.memMu.Lock()
	task, n := "", 0
	found, done := false, false
	for _, s := range a.memory.Steps {
		switch s := s.(type) {
		case *TaskStep:
			task, n, found, done = s.Task, 0, true, false
		case *ActionStep:
			n++
		case *FinalAnswerStep:
			done = true
		}
	}
	a.memMu.Unlock()
	if !found {
		return nil, errors.New("starlarkagent: Step: no task in memory: call StartTask first")
	}
	if done {
		return nil, errors.New("starlarkagent: Step: the task in memory has its final answer: call StartTask for a new one")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &runner{a: a, ctx: ctx, cancel: cancel, task: task, maxSteps: a.opts.MaxSteps, contextLimit: a.contextLimit()}
	r.approver = a.approverFor(ctx, RunOptions{})
	if r.maxSteps == 0 {
		r.maxSteps = DefaultMaxSteps
	}
	n++
	if iv := a.opts.PlanningInterval; iv > 0 && (n == 1 || (n-1)%iv == 0) {
		if err := r.plan(n); err != nil {
			return nil, err
		}
	}
	act := r.action
	if a.toolCalling {
		act = r.toolAction
	}
	st, err := act(n)
	if err == nil && st.IsFinal {
		fa := &FinalAnswerStep{Output: st.Output}
		a.appendStep(fa)
		r.endStep(fa)
	}
	return st, err
}

// runner holds the state of one run.
type runner struct {
	a        *Agent
	ctx      context.Context
	cancel   context.CancelFunc
	emitFn   func(Event) bool
	task     string
	maxSteps int
	usage    providers.Usage
	approver Approver
	spend    *spending
	audit    func(AuditRecord)
	// contextLimit is the prompt budget (Options.Compaction; 0: none).
	contextLimit int
	// record and replay are RunOptions.Record and Replay.
	record bool
	replay []*StepRecord
}

func (a *Agent) run(ctx context.Context, task string, opts RunOptions, emit func(Event) bool) *RunResult {
	a.mu.Lock()
	defer a.mu.Unlock()
	start := time.Now()
	ctx, span := a.tracer.Start(ctx, "invoke_agent "+a.name, trace.WithAttributes(
		attrOperation.String("invoke_agent"),
		attrAgentName.String(a.name),
		attrRequestModel.String(a.model.ModelID()),
	))
	defer span.End()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	r := &runner{a: a, ctx: ctx, cancel: cancel, emitFn: emit, task: task, maxSteps: a.opts.MaxSteps, contextLimit: a.contextLimit()}
	if r.approver = a.approverFor(ctx, opts); r.approver != nil {
		r.ctx = context.WithValue(ctx, approverKey{}, r.approver)
		ctx = r.ctx
	}
	if r.audit = auditFor(ctx, opts); r.audit != nil {
		r.ctx = context.WithValue(ctx, auditKey{}, r.audit)
		ctx = r.ctx
	}
	spend, budgetErr := a.spendingFor(ctx, opts)
	if r.spend = spend; spend != nil {
		r.ctx = context.WithValue(ctx, spendingKey{}, spend)
		ctx = r.ctx
	}
	if opts.RunID != "" {
		r.ctx = context.WithValue(ctx, runIDKey{}, opts.RunID)
		ctx = r.ctx
	}
	r.record, r.replay = opts.Record, opts.Replay
	if opts.MaxSteps > 0 {
		r.maxSteps = opts.MaxSteps
	}
	if r.maxSteps == 0 {
		r.maxSteps = DefaultMaxSteps
	}
	first, err := a.startTask(ctx, task, opts)
	a.log.Info("run started", "task", clip(task, 200), "max_steps", r.maxSteps, "resume", opts.Resume)
	res := &RunResult{}
	if err == nil {
		err = budgetErr
	}
	if err != nil {
		res.State, res.Err = StateError, err
	}
	if res.Err == nil {
		r.loop(res)
	}
	res.TokenUsage = r.usage
	a.memMu.Lock()
	res.Steps = slices.Clone(a.memory.Steps[first:])
	a.memMu.Unlock()
	if res.State == StateBudgetExceeded {
		res.Output = answerSoFar(res.Steps)
	}
	res.Timing = Timing{Start: start, End: time.Now()}

	span.SetAttributes(
		attrInputTokens.Int(res.TokenUsage.InputTokens),
		attrOutputTokens.Int(res.TokenUsage.OutputTokens),
		attrRunState.String(string(res.State)),
	)
	if res.Err != nil {
		setError(span, res.Err)
		// The error is returned to the caller, who reports it: logged at
		// Info, not Warn, so that it is not reported twice. An
		// interruption is a warning: the caller may only say "interrupted".
		level := slog.LevelInfo
		if errors.Is(res.Err, ErrInterrupted) {
			level = slog.LevelWarn
		}
		a.log.Log(ctx, level, "run failed", "error", res.Err, "steps", len(res.Steps),
			"input_tokens", res.TokenUsage.InputTokens, "output_tokens", res.TokenUsage.OutputTokens,
			"duration", res.Timing.Duration())
	} else {
		a.log.Info("run ended", "state", res.State, "steps", len(res.Steps),
			"input_tokens", res.TokenUsage.InputTokens, "output_tokens", res.TokenUsage.OutputTokens,
			"duration", res.Timing.Duration())
	}
	r.emit(&RunEnd{Result: res})
	return res
}

// emit passes e to the stream, if any. When the consumer stops reading,
// the run is cancelled.
func (r *runner) emit(e Event) {
	if r.emitFn != nil && !r.emitFn(e) {
		r.emitFn = nil
		r.cancel()
	}
}

// interrupted wraps the context's error so that errors.Is matches both it
// and ErrInterrupted.
func (r *runner) interrupted() error {
	cause := context.Cause(r.ctx)
	if cause == nil {
		cause = context.Canceled
	}
	return fmt.Errorf("starlarkagent: %w: %w", ErrInterrupted, cause)
}

func (r *runner) loop(res *RunResult) {
	a := r.a
	for n := 1; ; n++ {
		if r.ctx.Err() != nil {
			res.State, res.Err = StateError, r.interrupted()
			return
		}
		if be := r.spend.spent(); be != nil {
			res.State, res.Err = StateBudgetExceeded, be
			a.log.Warn("budget spent: the run stops", "step", n, "tokens", be.Tokens, "cost", be.Cost)
			return
		}
		if n > r.maxSteps {
			r.finalFromMemory(res)
			return
		}
		if iv := a.opts.PlanningInterval; iv > 0 && (n == 1 || (n-1)%iv == 0) {
			if err := r.plan(n); err != nil {
				res.State, res.Err = StateError, err
				return
			}
		}
		act := r.action
		if a.toolCalling {
			act = r.toolAction
		}
		st, err := act(n)
		if err != nil {
			res.State, res.Err = StateError, err
			return
		}
		if st.IsFinal {
			r.finish(res, &FinalAnswerStep{Output: st.Output}, StateSuccess)
			return
		}
	}
}

// finish records the final answer.
func (r *runner) finish(res *RunResult, fa *FinalAnswerStep, state RunState) {
	r.a.appendStep(fa)
	r.endStep(fa)
	res.Output, res.State = fa.Output, state
	r.emit(&FinalAnswer{Output: fa.Output})
}

// endStep runs the callbacks and reports the step.
func (r *runner) endStep(s Step) {
	for _, cb := range r.a.opts.StepCallbacks {
		cb(r.ctx, s)
	}
	for _, cb := range r.a.opts.OnStep[s.Kind()] {
		cb(r.ctx, s, r.a)
	}
	r.emit(&StepEnd{Step: s})
}

// stopSequences end the model's answer where the loop takes over.
func (r *runner) stopSequences() []string {
	p := r.a.parser
	stops := []string{"Observation:", "Calling tools:"}
	if !strings.Contains(p.open, p.close) {
		stops = append(stops, p.close)
	}
	return stops
}

// action runs one action step and appends it to memory. The error ends the
// run; a step error the model can act on is in the step instead.
func (r *runner) action(n int) (st *ActionStep, err error) {
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

	gopts := providers.GenerateOptions{StopSequences: r.stopSequences()}
	if a.opts.StructuredOutputs {
		// The closing tag may be in the JSON's code; the JSON ends itself.
		gopts = providers.GenerateOptions{StopSequences: []string{"Observation:", "Calling tools:"}, ResponseSchema: thoughtCodeSchema}
	}
	msg, err := r.generateMessage(st.ModelInput, gopts, n)
	text, usage := msg.Content, *msg.Usage
	st.Usage = usage
	if err != nil {
		if r.ctx.Err() != nil {
			st.Error = &StepError{Kind: ErrorInterrupted, Message: "the run was interrupted during the model call"}
			return st, r.interrupted()
		}
		st.Error = &StepError{Kind: ErrorModel, Message: err.Error()}
		return st, fmt.Errorf("starlarkagent: step %d: model: %w", n, err)
	}
	var code string
	var ok bool
	if a.opts.StructuredOutputs {
		st.ModelOutput = strings.TrimSpace(text)
		_, code, ok = parseStructured(text)
	}
	if !ok {
		st.ModelOutput = a.parser.complete(text)
		code, ok = a.parser.parse(st.ModelOutput)
	}
	if !ok {
		st.Error = &StepError{Kind: ErrorParse, Message: promptText(a.prompts, prompts.ParseError,
			prompts.Data{ModelOutput: st.ModelOutput, CodeOpen: a.parser.open, CodeClose: a.parser.close})}
		r.emit(&Observation{Step: n, Err: st.Error})
		return st, nil
	}
	st.Code = code
	r.emit(&CodeAction{Step: n, Code: code})

	res, scope, err := r.execute(code, n)
	st.ToolCalls, st.ManagedUsage, st.Replay = scope.calls, scope.managed, scope.record
	r.usage = r.usage.Add(scope.managed)
	st.Imports, st.Engine = res.Imports, res.Engine
	// The model reads what the executor kept: one limit, Limits.MaxOutput.
	maxLogs := a.opts.Limits.WithDefaults().MaxOutput
	switch {
	case r.ctx.Err() != nil:
		st.Observation = partialLogs(a.prompts, res, maxLogs)
		st.Error = &StepError{Kind: ErrorInterrupted, Message: "the run was interrupted during the execution of the code"}
		return st, r.interrupted()
	case err != nil:
		st.Error = &StepError{Kind: ErrorExecutor, Message: err.Error()}
		return st, fmt.Errorf("starlarkagent: step %d: executor: %w", n, err)
	case res.Err != nil:
		st.Observation = partialLogs(a.prompts, res, maxLogs)
		st.Error = &StepError{Kind: ErrorExecution, Type: res.Err.Type, Message: res.Err.Describe(),
			Line: res.Err.Line, Source: res.Err.Source, Hint: res.Err.Hint}
		if h := res.Err.Hint; h != "" {
			a.log.Warn("step failed for a reason the run's configuration could fix", "step", n, "hint", h)
		}
		r.emit(&Observation{Step: n, Text: st.Observation, Err: st.Error})
		return st, nil
	}
	for _, c := range st.ToolCalls {
		st.ObservationImages = collectImages(st.ObservationImages, c.Result)
	}
	st.ObservationImages = collectImages(st.ObservationImages, res.Value)
	st.Observation = observation(a.prompts, res, maxLogs)
	st.Output = res.Value
	if res.IsFinal {
		if msg := r.check(res.Value); msg != "" {
			st.Error = &StepError{Kind: ErrorFinalAnswerCheck, Message: msg}
		} else {
			st.IsFinal = true
		}
	}
	r.emit(&Observation{Step: n, Text: st.Observation, Err: st.Error})
	return st, nil
}

// check runs the final-answer checks and returns why the answer was
// rejected, or "".
func (r *runner) check(answer any) string {
	for i, check := range r.a.opts.FinalAnswerChecks {
		if err := check(r.ctx, answer, &r.a.memory); err != nil {
			return promptText(r.a.prompts, prompts.FinalAnswerRejected, prompts.Data{
				Check: i + 1, Answer: clip(pyRepr(answer), 200), Reason: err.Error()})
		}
	}
	return ""
}

// execScope collects what happens during one execution: tool calls and
// the token usage of managed agents. Tools find it in their context.
type execScope struct {
	r       *runner // the run, and the step that runs the code
	step    int
	mu      sync.Mutex
	calls   []ToolCall
	managed providers.Usage
	// onCall reports a call as it returns, while the code still runs.
	onCall func(ToolCall)
	// seq numbers the step's tool calls, for their CallID.
	seq atomic.Int64
	// record is the step's record, once the execution has ended.
	record *StepRecord
}

type scopeKey struct{}

func scopeFrom(ctx context.Context) *execScope {
	s, _ := ctx.Value(scopeKey{}).(*execScope)
	return s
}

func (s *execScope) addCall(c ToolCall) {
	s.mu.Lock()
	s.calls = append(s.calls, c)
	s.mu.Unlock()
	if s.onCall != nil {
		s.onCall(c)
	}
}

func (s *execScope) addManaged(u providers.Usage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.managed = s.managed.Add(u)
}

// execute runs code in a span of its own.
func (r *runner) execute(code string, n int) (executors.Result, *execScope, error) {
	scope := &execScope{r: r, step: n, onCall: func(c ToolCall) { r.emit(&ToolCallEvent{Step: n, Call: c}) }}
	ctx := context.WithValue(r.ctx, scopeKey{}, scope)
	// Always set, so that a managed agent's steps never find the
	// recorder of their manager's.
	var rec *stepRecorder
	if r.record || n <= len(r.replay) {
		var replay *StepRecord
		if n <= len(r.replay) {
			replay = r.replay[n-1]
		}
		rec = newStepRecorder(replay)
		ctx = executors.WithTape(ctx, rec.tape)
	} else {
		ctx = executors.WithTape(ctx, nil)
	}
	ctx = context.WithValue(ctx, recorderKey{}, rec)
	ctx, span := r.a.tracer.Start(ctx, "execute_code", trace.WithAttributes(
		attrAgentName.String(r.a.name),
		attrStep.Int(n),
	))
	defer span.End()
	r.a.log.Debug("executing code", "step", n, "code", code)
	res, err := r.a.exec.Execute(ctx, code)
	span.SetAttributes(attrEngine.String(res.Engine), attrInterpreterSteps.Int64(int64(res.Steps)))
	switch {
	case err != nil:
		setError(span, err)
	case res.Err != nil:
		span.SetAttributes(attrErrorType.String(res.Err.Type))
		span.SetStatus(codes.Error, res.Err.Error())
	}
	scope.mu.Lock()
	defer scope.mu.Unlock()
	out := &execScope{calls: scope.calls, managed: scope.managed}
	if rec != nil && r.record {
		out.record = rec.done()
	}
	return res, out, err
}

// generate calls the model in a chat span, streaming when the run is
// streamed and the model can, and returns its text cut at the first stop
// sequence: a server may ignore the stop sequences (some reject them, and
// the provider drops them) and write on, inventing an observation and a
// second action that must never run.
//
// A tool-calling agent's history holds tool calls, which an API may only
// take with the tools defined: they are offered with ToolChoice "none".
func (r *runner) generate(msgs []providers.Message, stops []string, step int) (string, providers.Usage, error) {
	opts := providers.GenerateOptions{StopSequences: stops}
	if r.a.toolCalling {
		opts.Tools, opts.ToolChoice = r.a.toolDefs, "none"
	}
	msg, err := r.generateMessage(msgs, opts, step)
	return msg.Content, *msg.Usage, err
}

// generateMessage is generate with full options, returning the message
// (never nil, Usage set) with its native tool calls.
func (r *runner) generateMessage(msgs []providers.Message, opts providers.GenerateOptions, step int) (*providers.Message, error) {
	a := r.a
	model := a.model.ModelID()
	ctx, span := a.tracer.Start(r.ctx, "chat "+model, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attrOperation.String("chat"),
		attrRequestModel.String(model),
		attrAgentName.String(a.name),
	))
	defer span.End()
	stops := opts.StopSequences
	var (
		text  string
		calls []providers.ToolCall
		usage providers.Usage
		err   error
	)
	if sm, ok := a.model.(providers.StreamingModel); ok && r.emitFn != nil {
		var b strings.Builder
		sent, cut := 0, false
		for d, derr := range sm.GenerateStream(ctx, msgs, opts) {
			if derr != nil {
				err = derr
				break
			}
			if d.Content != "" && !cut {
				b.WriteString(d.Content)
				// Hold back what could be the start of a stop sequence,
				// so that the consumer never sees text past one.
				s := b.String()
				end := cutAt(s, stops)
				cut = end < len(s)
				if !cut {
					end = max(sent, len(s)-longest(stops)+1)
					for end > sent && end < len(s) && !utf8.RuneStart(s[end]) {
						end--
					}
				}
				if end > sent {
					r.emit(&ModelDelta{Step: step, Content: s[sent:end]})
					sent = end
				}
			}
			if len(d.ToolCalls) > 0 {
				calls = d.ToolCalls
			}
			if d.Usage != nil {
				usage = *d.Usage
			}
		}
		text = b.String()
		if end := cutAt(text, stops); err == nil && end > sent {
			r.emit(&ModelDelta{Step: step, Content: text[sent:end]})
		}
	} else {
		var msg *providers.Message
		msg, err = a.model.Generate(ctx, msgs, opts)
		if msg != nil {
			text, calls = msg.Content, msg.ToolCalls
			if msg.Usage != nil {
				usage = *msg.Usage
			}
		}
	}
	if end := cutAt(text, stops); end < len(text) {
		a.log.Debug("model wrote past a stop sequence; the rest is dropped", "step", step, "dropped", text[end:])
		text = text[:end]
	}
	r.usage = r.usage.Add(usage)
	r.spend.charge(model, usage)
	span.SetAttributes(attrInputTokens.Int(usage.InputTokens), attrOutputTokens.Int(usage.OutputTokens))
	out := &providers.Message{Role: providers.RoleAssistant, Content: text, ToolCalls: calls, Usage: &usage}
	if err != nil {
		setError(span, err)
		out.Content, out.ToolCalls = "", nil
		return out, err
	}
	a.log.Debug("model answered", "step", step, "output", text, "tool_calls", len(calls),
		"input_tokens", usage.InputTokens, "output_tokens", usage.OutputTokens)
	return out, nil
}

// cutAt returns where s ends at its earliest stop sequence (len(s) if it
// holds none).
func cutAt(s string, stops []string) int {
	end := len(s)
	for _, seq := range stops {
		if seq == "" {
			continue
		}
		if i := strings.Index(s[:end], seq); i >= 0 {
			end = i
		}
	}
	return end
}

// longest is the length of the longest stop sequence (at least 1).
func longest(stops []string) int {
	n := 1
	for _, s := range stops {
		n = max(n, len(s))
	}
	return n
}

// plan writes or updates the plan before action step n.
func (r *runner) plan(n int) error {
	a := r.a
	st := &PlanningStep{Timing: Timing{Start: time.Now()}}
	data := a.withTools(prompts.Data{ManagedAgents: a.team(), Task: r.task, RemainingSteps: r.maxSteps - n + 1})
	var msgs []providers.Message
	if n == 1 {
		text, err := a.prompts.Render(prompts.InitialPlan, data)
		if err != nil {
			return err
		}
		msgs = []providers.Message{{Role: providers.RoleUser, Content: text}}
	} else {
		pre, err := a.prompts.Render(prompts.UpdatePlanPre, data)
		if err != nil {
			return err
		}
		post, err := a.prompts.Render(prompts.UpdatePlanPost, data)
		if err != nil {
			return err
		}
		msgs = append([]providers.Message{{Role: providers.RoleSystem, Content: pre}}, r.summaryMessages()...)
		msgs = append(msgs, providers.Message{Role: providers.RoleUser, Content: post})
	}
	st.ModelInput = msgs
	out, usage, err := r.generate(msgs, []string{"<end_plan>"}, 0)
	st.Usage = usage
	if err != nil {
		if r.ctx.Err() != nil {
			return r.interrupted()
		}
		return fmt.Errorf("starlarkagent: planning before step %d: %w", n, err)
	}
	// generate cut the plan at <end_plan>, where a model that ignores the
	// stop sequence (or a recording that kept it) would write on.
	st.ModelOutput = out
	frame, data := prompts.Plan, prompts.Data{Plan: strings.TrimSpace(out), Task: r.task}
	if n > 1 {
		frame = prompts.UpdatedPlan
	}
	st.Plan = promptText(a.prompts, frame, data)
	st.Timing.End = time.Now()
	a.appendStep(st)
	a.log.Info("plan written", "before_step", n, "duration", st.Timing.Duration(),
		"input_tokens", usage.InputTokens, "output_tokens", usage.OutputTokens)
	r.endStep(st)
	return nil
}

// finalFromMemory asks the model for the best answer it can write from
// memory, once the step budget has run out.
func (r *runner) finalFromMemory(res *RunResult) {
	a := r.a
	data := prompts.Data{Task: r.task}
	pre, err := a.prompts.Render(prompts.FinalAnswerPre, data)
	if err == nil {
		var post string
		post, err = a.prompts.Render(prompts.FinalAnswerPost, data)
		msgs := append([]providers.Message{{Role: providers.RoleSystem, Content: pre}}, a.memory.Messages()[1:]...)
		msgs = append(msgs, providers.Message{Role: providers.RoleUser, Content: post})
		if err == nil {
			a.log.Warn("max steps reached; writing the answer from memory", "max_steps", r.maxSteps)
			var text string
			var usage providers.Usage
			text, usage, err = r.generate(msgs, nil, 0)
			if err == nil {
				r.finish(res, &FinalAnswerStep{Output: strings.TrimSpace(text), FromMemory: true, Usage: usage}, StateMaxSteps)
				return
			}
		}
	}
	if r.ctx.Err() != nil {
		res.State, res.Err = StateError, fmt.Errorf("starlarkagent: max steps (%d) reached, and the final answer failed: %w", r.maxSteps, r.interrupted())
		return
	}
	// As the reference agent does, the run still ends with max_steps, its
	// output saying why there is no answer.
	a.log.Info("the final answer from memory failed", "error", err)
	r.finish(res, &FinalAnswerStep{Output: "Error in generating final LLM output:\n" + err.Error(), FromMemory: true}, StateMaxSteps)
}

func (r *runner) logStep(st *ActionStep) {
	attrs := []any{"step", st.Number, "duration", st.Timing.Duration(),
		"input_tokens", st.Usage.InputTokens, "output_tokens", st.Usage.OutputTokens}
	if len(st.Imports) > 0 {
		attrs = append(attrs, "imports", st.Imports)
	}
	if len(st.ToolCalls) > 0 {
		attrs = append(attrs, "tool_calls", len(st.ToolCalls))
	}
	if st.Error != nil {
		attrs = append(attrs, "error_kind", st.Error.Kind, "error", clip(st.Error.Message, 300))
		r.a.log.Info("step failed", attrs...)
		return
	}
	if st.IsFinal {
		attrs = append(attrs, "final_answer", true)
	}
	r.a.log.Info("step ended", attrs...)
}

// clip shortens s for a log line.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// summaryMessages is the history a plan update reads: the tasks, and what
// each step did and observed, without the earlier plans (the update
// replaces them) nor the thoughts around the code.
func (r *runner) summaryMessages() []providers.Message {
	a := r.a
	a.memMu.Lock()
	steps := slices.Clone(a.memory.Steps)
	a.memMu.Unlock()
	var msgs []providers.Message
	for _, s := range steps {
		switch s := s.(type) {
		case *PlanningStep:
			continue
		case *ActionStep:
			m := s.messages(a.prompts)
			if len(m) > 0 && m[0].Role == providers.RoleAssistant {
				switch {
				case len(s.ModelToolCalls) > 0:
					m[0].Content = ""
				case s.Code != "":
					m[0].Content = a.parser.open + "\n" + s.Code + "\n" + a.parser.close
				}
			}
			msgs = append(msgs, m...)
		default:
			msgs = append(msgs, s.messages(a.prompts)...)
		}
	}
	return msgs
}
