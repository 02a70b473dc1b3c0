package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	sa "github.com/star-agent/star-agent/starlarkagent"
)

// stepPrinter prints a streamed run for people: each step as it ends, or
// with --stream the model's output as it arrives and then the rest of the
// step.
type stepPrinter struct {
	w        io.Writer
	stream   bool
	inStep   bool // model output of a step is being streamed
	streamed int  // step number whose header has been printed
	text     strings.Builder
	// imageDir receives the images of observations ("" : not saved).
	imageDir string
}

// saveImages writes the images of a step's observation to p.imageDir,
// named by content hash, and says where.
func (p *stepPrinter) saveImages(st *sa.ActionStep) {
	if p.imageDir == "" || len(st.ObservationImages) == 0 {
		return
	}
	if err := os.MkdirAll(p.imageDir, 0o755); err != nil {
		fmt.Fprintf(p.w, "Images not saved: %v\n", err)
		return
	}
	for _, img := range st.ObservationImages {
		sum := sha256.Sum256(img.Data)
		ext := strings.TrimPrefix(img.MIMEType, "image/")
		if ext == "jpeg" {
			ext = "jpg"
		}
		name := filepath.Join(p.imageDir, hex.EncodeToString(sum[:8])+"."+ext)
		if err := os.WriteFile(name, img.Data, 0o644); err != nil {
			fmt.Fprintf(p.w, "Image not saved: %v\n", err)
			continue
		}
		fmt.Fprintf(p.w, "Image (%s, %d bytes) saved to %s\n", img.MIMEType, len(img.Data), name)
	}
}

func (p *stepPrinter) event(ev sa.Event) {
	switch ev := ev.(type) {
	case *sa.ModelDelta:
		if !p.stream {
			return
		}
		if !p.inStep {
			if ev.Step == 0 {
				fmt.Fprintln(p.w, "━━━ Model ━━━")
			} else {
				fmt.Fprintf(p.w, "━━━ Step %d ━━━\n", ev.Step)
			}
			p.inStep, p.streamed = true, ev.Step
			p.text.Reset()
		}
		p.text.WriteString(ev.Content)
		io.WriteString(p.w, ev.Content)
	case *sa.StepEnd:
		if p.stream && p.inStep {
			p.inStep = false
			// The server stops at the closing tag and drops it; the step
			// has it back: show what the model wrote, exactly.
			if st, ok := ev.Step.(*sa.ActionStep); ok {
				io.WriteString(p.w, closing(p.text.String(), st.ModelOutput))
			}
			fmt.Fprintln(p.w)
			if st, ok := ev.Step.(*sa.ActionStep); ok {
				p.afterStream(st)
				p.saveImages(st)
				return
			}
			if _, ok := ev.Step.(*sa.PlanningStep); ok {
				return
			}
		}
		sa.PrintStep(p.w, withoutFatalError(ev.Step))
		if st, ok := ev.Step.(*sa.ActionStep); ok {
			p.saveImages(st)
		}
	case *sa.RunEnd:
		res := ev.Result
		n := actionSteps(res)
		steps := "steps"
		if n == 1 {
			steps = "step"
		}
		fmt.Fprintf(p.w, "━━━ %s ━━━ [%d %s | %s | input tokens: %d | output tokens: %d]\n",
			stateTitle(res), n, steps, res.Timing.Duration().Round(100_000),
			res.TokenUsage.InputTokens, res.TokenUsage.OutputTokens)
		if res.State == sa.StateBudgetExceeded && res.Output != nil {
			fmt.Fprintf(p.w, "Answer so far: %s\n", answerText(res.Output))
		}
		// The run's error is reported once, by the command on stderr.
	}
}

// withoutFatalError returns an action step whose error ended the run (a
// model or executor failure) without that error: the command reports it.
func withoutFatalError(s sa.Step) sa.Step {
	st, ok := s.(*sa.ActionStep)
	if !ok || st.Error == nil || (st.Error.Kind != sa.ErrorModel && st.Error.Kind != sa.ErrorExecutor) {
		return s
	}
	c := *st
	c.Error = nil
	return &c
}

// afterStream prints what streaming did not show: the step's outcome.
func (p *stepPrinter) afterStream(st *sa.ActionStep) {
	var b strings.Builder
	for _, c := range st.ToolCalls {
		if len(st.ModelToolCalls) > 0 {
			break // the observation shows each call with its answer
		}
		fmt.Fprintf(&b, "Tool call: %s\n", c.PythonCall())
	}
	if st.Observation != "" {
		b.WriteString(strings.TrimRight(st.Observation, "\n"))
		b.WriteString("\n")
	}
	if st.Error != nil && (st.Error.Kind == sa.ErrorModel || st.Error.Kind == sa.ErrorExecutor) {
		// reported once, by the command
	} else if st.Error != nil && st.Error.Kind != sa.ErrorParse {
		fmt.Fprintf(&b, "Error: %s\n", st.Error.Message)
	} else if st.Error != nil {
		b.WriteString("Error: no code block found in the model's output.\n")
	}
	fmt.Fprintf(&b, "[step %d: %s | input tokens: %d | output tokens: %d]\n", st.Number,
		st.Timing.Duration().Round(100_000), st.Usage.InputTokens, st.Usage.OutputTokens)
	io.WriteString(p.w, b.String())
}

func stateTitle(res *sa.RunResult) string {
	switch res.State {
	case sa.StateSuccess:
		return "Run succeeded"
	case sa.StateMaxSteps:
		return "Run reached max steps"
	case sa.StateBudgetExceeded:
		return "Run stopped: budget spent"
	}
	return "Run failed"
}

func actionSteps(res *sa.RunResult) int {
	n := 0
	for _, s := range res.Steps {
		if _, ok := s.(*sa.ActionStep); ok {
			n++
		}
	}
	return n
}

// closing is what the step's output adds after the streamed text: the
// closing tag the server stopped at.
func closing(streamed, output string) string {
	if streamed == "" {
		return ""
	}
	if rest, ok := strings.CutPrefix(output, streamed); ok {
		return rest
	}
	trimmed := strings.TrimRight(streamed, " \t\n")
	rest, ok := strings.CutPrefix(output, trimmed)
	if !ok {
		return ""
	}
	if strings.HasSuffix(streamed, "\n") {
		rest = strings.TrimLeft(rest, "\n")
	}
	return rest
}
