package starlarkagent

import (
	"strings"

	"github.com/star-agent/star-agent/prompts"
	"github.com/star-agent/star-agent/providers"
)

// promptText renders one of the texts of messages.tmpl (see prompts.Task and
// the names after it). prompts.Parse has rendered every template of the
// set once, so an error here is a custom template that fails on some
// values only: the default wording is used then, rather than leaving the
// model without its message.
func promptText(p *prompts.Set, name string, data prompts.Data) string {
	if p == nil {
		p = prompts.Default()
	}
	s, err := p.RenderExact(name, data)
	if err != nil {
		s, _ = prompts.Default().RenderExact(name, data)
	}
	return s
}

func (s *SystemPromptStep) messages(*prompts.Set) []providers.Message {
	if s.SystemPrompt == "" {
		return nil
	}
	return []providers.Message{{Role: providers.RoleSystem, Content: s.SystemPrompt}}
}

func (s *TaskStep) messages(p *prompts.Set) []providers.Message {
	return []providers.Message{{Role: providers.RoleUser, Content: taskText(p, s.Task, s.AdditionalArgs), Images: s.Images}}
}

// taskText is the task as the model reads it, with the additional
// arguments listed after it.
func taskText(p *prompts.Set, task string, args map[string]any) string {
	data := prompts.Data{Task: task}
	if len(args) > 0 {
		data.AdditionalArgs = pyRepr(args)
	}
	return promptText(p, prompts.Task, data)
}

func (s *PlanningStep) messages(p *prompts.Set) []providers.Message {
	return []providers.Message{
		{Role: providers.RoleAssistant, Content: strings.TrimSpace(s.Plan)},
		{Role: providers.RoleUser, Content: promptText(p, prompts.AfterPlan, prompts.Data{})},
	}
}

func (s *ActionStep) messages(p *prompts.Set) []providers.Message {
	if len(s.ModelToolCalls) > 0 {
		return s.toolMessages(p)
	}
	var msgs []providers.Message
	if out := strings.TrimSpace(s.ModelOutput); out != "" {
		msgs = append(msgs, providers.Message{Role: providers.RoleAssistant, Content: out})
	}
	data := prompts.Data{Observation: s.Observation}
	// An interrupted step was not the model's doing: it reads what the
	// code printed, not a reproach.
	if s.Error != nil && s.Error.Kind != ErrorInterrupted {
		data.Error = s.Error.Message
	}
	feedback := promptText(p, prompts.StepFeedback, data)
	if s.Notice != "" {
		feedback = strings.TrimRight(feedback, "\n") + "\n\n" + s.Notice
	}
	if feedback != "" || len(s.ObservationImages) > 0 {
		msgs = append(msgs, providers.Message{Role: providers.RoleUser, Content: feedback, Images: s.ObservationImages})
	}
	return msgs
}

func (s *FinalAnswerStep) messages(*prompts.Set) []providers.Message { return nil }

// toolMessages renders a tool-calling step: the model's calls, one tool
// message answering each, and the step's error if any.
func (s *ActionStep) toolMessages(p *prompts.Set) []providers.Message {
	msgs := []providers.Message{{Role: providers.RoleAssistant, Content: strings.TrimSpace(s.ModelOutput), ToolCalls: s.ModelToolCalls}}
	for i, c := range s.ModelToolCalls {
		var text string
		if i < len(s.ToolCalls) && s.ToolCalls[i].ID == c.ID {
			text = toolResultText(p, s.ToolCalls[i])
		} else {
			text = promptText(p, prompts.ToolError, prompts.Data{Error: "the call did not run: the run was interrupted"})
		}
		msgs = append(msgs, providers.Message{Role: providers.RoleTool, ToolCallID: c.ID, Content: text})
	}
	// Tool messages carry text only with most providers: the images the
	// calls returned follow in a user message.
	if len(s.ObservationImages) > 0 {
		msgs = append(msgs, providers.Message{Role: providers.RoleUser, Images: s.ObservationImages,
			Content: promptText(p, prompts.ToolImages, prompts.Data{})})
	}
	if s.Error != nil && s.Error.Kind != ErrorInterrupted {
		msgs = append(msgs, providers.Message{Role: providers.RoleUser, Content: s.Error.Message})
	}
	if s.Notice != "" {
		msgs = append(msgs, providers.Message{Role: providers.RoleUser, Content: s.Notice})
	}
	return msgs
}
