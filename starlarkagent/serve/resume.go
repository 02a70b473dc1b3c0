package serve

import (
	"context"
	"encoding/json"
	"iter"
	"sync"

	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/starlarkagent"
)

// A run taken over from a server that died is resumed by replay, not
// redone: the agent starts again on the same task, and its first model
// calls are answered from the stored action steps, so that the code of
// those steps runs again and rebuilds the interpreter's state (the
// values the code computed, in variables) and the agent's memory; the
// events of the replayed steps are not sent again, since the stream has
// them. After the last stored step the model is asked for real. A
// completed model call is never asked again. The steps' records
// (starlarkagent.StepRecord) make the replay exact: the engine's clock
// and random readings are answered from them, and so are the tool calls
// that completed; a call that failed or was in flight when the server
// died is made again (at least once, with the same CallID), as is every
// call of a step stored without a record (by an older server).

// resumeState is what a resumed run replays.
type resumeState struct {
	attempt int64
	// answers are the model outputs of the stored action steps, in
	// order; steps is how many action steps they are.
	answers []replayAnswer
	// records are the steps' replay records (nil for a step stored
	// without one, by an older server): readings and tool results.
	records []*starlarkagent.StepRecord
}

type replayAnswer struct {
	content string
	usage   providers.Usage
}

// replayAnswers reads the model outputs of stored action steps, and
// their replay records.
func replayAnswers(steps []json.RawMessage) ([]replayAnswer, []*starlarkagent.StepRecord) {
	var out []replayAnswer
	var records []*starlarkagent.StepRecord
	for _, d := range steps {
		var st struct {
			Type   string                    `json:"type"`
			Output string                    `json:"model_output"`
			Usage  providers.Usage           `json:"token_usage"`
			Replay *starlarkagent.StepRecord `json:"replay"`
		}
		if json.Unmarshal(d, &st) != nil || st.Type != "action" {
			continue
		}
		out = append(out, replayAnswer{st.Output, st.Usage})
		records = append(records, st.Replay)
	}
	return out, records
}

// replayModel answers the first calls from the record, then asks the
// model it wraps.
type replayModel struct {
	providers.Model
	mu      sync.Mutex
	answers []replayAnswer
}

func (m *replayModel) next() (replayAnswer, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.answers) == 0 {
		return replayAnswer{}, false
	}
	a := m.answers[0]
	m.answers = m.answers[1:]
	return a, true
}

func (m *replayModel) Generate(ctx context.Context, msgs []providers.Message, opts providers.GenerateOptions) (*providers.Message, error) {
	if a, ok := m.next(); ok {
		u := a.usage
		return &providers.Message{Role: providers.RoleAssistant, Content: a.content, Usage: &u}, nil
	}
	return m.Model.Generate(ctx, msgs, opts)
}

func (m *replayModel) GenerateStream(ctx context.Context, msgs []providers.Message, opts providers.GenerateOptions) iter.Seq2[providers.Delta, error] {
	if a, ok := m.next(); ok {
		return func(yield func(providers.Delta, error) bool) {
			u := a.usage
			yield(providers.Delta{Content: a.content, Usage: &u}, nil)
		}
	}
	if s, ok := m.Model.(providers.StreamingModel); ok {
		return s.GenerateStream(ctx, msgs, opts)
	}
	return func(yield func(providers.Delta, error) bool) {
		msg, err := m.Model.Generate(ctx, msgs, opts)
		if err != nil {
			yield(providers.Delta{}, err)
			return
		}
		yield(providers.Delta{Content: msg.Content, ToolCalls: msg.ToolCalls, Usage: msg.Usage}, nil)
	}
}
