package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/pflag"
	"go.opentelemetry.io/otel/trace"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/providers/replay"
	"github.com/star-agent/star-agent/starlarkagent"
	"github.com/star-agent/star-agent/tool"
)

// AgentFlags are the flags that build an agent, shared by run and serve:
// the model, the limits, the prompt, the team, the executor and the tools.
// Register them, then call Check once and NewModel and NewAgent as often
// as agents are needed: serve builds one agent (and executor) per run.
type AgentFlags struct {
	// f holds the values; run adds its own flags to the same struct, and
	// newModel (model.go) reads it.
	f runFlags

	// model is the model for every agent once built (models are safe
	// for concurrent use), except recordings, whose playback has a
	// position: each agent gets a player of its own over one reading.
	modelOnce sync.Once
	model     providers.Model
	exchanges []replay.Exchange
	modelErr  error
	answerRe  *regexp.Regexp
	prices    starlarkagent.Prices
}

// Register adds the flags to fl.
func (a *AgentFlags) Register(fl *pflag.FlagSet) {
	f := &a.f
	fl.StringVar(&f.model, "model", "", "the model, as `PROVIDER:NAME` (openai, anthropic, gemini, ollama, replay)")
	fl.StringVar(&f.modelType, "model-type", "", "the provider (openai, anthropic, gemini, ollama, replay), with --model-id")
	fl.StringVar(&f.modelID, "model-id", "", "the model name (or the recording, for replay)")
	fl.StringVar(&f.apiBase, "api-base", "", "base URL of the model's API: an OpenAI-compatible server (default $OPENAI_BASE_URL), or Anthropic's without /v1")
	fl.StringVar(&f.apiKey, "api-key", "", "API key (default from OPENAI_API_KEY, ANTHROPIC_API_KEY, or GEMINI_API_KEY/GOOGLE_API_KEY)")
	f.modelOpts.register(fl)
	fl.StringVar(&f.replayFile, "replay", "", "play the recorded session `FILE` instead of calling a model")
	fl.StringSliceVar(&f.imports, "imports", nil, "modules the code may import, in addition to the defaults; modules that reach the host (os, sys, ...) only with --engine python")
	fl.IntVar(&f.maxSteps, "max-steps", starlarkagent.DefaultMaxSteps, "most action steps (model calls that act) before the answer is written from memory; --max-operations limits the interpreter within each step")
	fl.IntVar(&f.planEvery, "planning-interval", 0, "plan before step 1 and every `N` steps (0: no planning)")
	fl.IntVar(&f.planEvery, "plan-every", 0, "same as --planning-interval")
	f.limits.Register(fl, "run")
	fl.IntVar(&f.discoverAbove, "tool-discovery-threshold", 0, "past `N` tools the prompt lists tool names only, and the code looks stubs up with search_tools(query) and help(tool) (0: the default, 30; negative: always list every stub)")
	f.exec.Register(fl)
	f.tools.Register(fl)
	fl.StringVar(&f.instructions, "instructions", "", "instructions appended to the system prompt")
	fl.BoolVar(&f.markdown, "markdown", false, "ask for code in markdown fences instead of <code> tags")
	fl.StringArrayVar(&f.managed, "managed", nil, "add a team member `NAME:DESCRIPTION`, an agent with the same model and flags (repeatable)")
	fl.StringVar(&f.answerRegexp, "answer-regexp", "", "reject final answers that do not match `REGEXP` (the model is told and tries again)")
	fl.StringVar(&f.actionType, "action-type", starlarkagent.ActionCode, "how the model acts: code (Python actions) or tool_calling (the model's native tool calls; no code runs)")
	fl.BoolVar(&f.structured, "structured-outputs", false, "ask the model for JSON {thought, code} where the provider supports it (code agents)")
	fl.IntVar(&f.maxTotalTokens, "max-total-tokens", 0, "stop a run once its model calls (managed agents' included) have used `N` input and output tokens; state budget_exceeded (0: no limit)")
	fl.Float64Var(&f.maxCost, "max-cost", 0, "stop a run once its model calls cost `USD` dollars, priced by the built-in table or --prices (0: no limit)")
	fl.StringVar(&f.pricesFile, "prices", "", "price table `FILE` for --max-cost, JSON {\"model\": {\"input\": 2.5, \"output\": 10}} in dollars per million tokens, over the built-in one")
	fl.IntVar(&f.maxContext, "max-context-tokens", 0, "keep each prompt under `N` tokens (estimated): older observations are cut, then the model condenses older steps in a summary step (0: three quarters of the model's known context window, else off; -1: off)")
	fl.StringVar(&f.auditLog, "audit-log", "", "append the audit trail to `FILE` as JSON lines: every tool call (agent, step, tool, arguments, outcome, approval, duration) and every approval decision, whatever the log level")
	fl.StringSliceVar(&f.requireApproval, "require-approval", nil, "tools whose calls wait for an operator's approval, by `PATTERNS` (comma-separated names with * globs, MCP tools and --managed members included; run asks at the terminal, serve through its API and page)")
}

// Limits are the execution limits the flags set (LimitFlags), read from
// fl, the flag set Register filled; warnings of deprecated spellings go to
// stderr. Its errors are usage errors.
func (a *AgentFlags) Limits(fl *pflag.FlagSet, stderr io.Writer) (executors.Limits, error) {
	return a.f.limits.Limits(fl, stderr)
}

// Check validates the flags that need no model or executor. Its errors
// are usage errors (*ExitError with Code 2).
func (a *AgentFlags) Check() error {
	f := &a.f
	if f.maxSteps < 1 {
		return usageError("--max-steps must be at least 1")
	}
	if err := f.exec.CheckImports(f.imports); err != nil {
		return usageError("%v", err)
	}
	if f.planEvery < 0 {
		return usageError("--planning-interval must not be negative")
	}
	switch f.actionType {
	case "", starlarkagent.ActionCode, starlarkagent.ActionToolCalling:
	default:
		return usageError("--action-type must be code or tool_calling, not %q", f.actionType)
	}
	if f.structured && f.actionType == starlarkagent.ActionToolCalling {
		return usageError("--structured-outputs is for code agents; a tool-calling agent answers with tool calls")
	}
	if f.maxContext < -1 {
		return usageError("--max-context-tokens must be positive, 0 (the model's default) or -1 (off)")
	}
	if f.maxTotalTokens < 0 || f.maxCost < 0 {
		return usageError("--max-total-tokens and --max-cost must not be negative")
	}
	if f.pricesFile != "" && a.prices == nil {
		file, err := os.Open(f.pricesFile)
		if err != nil {
			return usageError("--prices: %v", err)
		}
		p, err := starlarkagent.ReadPrices(file)
		file.Close()
		if err != nil {
			return usageError("--prices %s: %v", f.pricesFile, err)
		}
		a.prices = starlarkagent.DefaultPrices()
		maps.Copy(a.prices, p)
	}
	for _, p := range f.requireApproval {
		if _, err := path.Match(p, ""); err != nil || p == "" {
			return usageError("--require-approval: %q is not a name pattern", p)
		}
	}
	if f.answerRegexp != "" {
		re, err := regexp.Compile(f.answerRegexp)
		if err != nil {
			return usageError("--answer-regexp: %v", err)
		}
		a.answerRe = re
	}
	for _, m := range f.managed {
		if name, desc, ok := strings.Cut(m, ":"); !ok || name == "" || strings.TrimSpace(desc) == "" {
			return usageError("--managed must be NAME:DESCRIPTION, not %q", m)
		}
	}
	return nil
}

// OpenAuditLog opens the file of --audit-log for appending and returns a
// logger of JSON lines to it, and the function that closes it; without
// the flag, a nil logger. Its errors are usage errors.
func (a *AgentFlags) OpenAuditLog() (*slog.Logger, func() error, error) {
	if a.f.auditLog == "" {
		return nil, func() error { return nil }, nil
	}
	file, err := os.OpenFile(a.f.auditLog, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, usageError("--audit-log: %v", err)
	}
	return slog.New(slog.NewJSONHandler(file, &slog.HandlerOptions{Level: slog.LevelInfo})), file.Close, nil
}

// Budget is the budget of a run that --max-total-tokens, --max-cost and
// --prices describe (Check reads the prices).
func (a *AgentFlags) Budget() starlarkagent.Budget {
	return starlarkagent.Budget{MaxTotalTokens: a.f.maxTotalTokens, MaxCost: a.f.maxCost, Prices: a.prices}
}

// MaxSteps is the value of --max-steps.
func (a *AgentFlags) MaxSteps() int { return a.f.maxSteps }

// Imports is the value of --imports.
func (a *AgentFlags) Imports() []string { return slices.Clone(a.f.imports) }

// Executor returns the executor flags.
func (a *AgentFlags) Executor() *ExecutorFlags { return &a.f.exec }

// Tools returns the tool flags.
func (a *AgentFlags) Tools() *ToolFlags { return &a.f.tools }

// NewModel returns the model the flags choose. It is built once; a
// recording is read once and each call returns a new player of it, so
// that concurrent runs each replay the whole session. Its errors are
// usage errors.
func (a *AgentFlags) NewModel() (providers.Model, error) {
	a.modelOnce.Do(func() {
		m, err := newModel(a.f)
		if err != nil {
			a.modelErr = err
			return
		}
		if rm, ok := m.(*replay.Model); ok {
			name := a.f.replayFile
			if name == "" {
				name = a.f.modelID
				if _, n, ok := strings.Cut(a.f.model, ":"); ok && a.f.model != "" {
					name = n
				}
			}
			a.exchanges, err = readRecording(name)
			if err != nil {
				a.modelErr = usageError("%v", err)
				return
			}
			a.model = rm
			return
		}
		a.model = m
	})
	if a.modelErr != nil {
		return nil, a.modelErr
	}
	if a.exchanges != nil {
		return replay.New(a.exchanges, a.model.(*replay.Model).ModelID()), nil
	}
	return a.model, nil
}

// readRecording reads the exchanges of a recording.
func readRecording(name string) ([]replay.Exchange, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	defer f.Close()
	ex, err := replay.Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if ex == nil {
		ex = []replay.Exchange{}
	}
	return ex, nil
}

// AgentConfig is what NewAgent needs besides the flags.
type AgentConfig struct {
	// Model writes the actions (required): from NewModel, possibly
	// wrapped (by a recorder, by metrics).
	Model providers.Model
	// Tools are given to the agent (and its managed agents).
	Tools []tool.Tool
	// Imports are authorized in addition to --imports.
	Imports []string
	// Limits bound each execution; the zero value means the defaults.
	Limits executors.Limits
	// Stdout receives what the code prints as it prints it, when the
	// executor streams it; nil drops it.
	Stdout io.Writer
	Logger *slog.Logger
	Tracer trace.Tracer
	// StepCallbacks are added to the agent's (not its managed agents').
	StepCallbacks []starlarkagent.StepCallback
	// Approver decides the calls --require-approval names (run: the
	// terminal; serve gives each run its own).
	Approver starlarkagent.Approver
	// AuditLogger receives the audit trail (OpenAuditLog).
	AuditLogger *slog.Logger
	// Configure, when set, may change the options last.
	Configure func(*starlarkagent.Options) error
	// Owner names who owns the sandboxes the executors start (serve: the
	// replica and the run), as router.Config.Owner.
	Owner map[string]string
}

// NewAgent builds an agent from the flags, with an executor of its own
// (and one for each managed agent). Close the agent to close them. Errors
// from the flags are usage errors (*ExitError with Code 2); an error of
// Configure is returned as it is.
func (a *AgentFlags) NewAgent(ctx context.Context, cfg AgentConfig) (*starlarkagent.Agent, error) {
	f := &a.f
	if a.answerRe == nil && f.answerRegexp != "" {
		if err := a.Check(); err != nil {
			return nil, err
		}
	}
	imports := slices.Concat(f.imports, cfg.Imports)
	var opened []executors.Executor
	fail := func(err error) (*starlarkagent.Agent, error) {
		for _, e := range opened {
			if e != nil {
				e.Close()
			}
		}
		return nil, err
	}
	// Each agent gets an executor of its own: a managed agent's code runs
	// while its manager's execution waits for it.
	openExecutor := func() (executors.Executor, error) {
		if f.exec.IsDefault() || f.actionType == starlarkagent.ActionToolCalling {
			return nil, nil // the agent's default, the local engine
		}
		e, err := f.exec.OpenOwned(cfg.Limits, imports, cfg.Stdout, cfg.Owner)
		if err != nil {
			return nil, usageError("%v", err)
		}
		opened = append(opened, e)
		return e, nil
	}
	executor, err := openExecutor()
	if err != nil {
		return fail(err)
	}
	opts := starlarkagent.Options{
		Executor:               executor,
		Model:                  cfg.Model,
		AuthorizedImports:      imports,
		Limits:                 cfg.Limits,
		MaxSteps:               f.maxSteps,
		PlanningInterval:       f.planEvery,
		Instructions:           f.instructions,
		ToolDiscoveryThreshold: f.discoverAbove,
		Logger:                 cfg.Logger,
		Tracer:                 cfg.Tracer,
		Tools:                  slices.Clip(cfg.Tools),
		ActionType:             f.actionType,
		StructuredOutputs:      f.structured,
		RequireApproval:        f.requireApproval,
		Budget:                 a.Budget(),
		AuditLogger:            cfg.AuditLogger,
		Compaction:             starlarkagent.Compaction{MaxContextTokens: f.maxContext},
		Approver:               cfg.Approver,
	}
	if f.markdown {
		opts.CodeBlockTags = starlarkagent.MarkdownCodeBlockTags
	}
	if f.answerRegexp != "" {
		re := a.answerRe
		opts.FinalAnswerChecks = append(opts.FinalAnswerChecks, func(_ context.Context, answer any, _ *starlarkagent.Memory) error {
			if s := answerText(answer); !re.MatchString(s) {
				return fmt.Errorf("it does not match the regular expression %s", re)
			}
			return nil
		})
	}
	var members []*starlarkagent.Agent
	for _, m := range f.managed {
		name, desc, ok := strings.Cut(m, ":")
		if !ok || strings.TrimSpace(desc) == "" {
			return fail(usageError("--managed must be NAME:DESCRIPTION, not %q", m))
		}
		sub := opts
		sub.Name, sub.Description, sub.ManagedAgents = name, strings.TrimSpace(desc), nil
		if sub.Executor, err = openExecutor(); err != nil {
			return fail(err)
		}
		member, err := starlarkagent.New(sub)
		if err != nil {
			for _, m := range members {
				m.Close()
			}
			return fail(usageError("--managed %s: %v", name, err))
		}
		if sub.Executor != nil {
			opened = opened[:len(opened)-1] // the member owns it now
		}
		members = append(members, member)
		opts.ManagedAgents = append(opts.ManagedAgents, member)
	}
	opts.StepCallbacks = append(opts.StepCallbacks, cfg.StepCallbacks...)
	closeMembers := func() {
		for _, m := range members {
			m.Close()
		}
	}
	if cfg.Configure != nil {
		if err := cfg.Configure(&opts); err != nil {
			closeMembers()
			return fail(err)
		}
	}
	agent, err := starlarkagent.New(opts)
	if err != nil {
		closeMembers()
		return fail(&ExitError{Code: 1, Err: err})
	}
	return agent, nil
}

// LoadAgent loads the agent saved in dir (see starlarkagent.Load) with the
// model, tools, limits, logger and tracer of cfg and the executor the
// flags choose; the other agent flags are ignored, the saved options rule.
// Every tool the saved agent names must be among cfg.Tools (the tool
// flags open them).
func (a *AgentFlags) LoadAgent(dir string, cfg AgentConfig) (*starlarkagent.Agent, error) {
	f := &a.f
	var executor executors.Executor
	if !f.exec.IsDefault() {
		e, err := f.exec.OpenOwned(cfg.Limits, slices.Concat(f.imports, cfg.Imports), cfg.Stdout, cfg.Owner)
		if err != nil {
			return nil, usageError("%v", err)
		}
		executor = e
	}
	agent, err := starlarkagent.Load(dir, starlarkagent.LoadOptions{
		Model: cfg.Model, Tools: cfg.Tools, Executor: executor,
		StepCallbacks: cfg.StepCallbacks, Logger: cfg.Logger, Tracer: cfg.Tracer,
		// Governance is the operator's, never the saved agent's.
		RequireApproval: f.requireApproval, Approver: cfg.Approver, Budget: a.Budget(),
		Compaction: starlarkagent.Compaction{MaxContextTokens: f.maxContext}, AuditLogger: cfg.AuditLogger,
	})
	if err != nil {
		if executor != nil {
			executor.Close()
		}
		return nil, usageError("--agent: %v", err)
	}
	return agent, nil
}
