package starlarkagent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/prompts"
	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/tool"
)

// AgentFile is the name of the file Save writes in its directory.
const AgentFile = "agent.json"

// agentFileVersion is the version of AgentFile's format.
const agentFileVersion = 1

// savedAgent is the content of AgentFile: what an agent is, not what it
// did (its memory is saved with encoding/json separately).
type savedAgent struct {
	Version     int    `json:"version"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Model is the ModelID of the model; Load takes the model itself.
	Model      string `json:"model"`
	ActionType string `json:"action_type"`
	// Tools are the agent's own tools, by name; Load binds them again to
	// the tools it is given.
	Tools []savedTool `json:"tools"`
	// ManagedAgents are saved in managed_agents/<name>/.
	ManagedAgents          []string          `json:"managed_agents,omitempty"`
	MaxSteps               int               `json:"max_steps,omitempty"`
	PlanningInterval       int               `json:"planning_interval,omitempty"`
	Instructions           string            `json:"instructions,omitempty"`
	AuthorizedImports      []string          `json:"authorized_imports,omitempty"`
	Limits                 savedLimits       `json:"limits,omitzero"`
	MaxPrintOutput         int               `json:"max_print_output,omitempty"`
	ToolDiscoveryThreshold int               `json:"tool_discovery_threshold,omitempty"`
	CodeBlockTags          *[2]string        `json:"code_block_tags,omitempty"`
	ProvideRunSummary      bool              `json:"provide_run_summary,omitempty"`
	StructuredOutputs      bool              `json:"structured_outputs,omitempty"`
	MaxToolThreads         int               `json:"max_tool_threads,omitempty"`
	Prompts                map[string]string `json:"prompts"`
}

// savedTool names a tool, and the group (an MCP server's name) it came
// from, for a reader to know where to find it again.
type savedTool struct {
	Name        string `json:"name"`
	Group       string `json:"group,omitempty"`
	Description string `json:"description,omitempty"`
}

// savedLimits are executors.Limits with readable durations.
type savedLimits struct {
	MaxSteps  uint64 `json:"max_steps,omitempty"`
	Timeout   string `json:"timeout,omitempty"`
	MaxMemory int64  `json:"max_memory,omitempty"`
	MaxOutput int    `json:"max_output,omitempty"`
	MaxDepth  int    `json:"max_depth,omitempty"`
	MaxValue  int64  `json:"max_value,omitempty"`
}

// Save writes the agent to dir (created if needed): AgentFile, a readable
// JSON file with its options, its rendered prompts (for reading: custom
// prompt templates are not saved, pass them to Load again), its model's ID
// and its tools' names, and each managed agent in
// dir/managed_agents/<name>/. The executor, the model, the tools
// themselves, callbacks, checks, logger and tracer are not saved: Load
// takes them. Save does not save memory; encode Memory() with
// encoding/json for that.
func (a *Agent) Save(dir string) error {
	o := a.opts
	s := savedAgent{
		Version: agentFileVersion, Name: a.name, Description: o.Description, Model: a.model.ModelID(),
		ActionType: ActionCode, MaxSteps: o.MaxSteps, PlanningInterval: o.PlanningInterval,
		Instructions: o.Instructions, AuthorizedImports: o.AuthorizedImports,
		MaxPrintOutput: o.MaxPrintOutput, ToolDiscoveryThreshold: o.ToolDiscoveryThreshold,
		ProvideRunSummary: o.ProvideRunSummary, StructuredOutputs: o.StructuredOutputs,
		MaxToolThreads: o.MaxToolThreads,
		Tools:          []savedTool{},
		Prompts:        map[string]string{"system_prompt": a.system},
	}
	if a.toolCalling {
		s.ActionType = ActionToolCalling
	}
	if o.CodeBlockTags != ([2]string{}) {
		tags := o.CodeBlockTags
		s.CodeBlockTags = &tags
	}
	l := o.Limits
	s.Limits = savedLimits{MaxSteps: l.MaxOperations, MaxMemory: l.MaxMemory, MaxOutput: l.MaxOutput, MaxDepth: l.MaxDepth, MaxValue: l.MaxValue}
	if l.Timeout != 0 {
		s.Limits.Timeout = l.Timeout.String()
	}
	for _, t := range o.Tools {
		spec := t.Spec()
		s.Tools = append(s.Tools, savedTool{Name: spec.Name, Group: spec.Group, Description: firstLine(spec.Description)})
	}
	for _, m := range a.managed {
		s.ManagedAgents = append(s.ManagedAgents, m.name)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("starlarkagent: save: %w", err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return fmt.Errorf("starlarkagent: save: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, AgentFile), b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("starlarkagent: save: %w", err)
	}
	for _, m := range a.managed {
		if err := m.Save(filepath.Join(dir, "managed_agents", m.name)); err != nil {
			return err
		}
	}
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// LoadOptions give Load what a saved agent does not hold.
type LoadOptions struct {
	// Model writes the actions (required). Its ID need not be the saved
	// one; a different one is logged.
	Model providers.Model
	// ManagedModels, by managed agent name, override Model for managed
	// agents (at any depth).
	ManagedModels map[string]providers.Model
	// Tools are bound by name to the saved tool names: each saved name
	// must be among them; the others are left out.
	Tools []tool.Tool
	// Executor runs the code of the top agent (managed agents get the
	// default executor); nil means the default.
	Executor executors.Executor
	// Prompts replaces the default templates, as Options.Prompts.
	Prompts *prompts.Set
	// StepCallbacks, FinalAnswerChecks, Logger and Tracer are as in
	// Options, for the top agent.
	StepCallbacks     []StepCallback
	FinalAnswerChecks []FinalAnswerCheck
	Logger            *slog.Logger
	Tracer            trace.Tracer
	// RequireApproval, Compaction and AuditLogger are as in Options, for
	// every agent loaded (managed ones too); Approver and Budget for the
	// top agent, whose managed agents use its own. None of them is saved.
	RequireApproval []string
	Compaction      Compaction
	AuditLogger     *slog.Logger
	Approver        Approver
	Budget          Budget
}

// Load reads an agent Save wrote in dir and returns it, with its managed
// agents, ready to run.
func Load(dir string, lo LoadOptions) (*Agent, error) {
	return load(dir, lo, true)
}

func load(dir string, lo LoadOptions, top bool) (*Agent, error) {
	b, err := os.ReadFile(filepath.Join(dir, AgentFile))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("starlarkagent: load: %s has no %s: is it a directory Agent.Save wrote?", dir, AgentFile)
		}
		return nil, fmt.Errorf("starlarkagent: load: %w", err)
	}
	var s savedAgent
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("starlarkagent: load %s: %w", filepath.Join(dir, AgentFile), err)
	}
	if s.Version != agentFileVersion {
		return nil, fmt.Errorf("starlarkagent: load %s: format version %d, want %d", dir, s.Version, agentFileVersion)
	}
	model := lo.Model
	if m, ok := lo.ManagedModels[s.Name]; ok && !top {
		model = m
	}
	if model == nil {
		return nil, fmt.Errorf("starlarkagent: load %s: the agent was saved with model %q: give LoadOptions.Model", dir, s.Model)
	}
	o := Options{
		Model: model, Name: s.Name, Description: s.Description, ActionType: s.ActionType,
		MaxSteps: s.MaxSteps, PlanningInterval: s.PlanningInterval, Instructions: s.Instructions,
		AuthorizedImports: s.AuthorizedImports, MaxPrintOutput: s.MaxPrintOutput,
		ToolDiscoveryThreshold: s.ToolDiscoveryThreshold, ProvideRunSummary: s.ProvideRunSummary,
		StructuredOutputs: s.StructuredOutputs, MaxToolThreads: s.MaxToolThreads, Prompts: lo.Prompts,
	}
	if s.CodeBlockTags != nil {
		o.CodeBlockTags = *s.CodeBlockTags
	}
	l := s.Limits
	o.Limits = executors.Limits{MaxOperations: l.MaxSteps, MaxMemory: l.MaxMemory, MaxOutput: l.MaxOutput, MaxDepth: l.MaxDepth, MaxValue: l.MaxValue}
	if l.Timeout != "" {
		if o.Limits.Timeout, err = time.ParseDuration(l.Timeout); err != nil {
			return nil, fmt.Errorf("starlarkagent: load %s: limits.timeout: %w", dir, err)
		}
	}
	given := map[string]tool.Tool{}
	for _, t := range lo.Tools {
		given[t.Spec().Name] = t
	}
	for _, st := range s.Tools {
		t, ok := given[st.Name]
		if !ok {
			from := ""
			if st.Group != "" {
				from = fmt.Sprintf(" (from %s)", st.Group)
			}
			return nil, fmt.Errorf("starlarkagent: load %s: the agent uses tool %q%s: give it in LoadOptions.Tools", dir, st.Name, from)
		}
		o.Tools = append(o.Tools, t)
	}
	o.RequireApproval, o.Compaction, o.AuditLogger = lo.RequireApproval, lo.Compaction, lo.AuditLogger
	if top {
		o.Executor, o.StepCallbacks, o.FinalAnswerChecks, o.Logger, o.Tracer = lo.Executor, lo.StepCallbacks, lo.FinalAnswerChecks, lo.Logger, lo.Tracer
		o.Approver, o.Budget = lo.Approver, lo.Budget
	}
	for _, name := range s.ManagedAgents {
		if !identifier.MatchString(name) {
			return nil, fmt.Errorf("starlarkagent: load %s: managed agent name %q is not an identifier", dir, name)
		}
		m, err := load(filepath.Join(dir, "managed_agents", name), lo, false)
		if err != nil {
			for _, done := range o.ManagedAgents {
				done.Close()
			}
			return nil, err
		}
		o.ManagedAgents = append(o.ManagedAgents, m)
	}
	a, err := New(o)
	if err != nil {
		for _, m := range o.ManagedAgents {
			m.Close()
		}
		return nil, fmt.Errorf("starlarkagent: load %s: %w", dir, err)
	}
	if model.ModelID() != s.Model {
		a.log.Info("loaded agent runs on another model than it was saved with", "saved", s.Model, "model", model.ModelID())
	}
	return a, nil
}
