package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"
	"sync"
	"time"

	"github.com/star-agent/star-agent/providers"
)

// Recorder wraps a Model and appends every exchange to W as one JSON line
// (see the package documentation for the format). Calls are serialized
// only while writing; a recording is replayable when the calls it records
// happen one at a time, as in an agent run (a managed agent's calls fall
// between its manager's).
//
// A Recorder is a providers.StreamingModel whatever it wraps: if the
// wrapped model cannot stream, GenerateStream yields its whole answer as
// one delta.
type Recorder struct {
	// Model is the model whose exchanges are recorded.
	Model providers.Model
	// W receives the JSON lines. Each line is written with a single Write.
	W io.Writer
	// Normalize is applied to message contents before they are hashed and
	// stored; nil means the package's Normalize. Use the same function when
	// replaying.
	Normalize func(string) string
	// Now returns the current time; nil means time.Now.
	Now func() time.Time

	mu sync.Mutex
	n  int
}

// NewRecorder returns a Recorder writing m's exchanges to w.
func NewRecorder(m providers.Model, w io.Writer) *Recorder {
	return &Recorder{Model: m, W: w}
}

// ModelID returns the wrapped model's id.
func (r *Recorder) ModelID() string { return r.Model.ModelID() }

// Generate calls the wrapped model and records the exchange. If the answer
// cannot be recorded, the error is returned, since a recording with a hole
// would not replay.
func (r *Recorder) Generate(ctx context.Context, msgs []providers.Message, opts providers.GenerateOptions) (*providers.Message, error) {
	start := r.now()
	msg, err := r.Model.Generate(ctx, msgs, opts)
	if ctx.Err() != nil && err != nil {
		return nil, err // cancelled by the caller: not the model's behaviour
	}
	var content string
	var usage *providers.Usage
	var calls []providers.ToolCall
	if msg != nil {
		content, usage, calls = msg.Content, msg.Usage, msg.ToolCalls
	}
	if werr := r.record(start, msgs, opts, content, calls, usage, err); werr != nil {
		return nil, errors.Join(err, werr)
	}
	return msg, err
}

// GenerateStream streams from the wrapped model, passing every delta on,
// and records the exchange when the stream ends: its content is what was
// passed on, its usage the last usage seen.
func (r *Recorder) GenerateStream(ctx context.Context, msgs []providers.Message, opts providers.GenerateOptions) iter.Seq2[providers.Delta, error] {
	sm, ok := r.Model.(providers.StreamingModel)
	if !ok {
		return func(yield func(providers.Delta, error) bool) {
			msg, err := r.Generate(ctx, msgs, opts)
			if err != nil {
				yield(providers.Delta{}, err)
				return
			}
			yield(providers.Delta{Content: msg.Content, ToolCalls: msg.ToolCalls, Usage: msg.Usage}, nil)
		}
	}
	return func(yield func(providers.Delta, error) bool) {
		start := r.now()
		var b strings.Builder
		var usage *providers.Usage
		var calls []providers.ToolCall
		var streamErr error
		stopped := false
		for d, err := range sm.GenerateStream(ctx, msgs, opts) {
			if err != nil {
				streamErr = err
				break
			}
			b.WriteString(d.Content)
			if d.Usage != nil {
				usage = d.Usage
			}
			calls = append(calls, d.ToolCalls...)
			if !yield(d, nil) {
				stopped = true
				break
			}
		}
		if streamErr != nil && ctx.Err() != nil {
			yield(providers.Delta{}, streamErr)
			return
		}
		werr := r.record(start, msgs, opts, b.String(), calls, usage, streamErr)
		if stopped {
			return
		}
		if err := errors.Join(streamErr, werr); err != nil {
			yield(providers.Delta{}, err)
		}
	}
}

func (r *Recorder) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// record writes one exchange.
func (r *Recorder) record(start time.Time, msgs []providers.Message, opts providers.GenerateOptions, content string, calls []providers.ToolCall, usage *providers.Usage, callErr error) error {
	norm := r.Normalize
	if norm == nil {
		norm = Normalize
	}
	e := Exchange{
		Version:        FormatVersion,
		Time:           start.UTC(),
		Model:          r.Model.ModelID(),
		Messages:       len(msgs),
		MessagesSHA256: Hash(msgs, norm),
		Stop:           opts.StopSequences,
		Content:        content,
		ToolCalls:      calls,
		Usage:          usage,
		DurationMS:     r.now().Sub(start).Milliseconds(),
	}
	if len(msgs) > 0 {
		last := msgs[len(msgs)-1]
		e.Last = providers.Message{Role: last.Role, Content: norm(last.Content), ToolCallID: last.ToolCallID}
		e.LastImages = ImageDigests(last.Images)
	}
	if callErr != nil {
		e.Content = ""
		e.ToolCalls = nil
		e.Error = callErr.Error()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
	e.N = r.n
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("replay: record exchange %d: %w", e.N, err)
	}
	if _, err := r.W.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("replay: record exchange %d: %w", e.N, err)
	}
	return nil
}
