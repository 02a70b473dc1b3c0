package starlarkagent

import (
	"context"
	"strings"

	"github.com/star-agent/star-agent/prompts"
	"github.com/star-agent/star-agent/tool"
)

// AsTool returns the agent as a tool another agent's code can call as
// name(task, additional_args=None). The call runs the agent on the task
// (wrapped in the managed-agent prompt, memory reset) with the caller's
// context, adds its token usage to the caller's step, and returns its
// report: the final answer, and with Options.ProvideRunSummary a summary of
// its steps. Agents given in Options.ManagedAgents are wrapped this way.
func (a *Agent) AsTool() tool.Tool { return managedTool{a} }

type managedTool struct{ a *Agent }

// Spec implements tool.Tool.
func (m managedTool) Spec() tool.Spec {
	return tool.Spec{
		Name:        m.a.name,
		Description: m.a.opts.Description,
		Inputs: []tool.Input{
			{Name: "task", Type: tool.String, Description: "Long, detailed description of the task."},
			{Name: "additional_args", Type: tool.Object, Nullable: true,
				Description: "Values to hand to the team member, such as data or file names."},
		},
		Output: tool.String,
	}
}

// Call implements tool.Tool.
func (m managedTool) Call(ctx context.Context, args map[string]any) (any, error) {
	a := m.a
	task, _ := args["task"].(string)
	extra, _ := args["additional_args"].(map[string]any)
	full, err := a.prompts.Render(prompts.ManagedAgentTask, prompts.Data{Name: a.name, Task: task})
	if err != nil {
		return nil, err
	}
	res, err := a.Run(ctx, full, RunOptions{AdditionalArgs: extra})
	if s := scopeFrom(ctx); s != nil {
		s.addManaged(res.TokenUsage)
	}
	if err != nil {
		return nil, &memberError{msg: promptText(a.prompts, prompts.ManagedAgentFailed, prompts.Data{Name: a.name, Error: err.Error()}), err: err}
	}
	report, err := a.prompts.Render(prompts.ManagedAgentReply, prompts.Data{Name: a.name, FinalAnswer: pyStr(res.Output)})
	if err != nil {
		return nil, err
	}
	if a.opts.ProvideRunSummary {
		report += promptText(a.prompts, prompts.RunSummary, prompts.Data{Steps: summary(a.prompts, res.Steps)})
	}
	return report, nil
}

// memberError is a team member's failure as its manager's code sees it,
// wrapping the error of the member's run.
type memberError struct {
	msg string
	err error
}

func (e *memberError) Error() string { return e.msg }
func (e *memberError) Unwrap() error { return e.err }

// summary sums up what each action step did, for a manager to read.
func summary(p *prompts.Set, steps []Step) []prompts.StepSummary {
	var out []prompts.StepSummary
	for _, s := range steps {
		st, ok := s.(*ActionStep)
		if !ok {
			continue
		}
		code := st.Code
		if len(st.ModelToolCalls) > 0 { // a tool-calling member: its calls as Python
			var calls []string
			for _, c := range st.ToolCalls {
				calls = append(calls, c.PythonCall())
			}
			code = strings.Join(calls, "\n")
		}
		sum := prompts.StepSummary{Number: st.Number, Code: code, Observation: truncate(p, st.Observation, 2000)}
		if st.Error != nil {
			sum.Error = truncate(p, st.Error.Message, 2000)
		}
		out = append(out, sum)
	}
	return out
}

// team describes the managed agents to the prompts.
func (a *Agent) team() []prompts.Agent {
	var out []prompts.Agent
	for _, m := range a.managed {
		out = append(out, prompts.Agent{Name: m.name, Description: m.opts.Description})
	}
	return out
}
