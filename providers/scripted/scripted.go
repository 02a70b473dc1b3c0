// Package scripted provides test doubles for providers.Model: a Model that
// returns responses given in advance, in order, and a Func adapter for
// models computed by a function (an instant model for benchmarks, a model
// that inspects its input).
//
// They are for tests of code that drives a model, such as the agent loop.
// They do not imitate a language model beyond what such code relies on:
// stop sequences end the text (the stop sequence itself is dropped, as real
// servers do), the context is honoured, every response carries Usage, and
// streaming splits the text into several deltas with Usage on the last.
package scripted

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/providers/internal/textstream"
)

// ErrExhausted is returned (wrapped) when a Model is asked for more
// responses than it was given.
var ErrExhausted = errors.New("scripted: no responses left")

// Response is one scripted answer.
type Response struct {
	// Content is the text the model answers with. It is cut at the first
	// stop sequence of the call, like a real server does.
	Content string
	// Usage is reported with the response. When nil, an estimate is used:
	// one token per four bytes of input and of output, rounded up.
	Usage *providers.Usage
	// Err, when set, is returned instead of a message (wrapped, so
	// errors.Is works).
	Err error
	// Delay is waited before answering, in addition to Model.Delay. The
	// wait ends early, with the context's error, if ctx is done.
	Delay time.Duration
	// ToolCalls are native tool calls the answer carries. A call whose ID
	// is empty gets "call_<n>_<i>". A Model refuses a request carrying
	// calls of tools it was not offered, like a strict server.
	ToolCalls []providers.ToolCall
}

// Call records one request a Model received.
type Call struct {
	Messages []providers.Message
	Options  providers.GenerateOptions
}

// Model returns its Responses in order, one per call. It is safe for
// concurrent use; concurrent callers each take the next response.
type Model struct {
	// ID is returned by ModelID; "scripted" when empty.
	ID string
	// Responses are returned in order.
	Responses []Response
	// Delay is waited before every response.
	Delay time.Duration
	// Loop starts again at the first response when the last one has been
	// used, instead of failing with ErrExhausted.
	Loop bool
	// IgnoreStop makes the Model answer past the stop sequences, as some
	// servers do, so that the caller's own cutting is tested.
	IgnoreStop bool

	mu    sync.Mutex
	next  int
	calls []Call
}

// New returns a Model that answers with the given contents, in order.
func New(contents ...string) *Model {
	m := &Model{}
	for _, c := range contents {
		m.Responses = append(m.Responses, Response{Content: c})
	}
	return m
}

// ModelID implements providers.Model.
func (m *Model) ModelID() string {
	if m.ID == "" {
		return "scripted"
	}
	return m.ID
}

// Calls returns a copy of the requests received so far, in order.
func (m *Model) Calls() []Call {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Call(nil), m.calls...)
}

// Remaining reports how many responses have not been used since the start
// (or, for a looping Model, since it last wrapped around).
func (m *Model) Remaining() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.Responses) - m.next
}

// take records the call and returns the next response and its 1-based
// number.
func (m *Model) take(msgs []providers.Message, opts providers.GenerateOptions) (Response, int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls = append(m.calls, Call{
		Messages: append([]providers.Message(nil), msgs...),
		Options:  opts,
	})
	n := len(m.calls)
	if m.next >= len(m.Responses) {
		if !m.Loop || len(m.Responses) == 0 {
			return Response{}, n, fmt.Errorf("scripted: call %d: %w (%d given)", n, ErrExhausted, len(m.Responses))
		}
		m.next = 0
	}
	r := m.Responses[m.next]
	m.next++
	return r, n, nil
}

// Generate implements providers.Model.
func (m *Model) Generate(ctx context.Context, msgs []providers.Message, opts providers.GenerateOptions) (*providers.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("scripted: %w", err)
	}
	r, n, err := m.take(msgs, opts)
	if err != nil {
		return nil, err
	}
	if err := sleep(ctx, m.Delay+r.Delay); err != nil {
		return nil, fmt.Errorf("scripted: call %d: %w", n, err)
	}
	if r.Err != nil {
		return nil, fmt.Errorf("scripted: call %d: %w", n, r.Err)
	}
	if err := Check(msgs, opts); err != nil {
		return nil, fmt.Errorf("scripted: call %d: %w", n, err)
	}
	if m.IgnoreStop {
		opts.StopSequences = nil
	}
	msg := respond(msgs, opts, r)
	for i, c := range r.ToolCalls {
		if !offered(opts.Tools, c.Name) {
			return nil, fmt.Errorf("scripted: call %d: response calls tool %q, which the request did not offer", n, c.Name)
		}
		if c.ID == "" {
			c.ID = fmt.Sprintf("call_%d_%d", n, i)
		}
		msg.ToolCalls = append(msg.ToolCalls, c)
	}
	return msg, nil
}

func offered(tools []providers.ToolDefinition, name string) bool {
	for _, t := range tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// Check validates a request the way a strict OpenAI-compatible server
// does: every assistant tool call has an ID and JSON object arguments and
// is answered by exactly one following tool message before the next
// assistant or user turn; every tool message answers a pending call; tool
// definitions have unique names and object schemas; images have a known
// MIME type and data.
func Check(msgs []providers.Message, opts providers.GenerateOptions) error {
	names := map[string]bool{}
	for _, t := range opts.Tools {
		if t.Name == "" || names[t.Name] {
			return fmt.Errorf("tool definition name %q is empty or repeated", t.Name)
		}
		names[t.Name] = true
		if typ, _ := t.Parameters["type"].(string); typ != "object" {
			return fmt.Errorf("tool %q: parameters must be an object schema, got type %v", t.Name, t.Parameters["type"])
		}
	}
	pending := map[string]bool{}
	for i, m := range msgs {
		for _, img := range m.Images {
			switch img.MIMEType {
			case "image/png", "image/jpeg", "image/gif", "image/webp":
			default:
				return fmt.Errorf("message %d: image MIME type %q is not supported", i, img.MIMEType)
			}
			if len(img.Data) == 0 {
				return fmt.Errorf("message %d: image without data", i)
			}
		}
		switch m.Role {
		case providers.RoleTool:
			if !pending[m.ToolCallID] {
				return fmt.Errorf("message %d: tool message answers %q, which is no pending tool call", i, m.ToolCallID)
			}
			delete(pending, m.ToolCallID)
			continue
		case providers.RoleSystem, providers.RoleUser, providers.RoleAssistant:
		default:
			return fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
		if len(pending) > 0 {
			return fmt.Errorf("message %d (%s): tool calls %v were not answered", i, m.Role, keys(pending))
		}
		if len(m.ToolCalls) > 0 && m.Role != providers.RoleAssistant {
			return fmt.Errorf("message %d: a %s message carries tool calls", i, m.Role)
		}
		for _, c := range m.ToolCalls {
			if c.ID == "" || pending[c.ID] {
				return fmt.Errorf("message %d: tool call ID %q is empty or repeated", i, c.ID)
			}
			var args map[string]any
			if err := json.Unmarshal(c.Arguments, &args); err != nil {
				return fmt.Errorf("message %d: arguments of tool call %q are not a JSON object: %v", i, c.ID, err)
			}
			pending[c.ID] = true
		}
	}
	if len(pending) > 0 {
		return fmt.Errorf("tool calls %v were not answered", keys(pending))
	}
	return nil
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// GenerateStream implements providers.StreamingModel. The response is
// delivered in chunks of a few words; the last delta carries Usage.
func (m *Model) GenerateStream(ctx context.Context, msgs []providers.Message, opts providers.GenerateOptions) iter.Seq2[providers.Delta, error] {
	return func(yield func(providers.Delta, error) bool) {
		msg, err := m.Generate(ctx, msgs, opts)
		if err != nil {
			yield(providers.Delta{}, err)
			return
		}
		if len(msg.ToolCalls) == 0 {
			textstream.Yield(ctx, msg.Content, *msg.Usage, yield)
			return
		}
		// The tool calls come complete with the last delta.
		var last providers.Delta
		textstream.Yield(ctx, msg.Content, *msg.Usage, func(d providers.Delta, err error) bool {
			if err != nil || d.Usage == nil {
				return yield(d, err)
			}
			last = d
			return true
		})
		if last.Usage != nil {
			last.ToolCalls = msg.ToolCalls
			yield(last, nil)
		}
	}
}

// Func adapts a function to providers.StreamingModel. It is the cheapest
// possible model: no locking, no copying of the conversation.
type Func func(ctx context.Context, msgs []providers.Message, opts providers.GenerateOptions) (*providers.Message, error)

// ModelID implements providers.Model.
func (f Func) ModelID() string { return "scripted-func" }

// Generate implements providers.Model by calling f.
func (f Func) Generate(ctx context.Context, msgs []providers.Message, opts providers.GenerateOptions) (*providers.Message, error) {
	return f(ctx, msgs, opts)
}

// GenerateStream implements providers.StreamingModel by calling f and
// streaming its answer in chunks.
func (f Func) GenerateStream(ctx context.Context, msgs []providers.Message, opts providers.GenerateOptions) iter.Seq2[providers.Delta, error] {
	return func(yield func(providers.Delta, error) bool) {
		msg, err := f(ctx, msgs, opts)
		if err != nil {
			yield(providers.Delta{}, err)
			return
		}
		var u providers.Usage
		if msg.Usage != nil {
			u = *msg.Usage
		}
		textstream.Yield(ctx, msg.Content, u, yield)
	}
}

// respond builds the message for r, applying the stop sequences.
func respond(msgs []providers.Message, opts providers.GenerateOptions, r Response) *providers.Message {
	content := Cut(r.Content, opts.StopSequences)
	usage := r.Usage
	if usage == nil {
		in := 0
		for _, m := range msgs {
			in += len(m.Content)
		}
		usage = &providers.Usage{InputTokens: (in + 3) / 4, OutputTokens: (len(content) + 3) / 4}
	} else {
		u := *usage
		usage = &u
	}
	return &providers.Message{Role: providers.RoleAssistant, Content: content, Usage: usage}
}

// Cut returns s up to, not including, the earliest of the stop sequences,
// the way a server ends generation at a stop sequence.
func Cut(s string, stop []string) string {
	end := len(s)
	for _, seq := range stop {
		if seq == "" {
			continue
		}
		if i := strings.Index(s[:end], seq); i >= 0 {
			end = i
		}
	}
	return s[:end]
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
