package starlarkagent

import (
	"strings"

	"github.com/star-agent/star-agent/providers"
)

// These texts frame memory for the model. They are smolagents' wording,
// which its users' prompts and recordings rely on.
const (
	taskPrefix       = "New task:\n"
	argsNote         = "\nYou have been provided with these additional arguments, that you can access directly using the keys as variables:\n"
	observationLabel = "Observation:\n"
	errorLabel       = "Error:\n"
	retryNudge       = "\nNow let's retry: take care not to repeat previous errors! If you have retried several times, try a completely different approach.\n"
	proceedWithPlan  = "Now proceed and carry out this plan."
	initialPlanIntro = "Here are the facts I know and the plan of action that I will follow to solve the task:\n```\n"
	updatedPlanIntro = "I still need to solve the task I was given:\n```\n%s\n```\n\nHere are the facts I know and my new/updated plan of action to solve the task:\n```\n"
)

func (s *SystemPromptStep) messages() []providers.Message {
	if s.SystemPrompt == "" {
		return nil
	}
	return []providers.Message{{Role: providers.RoleSystem, Content: s.SystemPrompt}}
}

func (s *TaskStep) messages() []providers.Message {
	return []providers.Message{{Role: providers.RoleUser, Content: taskText(s.Task, s.AdditionalArgs)}}
}

// taskText is the task as the model reads it, with the additional
// arguments listed after it.
func taskText(task string, args map[string]any) string {
	if len(args) == 0 {
		return taskPrefix + task
	}
	return taskPrefix + task + argsNote + pyRepr(args)
}

func (s *PlanningStep) messages() []providers.Message {
	return []providers.Message{
		{Role: providers.RoleAssistant, Content: strings.TrimSpace(s.Plan)},
		{Role: providers.RoleUser, Content: proceedWithPlan},
	}
}

func (s *ActionStep) messages() []providers.Message {
	var msgs []providers.Message
	if out := strings.TrimSpace(s.ModelOutput); out != "" {
		msgs = append(msgs, providers.Message{Role: providers.RoleAssistant, Content: out})
	}
	var b strings.Builder
	if s.Observation != "" {
		b.WriteString(observationLabel)
		b.WriteString(s.Observation)
	}
	if s.Error != nil && s.Error.Kind != ErrorInterrupted {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(errorLabel)
		b.WriteString(s.Error.Message)
		b.WriteString(retryNudge)
	}
	if b.Len() > 0 {
		msgs = append(msgs, providers.Message{Role: providers.RoleUser, Content: b.String()})
	}
	return msgs
}

func (s *FinalAnswerStep) messages() []providers.Message { return nil }
