package starlarkagent

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Replay prints the memory for people: the task, plans, each step's
// thought, code, output or error, token usage and duration, and the final
// answer.
func (m *Memory) Replay(w io.Writer) error {
	for _, s := range m.Steps {
		if err := PrintStep(w, s); err != nil {
			return err
		}
	}
	return nil
}

// PrintStep prints one step the way Replay does.
func PrintStep(w io.Writer, s Step) error {
	var b strings.Builder
	switch s := s.(type) {
	case *SystemPromptStep:
		rule(&b, "System prompt", "")
		b.WriteString(s.SystemPrompt)
		b.WriteString("\n")
	case *TaskStep:
		rule(&b, "New task", "")
		b.WriteString(s.Task)
		b.WriteString("\n")
		if len(s.AdditionalArgs) > 0 {
			b.WriteString("Additional arguments: ")
			b.WriteString(pyRepr(s.AdditionalArgs))
			b.WriteString("\n")
		}
	case *PlanningStep:
		rule(&b, "Plan", stats(s.Timing.Duration(), s.Usage.InputTokens, s.Usage.OutputTokens))
		b.WriteString(strings.TrimSpace(s.ModelOutput))
		b.WriteString("\n")
	case *SummaryStep:
		rule(&b, fmt.Sprintf("Summary of steps %d to %d", s.First, s.Last), stats(s.Timing.Duration(), s.Usage.InputTokens, s.Usage.OutputTokens))
		fmt.Fprintf(&b, "(prompt %d → %d tokens, estimated)\n", s.TokensBefore, s.TokensAfter)
		b.WriteString(strings.TrimSpace(s.Summary))
		b.WriteString("\n")
	case *ActionStep:
		rule(&b, fmt.Sprintf("Step %d", s.Number), stats(s.Timing.Duration(), s.Usage.InputTokens, s.Usage.OutputTokens))
		if t := thought(s); t != "" {
			b.WriteString(t)
			b.WriteString("\n")
		}
		if s.Code != "" {
			b.WriteString("Code:\n")
			b.WriteString(indentLines(s.Code, "  │ "))
			b.WriteString("\n")
		}
		// A tool-calling step's observation shows each call with its
		// answer; a code step's calls are listed before its output.
		for _, c := range s.ToolCalls {
			if len(s.ModelToolCalls) > 0 {
				break
			}
			fmt.Fprintf(&b, "Tool call: %s", clip(c.PythonCall(), 300))
			if c.Error != "" {
				fmt.Fprintf(&b, " failed: %s", c.Error)
			}
			b.WriteString("\n")
		}
		if s.Observation != "" {
			b.WriteString(strings.TrimRight(s.Observation, "\n"))
			b.WriteString("\n")
		}
		if s.Error != nil {
			if s.Error.Kind == ErrorParse && strings.HasPrefix(s.Error.Message, "Error: your answer called no tool") {
				b.WriteString("Error: no tool call in the model's output.\n")
			} else if s.Error.Kind == ErrorParse {
				b.WriteString("Error: no code block found in the model's output.\n")
			} else {
				b.WriteString("Error: ")
				b.WriteString(s.Error.Message)
				b.WriteString("\n")
			}
		}
		if s.Notice != "" {
			b.WriteString(s.Notice + "\n")
		}
	case *FinalAnswerStep:
		title := "Final answer"
		if s.FromMemory {
			title = "Final answer (written from memory: max steps reached)"
		}
		rule(&b, title, "")
		b.WriteString(pyStr(s.Output))
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func rule(b *strings.Builder, title, stats string) {
	b.WriteString("━━━ ")
	b.WriteString(title)
	b.WriteString(" ━━━")
	if stats != "" {
		b.WriteString(" ")
		b.WriteString(stats)
	}
	b.WriteString("\n")
}

func stats(d time.Duration, in, out int) string {
	return fmt.Sprintf("[%s | input tokens: %d | output tokens: %d]", d.Round(time.Microsecond*100), in, out)
}

// thought is the model's output before its code block.
func thought(s *ActionStep) string {
	out := s.ModelOutput
	if s.Code == "" {
		return strings.TrimSpace(out)
	}
	for _, open := range []string{"<code>", "```"} {
		if i := strings.Index(out, open); i >= 0 {
			out = out[:i]
		}
	}
	return strings.TrimSpace(out)
}

func indentLines(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}
