package starlarkagent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"reflect"
	"regexp"
	"slices"
	"sync"

	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/prompts"
	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/tool"
)

// DefaultMaxSteps is the step budget of a run when Options.MaxSteps is 0.
const DefaultMaxSteps = 20

// DefaultToolDiscoveryThreshold is the number of tools beyond which an
// agent lists its tools instead of showing their stubs, when
// Options.ToolDiscoveryThreshold is 0.
const DefaultToolDiscoveryThreshold = 30

// The action types of Options.ActionType.
const (
	// ActionCode: the model writes its actions as Python code, which the
	// executor runs; tools are functions the code calls.
	ActionCode = "code"
	// ActionToolCalling: the model calls the tools with its native tool
	// calls (providers.GenerateOptions.Tools); no code runs.
	ActionToolCalling = "tool_calling"
)

// Options configure an Agent. Only Model is required.
type Options struct {
	// Model writes the agent's actions.
	Model providers.Model
	// ActionType is how the model acts: ActionCode (the default, "") or
	// ActionToolCalling. A tool-calling agent offers its tools, its
	// managed agents and final_answer(answer) as native tools; the calls
	// of one answer run concurrently and each result goes back to the
	// model as a tool message. It has no executor: Executor,
	// AuthorizedImports, Limits and CodeBlockTags are
	// ignored, and AdditionalArgs are only shown in the task.
	ActionType string
	// MaxToolThreads bounds the tool calls of one step a tool-calling
	// agent runs at once (default 8). At most MaxToolCallsPerStep calls of
	// one answer run; the others are answered with an error.
	MaxToolThreads int
	// Tools are callable from the code, positionally, by keyword or with
	// one dict of arguments (see tool.Bind). final_answer is always
	// provided. Several calls can run at once with parallel().
	Tools []tool.Tool
	// RequireApproval names the tools whose calls wait for Approver's
	// decision, with path.Match patterns ("delete_*", "*" for every
	// tool); a tool whose Spec.RequiresApproval is set waits too. The
	// names are those the code calls: MCP tools and managed agents
	// included.
	RequireApproval []string
	// Approver decides the calls that need approval (see Approver);
	// RunOptions.Approver replaces it for one run, and a managed agent
	// without one uses its manager's. With none, such calls are denied.
	Approver Approver
	// Compaction keeps each prompt within a context budget (see
	// Compaction); the zero value compacts past three quarters of the
	// model's known context window.
	Compaction Compaction
	// Budget caps the tokens and the cost of each run (see Budget);
	// RunOptions.Budget replaces it for one run, and a managed agent
	// draws from its manager's.
	Budget Budget
	// ToolDiscoveryThreshold is the number of tools beyond which the
	// system prompt stops showing every tool's stub: it lists the tools by
	// group (tool.Spec.Group) with a one-line summary, or less when that is
	// still too long, and the code gets search_tools(query) and
	// help(tool) to read the stubs it needs. 0 means
	// DefaultToolDiscoveryThreshold; a negative value always shows every
	// stub.
	ToolDiscoveryThreshold int
	// ManagedAgents are agents this one may call like tools, by their
	// names; each must have a Name and a Description.
	ManagedAgents []*Agent
	// Executor runs the code. When nil, the agent runs it in the local
	// Starlark engine, configured from AuthorizedImports and Limits. The
	// agent closes its executor in Close.
	Executor executors.Executor
	// AuthorizedImports are modules code may import in addition to
	// executors.DefaultAuthorizedImports. They configure the default
	// executor and are listed in the system prompt.
	AuthorizedImports []string
	// Limits bound each execution of the default executor; give the same
	// Limits to an Executor of your own. Limits.MaxOutput also caps the
	// printed output the model reads per step, in characters (default
	// 50,000): it reads the head and the tail of a longer output, with one
	// marker counting what was dropped in between.
	Limits executors.Limits
	// MaxPrintOutput is the old name of Limits.MaxOutput, which it sets
	// when Limits.MaxOutput is zero.
	//
	// Deprecated: set Limits.MaxOutput.
	MaxPrintOutput int
	// MaxSteps is the number of action steps a run may take (default 20).
	// When it runs out, one last model call writes the answer from memory.
	MaxSteps int
	// PlanningInterval, when positive, makes the agent write a plan before
	// the first step and update it every PlanningInterval steps.
	PlanningInterval int
	// Instructions are appended to the system prompt.
	Instructions string
	// StepCallbacks are called at the end of each step, in order, with the
	// step (*PlanningStep, *ActionStep or *FinalAnswerStep).
	StepCallbacks []StepCallback
	// OnStep are callbacks by step type (KindPlanning, KindAction,
	// KindFinalAnswer), called after StepCallbacks with the agent too. A
	// callback may read the agent (Memory, Name, ...) but not run it.
	OnStep map[StepKind][]StepHook
	// FinalAnswerChecks must all accept a final answer for the run to end
	// with it; a rejection becomes the step's error, which the model reads.
	FinalAnswerChecks []FinalAnswerCheck
	// CodeBlockTags delimit code in the model's output; the zero value means
	// DefaultCodeBlockTags ("<code>", "</code>"). Use MarkdownCodeBlockTags
	// for markdown fences.
	CodeBlockTags [2]string
	// Name and Description identify the agent: in traces and logs, and to
	// a manager, which calls it by Name. Name must be a Python identifier;
	// it defaults to "agent".
	Name        string
	Description string
	// ProvideRunSummary makes the agent, when managed, append a summary of
	// its steps to the report it returns to its manager.
	ProvideRunSummary bool
	// StructuredOutputs makes the model answer JSON {"thought", "code"}
	// (GenerateOptions.ResponseSchema) where the provider supports it; an
	// answer that is not such JSON is read as usual.
	StructuredOutputs bool
	// Prompts replaces the prompt templates; nil means prompts.Default().
	Prompts *prompts.Set
	// Logger receives the agent's logs; nil discards them.
	Logger *slog.Logger
	// AuditLogger, when set, receives the audit trail (see AuditRecord):
	// one Info line per tool call and per approval decision, whatever
	// Logger's level. Without it the lines go to Logger.
	AuditLogger *slog.Logger
	// Tracer starts the agent's OpenTelemetry spans; nil traces nothing.
	Tracer trace.Tracer
}

// StepCallback is called when a step ends. ctx is the run's context.
type StepCallback func(ctx context.Context, step Step)

// StepHook is a callback of Options.OnStep: the step that ended, and the
// agent whose step it is.
type StepHook func(ctx context.Context, step Step, agent *Agent)

// FinalAnswerCheck accepts (nil) or rejects (an error saying why) the
// answer the code passed to final_answer. mem is the agent's memory so far.
type FinalAnswerCheck func(ctx context.Context, answer any, mem *Memory) error

// Agent is a code agent, or a tool-calling agent (Options.ActionType). Its methods are safe for concurrent use, but runs
// of one Agent are serialised: one Agent has one memory and one executor.
// Create one Agent per concurrent task.
type Agent struct {
	names    map[string]bool // what the code's namespace gives the agent's names and tools
	model    providers.Model
	exec     executors.Executor
	managed  []*Agent
	opts     Options
	parser   codeParser
	prompts  *prompts.Set
	system   string
	toolSpec []tool.Spec
	listing  toolListing // set in discovery mode
	log      *slog.Logger
	tracer   trace.Tracer
	name     string

	// For ActionToolCalling: the tools by name (instrumented) and their
	// definitions for the model, final_answer last.
	toolCalling bool
	callable    map[string]tool.Tool
	toolDefs    []providers.ToolDefinition

	mu     sync.Mutex // held during a run
	memMu  sync.Mutex // guards memory writes, and reads by other goroutines
	memory Memory

	closeOnce sync.Once
	closeErr  error
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// New returns an Agent configured by opts.
func New(opts Options) (*Agent, error) {
	if opts.Model == nil {
		return nil, errors.New("starlarkagent: Options.Model is required")
	}
	if opts.Limits.MaxOutput == 0 && opts.MaxPrintOutput > 0 {
		// One road for limits: the old field is a name of the new one.
		opts.Limits.MaxOutput = opts.MaxPrintOutput
	}
	a := &Agent{model: opts.Model, opts: opts, managed: opts.ManagedAgents}
	switch opts.ActionType {
	case "", ActionCode:
	case ActionToolCalling:
		a.toolCalling = true
	default:
		return nil, fmt.Errorf("starlarkagent: action type %q is neither %q nor %q", opts.ActionType, ActionCode, ActionToolCalling)
	}
	a.name = opts.Name
	if a.name == "" {
		a.name = "agent"
	}
	if !identifier.MatchString(a.name) {
		return nil, fmt.Errorf("starlarkagent: agent name %q is not a Python identifier", a.name)
	}
	if opts.MaxSteps < 0 || opts.PlanningInterval < 0 || opts.MaxPrintOutput < 0 || opts.MaxToolThreads < 0 {
		return nil, errors.New("starlarkagent: MaxSteps, PlanningInterval, MaxPrintOutput and MaxToolThreads must not be negative")
	}
	if err := checkApprovalPatterns(opts.RequireApproval); err != nil {
		return nil, err
	}
	tags := opts.CodeBlockTags
	if tags == [2]string{} {
		tags = DefaultCodeBlockTags
	}
	if tags[0] == "" || tags[1] == "" {
		return nil, errors.New("starlarkagent: CodeBlockTags must both be set")
	}
	a.prompts = opts.Prompts
	if a.prompts == nil {
		a.prompts = prompts.Default()
	}
	a.log = opts.Logger
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	a.log = a.log.With("agent", a.name)
	a.tracer = opts.Tracer
	if a.tracer == nil {
		a.tracer = noop.NewTracerProvider().Tracer("")
	}

	// Tools, managed agents and final_answer share one namespace.
	seen := map[string]bool{"final_answer": true}
	// A tool-calling model gets every tool's definition natively.
	discovery := !a.toolCalling && len(opts.Tools) > discoveryThreshold(opts.ToolDiscoveryThreshold)
	if discovery {
		seen[searchToolsName], seen[helpName] = true, true
	}
	var tools []tool.Tool
	var own []tool.Spec
	for _, t := range opts.Tools {
		spec := t.Spec()
		if spec.Name != searchToolsName && spec.Name != helpName && tool.IsReserved(spec.Name) {
			return nil, fmt.Errorf("starlarkagent: tool name %q is reserved: the code's %s is the agent's own; give the tool another name", spec.Name, spec.Name)
		}
		if seen[spec.Name] {
			if discovery && (spec.Name == searchToolsName || spec.Name == helpName) {
				return nil, fmt.Errorf("starlarkagent: tool name %q is reserved when the agent has more tools than its ToolDiscoveryThreshold", spec.Name)
			}
			return nil, fmt.Errorf("starlarkagent: tool name %q is used twice or reserved", spec.Name)
		}
		seen[spec.Name] = true
		tools = append(tools, instrument(t, a))
		own = append(own, spec)
	}
	a.toolSpec = append(a.toolSpec, own...)
	var team []prompts.Agent
	var teamSpecs []tool.Spec
	for _, m := range opts.ManagedAgents {
		if m == nil || m == a {
			return nil, errors.New("starlarkagent: a managed agent is nil or the agent itself")
		}
		if m.opts.Description == "" {
			return nil, fmt.Errorf("starlarkagent: managed agent %q needs a Description", m.name)
		}
		if seen[m.name] {
			return nil, fmt.Errorf("starlarkagent: managed agent name %q is already used", m.name)
		}
		if !a.toolCalling && sameExecutor(opts.Executor, m.exec) {
			// The member's code would run inside the manager's execution,
			// which waits for the member: a deadlock until the timeout.
			return nil, fmt.Errorf("starlarkagent: managed agent %q uses the manager's Executor: give each agent an executor of its own", m.name)
		}
		seen[m.name] = true
		mt := m.AsTool()
		tools = append(tools, instrument(mt, a))
		teamSpecs = append(teamSpecs, mt.Spec())
		team = append(team, prompts.Agent{Name: m.name, Description: m.opts.Description})
	}
	a.names = seen
	shown := append(slices.Clone(a.toolSpec), finalAnswerSpec)
	if discovery {
		all := slices.Concat(own, teamSpecs, []tool.Spec{finalAnswerSpec})
		search, help := searchTool{specs: own}, newHelpTool(append(all, searchToolSpec, helpSpec))
		tools = append(tools, instrument(search, a), instrument(help, a))
		a.toolSpec = append(a.toolSpec, searchToolSpec, helpSpec)
		shown = []tool.Spec{searchToolSpec, helpSpec, finalAnswerSpec}
		a.listing.text, a.listing.detail = prompts.ListTools(own, 0)
		a.listing.count = len(own)
	}
	a.listing.shown = shown
	a.listing.parallel = len(tools) > 0
	a.toolSpec = append(a.toolSpec, finalAnswerSpec)

	if a.toolCalling {
		if err := a.setupToolCalling(tools, team); err != nil {
			return nil, err
		}
		return a, nil
	}

	imports := executors.NewImportPolicy(opts.AuthorizedImports, nil).Authorized
	system, err := a.prompts.Render(prompts.SystemPrompt, a.withTools(prompts.Data{
		ManagedAgents:     team,
		AuthorizedImports: imports,
		CodeOpen:          tags[0],
		CodeClose:         tags[1],
		Instructions:      opts.Instructions,
	}))
	if err != nil {
		return nil, fmt.Errorf("starlarkagent: %w", err)
	}
	a.system = system
	a.memory = Memory{System: SystemPromptStep{SystemPrompt: system}, prompts: a.prompts}

	a.exec = opts.Executor
	if a.exec == nil {
		if a.exec, err = defaultExecutor(opts); err != nil {
			return nil, fmt.Errorf("starlarkagent: %w", err)
		}
	}
	// Bare code in an output is accepted only when the executor can tell
	// that it is Python.
	var check func(string) error
	if sc, ok := a.exec.(executors.SyntaxChecker); ok {
		check = sc.CheckSyntax
	}
	a.parser = newCodeParser(tags, check)
	// New takes no context; executors start their sandbox at the first
	// Execute, so this usually talks to none.
	if err := a.exec.SetTools(context.Background(), tools); err != nil {
		a.exec.Close()
		return nil, fmt.Errorf("starlarkagent: set tools: %w", err)
	}
	return a, nil
}

// toolListing is how the prompts show the tools.
type toolListing struct {
	shown    []tool.Spec // the tools whose stubs are shown
	text     string      // in discovery mode, the listing of the others
	detail   string      // and its detail (prompts.ListSummaries, ...)
	count    int         // the number of tools listed
	parallel bool        // the code has tools to call with parallel()
}

// withTools fills the tool fields of prompt data.
func (a *Agent) withTools(d prompts.Data) prompts.Data {
	d.Tools = a.listing.shown
	d.ToolListing, d.ListDetail, d.ToolCount = a.listing.text, a.listing.detail, a.listing.count
	d.Parallel = a.listing.parallel
	return d
}

// discoveryThreshold is the number of tools past which an agent is in
// discovery mode (Options.ToolDiscoveryThreshold).
func discoveryThreshold(n int) int {
	switch {
	case n == 0:
		return DefaultToolDiscoveryThreshold
	case n < 0:
		return math.MaxInt
	}
	return n
}

// sameExecutor reports whether a and b are one executor.
func sameExecutor(a, b executors.Executor) bool {
	if a == nil || b == nil || reflect.TypeOf(a) != reflect.TypeOf(b) || !reflect.TypeOf(a).Comparable() {
		return false
	}
	return a == b
}

// finalAnswerSpec documents final_answer, which every executor provides.
var finalAnswerSpec = tool.Spec{
	Name:        "final_answer",
	Description: "Provides a final answer to the given problem, and ends the task.",
	Inputs:      []tool.Input{{Name: "answer", Type: tool.Any, Description: "The final answer to the problem"}},
	Output:      tool.Any,
}

// Name returns the agent's name.
func (a *Agent) Name() string { return a.name }

// Description returns the agent's description.
func (a *Agent) Description() string { return a.opts.Description }

// SystemPrompt returns the system prompt rendered for this agent.
func (a *Agent) SystemPrompt() string { return a.system }

// Tools returns the specs of the tools the code may call, final_answer last.
func (a *Agent) Tools() []tool.Spec { return slices.Clone(a.toolSpec) }

// Memory returns a copy of the agent's memory: its system prompt and the
// steps of its runs so far, including those of a run in progress (it may
// be called from a step callback). Steps are shared with the agent; do not
// modify them.
func (a *Agent) Memory() *Memory {
	a.memMu.Lock()
	defer a.memMu.Unlock()
	return &Memory{System: a.memory.System, Steps: slices.Clone(a.memory.Steps), prompts: a.prompts}
}

// appendStep adds a step to memory.
func (a *Agent) appendStep(s Step) {
	a.memMu.Lock()
	defer a.memMu.Unlock()
	a.memory.Steps = append(a.memory.Steps, s)
}

// SetMemory replaces the agent's memory, for instance with one read back
// from JSON, so that a run with Resume continues it. The system prompt of
// m is kept if set.
func (a *Agent) SetMemory(m *Memory) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.memMu.Lock()
	defer a.memMu.Unlock()
	a.memory = Memory{System: m.System, Steps: slices.Clone(m.Steps), prompts: a.prompts}
	if a.memory.System.SystemPrompt == "" {
		a.memory.System.SystemPrompt = a.system
	}
}

// Close releases the agent's executor and those of its managed agents.
// It waits for a run in progress to end; cancel its context first.
func (a *Agent) Close() error {
	a.closeOnce.Do(func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		var errs []error
		if a.exec != nil {
			errs = append(errs, a.exec.Close())
		}
		for _, m := range a.managed {
			errs = append(errs, m.Close())
		}
		a.closeErr = errors.Join(errs...)
	})
	return a.closeErr
}
