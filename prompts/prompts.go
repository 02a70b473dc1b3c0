// Package prompts holds the templates from which star-agent builds what a
// model reads: the system prompt of a code agent, the planning prompts, the
// task and report wrappers of a managed agent, and the final-answer prompts
// used when an agent runs out of steps.
//
// The templates are text/template files embedded in the binary, kept as
// readable prose rather than strings in code. A Set can be parsed from other
// files to replace any of them. Tools are rendered as Python function stubs
// with docstrings, which is how the model learns to call them.
package prompts

import (
	"embed"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"text/template"

	"github.com/star-agent/star-agent/starlarkagent/tool"
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
)

var names = []string{SystemPrompt, InitialPlan, UpdatePlanPre, UpdatePlanPost,
	ManagedAgentTask, ManagedAgentReply, FinalAnswerPre, FinalAnswerPost}

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
// the system prompt.
func Parse(fsys fs.FS, pattern string) (*Set, error) {
	t := template.New("prompts").Funcs(template.FuncMap{
		"stub":   Stub,
		"join":   strings.Join,
		"indent": indent,
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
	return &Set{t: t}, nil
}

// Render executes the named template with data.
func (s *Set) Render(name string, data any) (string, error) {
	var b strings.Builder
	if err := s.t.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("prompts: render %s: %w", name, err)
	}
	return strings.TrimSpace(b.String()), nil
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
}

func indent(prefix, s string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
