// Package prompts holds the templates from which star-agent builds what a
// model reads: the system prompt of a code agent, the planning prompts, the
// task and report wrappers of a managed agent, and the final-answer prompts
// used when an agent runs out of steps.
//
// The templates are text/template files embedded in the binary, kept as
// readable prose rather than strings in code: every text a model reads
// comes from them, down to the framing of each observation and error
// (messages.tmpl). A Set can be parsed from other files to replace any of
// them. Tools are rendered as Python function stubs with docstrings, which
// is how the model learns to call them.
package prompts

import (
	"embed"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"text/template"

	"github.com/star-agent/star-agent/tool"
)

//go:embed templates/*.tmpl
var embedded embed.FS

// Template names. A custom Set must define every one of them.
const (
	SystemPrompt      = "system.tmpl"
	InitialPlan       = "initial_plan.tmpl"
	UpdatePlanPre     = "update_plan_pre.tmpl"
	UpdatePlanPost    = "update_plan_post.tmpl"
	ManagedAgentTask  = "managed_agent_task.tmpl"
	ManagedAgentReply = "managed_agent_report.tmpl"
	FinalAnswerPre    = "final_answer_pre.tmpl"
	FinalAnswerPost   = "final_answer_post.tmpl"
	// ToolCallingSystemPrompt is the system prompt of a tool-calling
	// agent; the file also defines ToolError and NoToolCall.
	ToolCallingSystemPrompt = "tool_calling.tmpl"
)

// Names of the texts a tool-calling agent's model reads, defined in
// tool_calling.tmpl. Render them with RenderExact.
const (
	// ToolError is the answer of a tool call that failed: Error.
	ToolError = "tool_error"
	// NoToolCall tells the model its answer called no tool.
	NoToolCall = "no_tool_call"
	// ToolImages goes with the images the tool calls of a step returned.
	ToolImages = "tool_images"
)

// Names of the texts defined in messages.tmpl, which frame the agent's
// memory and observations. Render them with RenderExact.
const (
	// Task is a task as the model reads it: Task, and AdditionalArgs.
	Task = "task"
	// StepFeedback is the message the model reads after one of its
	// actions: Observation, and Error when the step failed.
	StepFeedback = "step_feedback"
	// Execution is the observation of code that ran: Logs, LastOutput
	// and Notes.
	Execution = "execution"
	// FailedExecution is the observation of code that raised: Logs and
	// Notes.
	FailedExecution = "failed_execution"
	// OutputTruncated marks where printed output was cut: Dropped, Head
	// and Tail.
	OutputTruncated = "output_truncated"
	// ValueTruncated marks where a long value was cut: MaxLength.
	ValueTruncated = "value_truncated"
	// ParseError tells the model its output held no code: ModelOutput,
	// CodeOpen and CodeClose.
	ParseError = "parse_error"
	// FinalAnswerRejected tells the model a check refused its answer:
	// Check, Answer and Reason.
	FinalAnswerRejected = "final_answer_rejected"
	// Plan frames the first plan the model wrote: Plan.
	Plan = "plan"
	// UpdatedPlan frames an updated plan: Task and Plan.
	UpdatedPlan = "updated_plan"
	// AfterPlan follows a plan in the conversation.
	AfterPlan = "after_plan"
	// RunSummary is appended to a managed agent's report when it provides
	// a summary of its run: Steps.
	RunSummary = "run_summary"
	// ManagedAgentFailed is the error a manager's code gets when a team
	// member's run fails: Name and Error.
	ManagedAgentFailed = "managed_agent_failed"
	// CompactionRequest asks the model to condense the oldest steps of a
	// long run: Task, Plan (the current plan, if any) and Steps.
	CompactionRequest = "compaction_request"
	// CompactedSteps is the summary as the model reads it in place of the
	// steps it condenses: First, Last and Summary.
	CompactedSteps = "compacted_steps"
)

var names = []string{SystemPrompt, InitialPlan, UpdatePlanPre, UpdatePlanPost,
	ManagedAgentTask, ManagedAgentReply, FinalAnswerPre, FinalAnswerPost,
	Task, StepFeedback, Execution, FailedExecution, OutputTruncated, ValueTruncated,
	ParseError, FinalAnswerRejected, Plan, UpdatedPlan, AfterPlan, RunSummary, ManagedAgentFailed,
	CompactionRequest, CompactedSteps,
	ToolCallingSystemPrompt, ToolError, NoToolCall, ToolImages}

// Set is a parsed set of prompt templates. It is safe for concurrent use.
type Set struct {
	t *template.Template
}

// Default returns the templates shipped with star-agent. The Set is parsed
// once and shared; it is never modified.
func Default() *Set { return defaultSet() }

var defaultSet = sync.OnceValue(func() *Set {
	s, err := Parse(embedded, "templates/*.tmpl")
	if err != nil {
		// The embedded templates are tested; failing here is a build defect.
		panic(err)
	}
	return s
})

// Parse reads templates matching pattern from fsys. Files are named as the
// constants of this package (system.tmpl, initial_plan.tmpl, ...); names
// missing from fsys are taken from the defaults, so a user can override just
// the system prompt. The texts of messages.tmpl are replaced one by one by
// {{define "name"}} blocks in any file. Every template is rendered once
// with sample data, so that one naming a field Data lacks is refused here
// rather than during a run.
func Parse(fsys fs.FS, pattern string) (*Set, error) {
	t := template.New("prompts").Funcs(template.FuncMap{
		"stub":      Stub,
		"join":      strings.Join,
		"indent":    indent,
		"hasSuffix": strings.HasSuffix,
	}).Option("missingkey=error")
	if fsys != fs.FS(embedded) {
		if _, err := t.ParseFS(embedded, "templates/*.tmpl"); err != nil {
			return nil, fmt.Errorf("prompts: default templates: %w", err)
		}
	}
	if _, err := t.ParseFS(fsys, pattern); err != nil {
		return nil, fmt.Errorf("prompts: %w", err)
	}
	for _, n := range names {
		if t.Lookup(n) == nil {
			return nil, fmt.Errorf("prompts: template %s is missing", n)
		}
	}
	set := &Set{t: t}
	for _, n := range names {
		if _, err := set.RenderExact(n, sample); err != nil {
			return nil, err
		}
	}
	return set, nil
}

// sample fills every field of Data, for Parse's check.
var sample = Data{
	Tools:       []tool.Spec{{Name: "final_answer", Description: "Ends the task.", Output: tool.Any}},
	ToolListing: "this agent's tools (1 tool): search\n", ToolCount: 1, ListDetail: ListNames, Parallel: true,
	ManagedAgents:     []Agent{{Name: "helper", Description: "Helps."}},
	AuthorizedImports: []string{"math"},
	CodeOpen:          "<code>", CodeClose: "</code>",
	Instructions: "Be brief.", Task: "Add 1 and 2.", RemainingSteps: 3, Name: "helper", FinalAnswer: "3",
	AdditionalArgs: "{'n': 1}", Observation: "Execution logs:\n", Error: "NameError: x",
	Logs: "3\n", LastOutput: "None", Notes: []string{"a note"},
	Dropped: 10, Head: 5, Tail: 5, MaxLength: 10,
	ModelOutput: "It is 3.", Check: 1, Answer: "'3'", Reason: "it is wrong",
	Plan:  "1. Add.",
	Steps: []StepSummary{{Number: 1, Code: "x = 1 + 2", Observation: "Execution logs:\n", Error: "NameError: x"}},
}

// Render executes the named template with data.
func (s *Set) Render(name string, data any) (string, error) {
	var b strings.Builder
	if err := s.t.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("prompts: render %s: %w", name, err)
	}
	return strings.TrimSpace(b.String()), nil
}

// RenderExact executes the named template with data and returns the text
// as written, spaces and newlines at its ends included. The texts of
// messages.tmpl are rendered this way.
func (s *Set) RenderExact(name string, data any) (string, error) {
	var b strings.Builder
	if err := s.t.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("prompts: render %s: %w", name, err)
	}
	return b.String(), nil
}

// Agent describes a managed agent to the manager's model.
type Agent struct {
	Name        string
	Description string
}

// Data is what the agent templates may refer to. Each template uses the
// fields that make sense for it.
type Data struct {
	// Tools are the tools the code may call, final_answer included.
	Tools []tool.Spec
	// ToolListing, when set, lists the agent's tools by group (see
	// ListTools) in place of their stubs: Tools then holds only the tools
	// always shown in full (search_tools, help, final_answer). ToolCount
	// is the number of tools listed, and ListDetail the detail of the
	// listing (ListSummaries, ListNames or ListCounts).
	ToolListing string
	ToolCount   int
	ListDetail  string
	// Parallel is set when the code may call parallel() to run several
	// tool calls at once.
	Parallel bool
	// ManagedAgents are the team members the code may call like tools.
	ManagedAgents []Agent
	// AuthorizedImports are the modules the code may import.
	AuthorizedImports []string
	// CodeOpen and CodeClose delimit a code block, e.g. "<code>" and "</code>".
	CodeOpen, CodeClose string
	// Instructions are the user's own, appended to the system prompt.
	Instructions string
	// Task is the task being solved.
	Task string
	// RemainingSteps is the number of steps left, for plan updates.
	RemainingSteps int
	// Name is the agent's name, for the managed-agent templates.
	Name string
	// FinalAnswer is a managed agent's answer, for its report.
	FinalAnswer string

	// AdditionalArgs are the values handed to the task, as a Python dict
	// ("" when there are none).
	AdditionalArgs string
	// Observation is what the model reads about an action that ran, and
	// Error why the action failed ("" when it did not).
	Observation, Error string
	// Logs is what code printed (as cut for the model), LastOutput the
	// value of its last expression, and Notes what the executor has to
	// say beyond the code's own output.
	Logs, LastOutput string
	Notes            []string
	// Dropped characters were cut from the middle of a printed output,
	// of which the first Head and the last Tail are kept.
	Dropped, Head, Tail int
	// MaxLength is the length a long value was cut to.
	MaxLength int
	// ModelOutput is a model output in which no code block was found.
	ModelOutput string
	// Check numbers, from 1, the final-answer check that rejected Answer
	// (as Python's repr shows it) for Reason.
	Check          int
	Answer, Reason string
	// Plan is the plan the model wrote.
	Plan string
	// Steps sum up the action steps of a managed agent's run, or those a
	// compaction condenses.
	Steps []StepSummary
	// First and Last number the steps a Summary condenses.
	First, Last int
	Summary     string
}

// StepSummary is one action step of a run, as a manager reads it.
type StepSummary struct {
	Number      int
	Code        string
	Observation string
	Error       string
}

func indent(prefix, s string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
