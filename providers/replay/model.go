package replay

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/providers/internal/textstream"
)

// Match says how much of a request must agree with the recording.
type Match int

const (
	// MatchLast compares the role and normalized content of the last
	// message: the task on the first call, the latest observation after.
	MatchLast Match = iota
	// MatchAll compares the hash of the whole normalized conversation,
	// catching changes to the system prompt, tools or earlier steps too.
	MatchAll
	// MatchOrder compares nothing: exchanges are returned in order.
	MatchOrder
)

// ErrMismatch is matched (with errors.Is) by every *MismatchError.
var ErrMismatch = errors.New("replay: run diverged from the recording")

// ErrExhausted is matched by the *MismatchError of a call made after the
// recording's last exchange.
var ErrExhausted = errors.New("replay: recording exhausted")

// MismatchError reports that a run asked for something the recording does
// not hold.
type MismatchError struct {
	// Exchange is the 1-based number of the call that diverged.
	Exchange int
	// Reason says what differed.
	Reason string
	// Want and Got are excerpts of the recorded and actual text around the
	// first difference (empty when the recording is exhausted).
	Want, Got string
	// Exhausted is set when the recording has no exchange Exchange.
	Exhausted bool
}

// Error implements error.
func (e *MismatchError) Error() string {
	if e.Exhausted {
		return fmt.Sprintf("replay: exchange %d: %s", e.Exchange, e.Reason)
	}
	return fmt.Sprintf("replay: exchange %d: %s\n  recorded: %q\n  got:      %q", e.Exchange, e.Reason, e.Want, e.Got)
}

// Is makes errors.Is(err, ErrMismatch) true, and errors.Is(err,
// ErrExhausted) true for an exhausted recording.
func (e *MismatchError) Is(target error) bool {
	return target == ErrMismatch || (e.Exhausted && target == ErrExhausted)
}

// Model plays a recording back: call n returns the content and usage of
// exchange n, after checking the request against it (see Match). It is a
// providers.StreamingModel; streaming delivers the recorded text in chunks
// with the usage on the last delta. Set the fields before the first call.
type Model struct {
	// ID is returned by ModelID; when empty, the model id of the first
	// exchange, or "replay" for an empty recording.
	ID string
	// Match chooses what is compared; the zero value is MatchLast.
	Match Match
	// Normalize is applied to the request's messages before comparing;
	// nil means the package's Normalize. It should be the function the
	// recording was made with.
	Normalize func(string) string

	exchanges []Exchange
	source    string

	mu   sync.Mutex
	next int
}

// New returns a Model playing the given exchanges. source names the
// recording in errors (a file name, say); it may be empty.
func New(exchanges []Exchange, source string) *Model {
	return &Model{exchanges: exchanges, source: source}
}

// Open reads the recording in the named file.
func Open(name string) (*Model, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	defer f.Close()
	ex, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return New(ex, name), nil
}

// ModelID implements providers.Model.
func (m *Model) ModelID() string {
	switch {
	case m.ID != "":
		return m.ID
	case len(m.exchanges) > 0 && m.exchanges[0].Model != "":
		return m.exchanges[0].Model
	}
	return "replay"
}

// Remaining reports how many exchanges have not been played yet.
func (m *Model) Remaining() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.exchanges) - m.next
}

// Generate implements providers.Model.
func (m *Model) Generate(ctx context.Context, msgs []providers.Message, opts providers.GenerateOptions) (*providers.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	e, err := m.take(msgs)
	if err != nil {
		return nil, err
	}
	if e.Error != "" {
		return nil, fmt.Errorf("replay: exchange %d: recorded error: %s", e.N, e.Error)
	}
	msg := &providers.Message{Role: providers.RoleAssistant, Content: e.Content, ToolCalls: slices.Clone(e.ToolCalls)}
	if e.Usage != nil {
		u := *e.Usage
		msg.Usage = &u
	}
	return msg, nil
}

// GenerateStream implements providers.StreamingModel.
func (m *Model) GenerateStream(ctx context.Context, msgs []providers.Message, opts providers.GenerateOptions) iter.Seq2[providers.Delta, error] {
	return func(yield func(providers.Delta, error) bool) {
		msg, err := m.Generate(ctx, msgs, opts)
		if err != nil {
			yield(providers.Delta{}, err)
			return
		}
		var u providers.Usage
		if msg.Usage != nil {
			u = *msg.Usage
		}
		if len(msg.ToolCalls) == 0 {
			textstream.Yield(ctx, msg.Content, u, yield)
			return
		}
		// The text streams first; the calls come whole with the usage, as
		// providers.Delta says.
		if msg.Content != "" && !yield(providers.Delta{Content: msg.Content}, nil) {
			return
		}
		yield(providers.Delta{ToolCalls: msg.ToolCalls, Usage: &u}, nil)
	}
}

// take checks msgs against the next exchange and consumes it. A request
// that does not match leaves the exchange in place.
func (m *Model) take(msgs []providers.Message) (Exchange, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.next + 1
	if m.next >= len(m.exchanges) {
		reason := fmt.Sprintf("recording exhausted: it holds %d exchanges", len(m.exchanges))
		if m.source != "" {
			reason = fmt.Sprintf("recording %s exhausted: it holds %d exchanges", m.source, len(m.exchanges))
		}
		return Exchange{}, &MismatchError{Exchange: n, Reason: reason, Exhausted: true}
	}
	e := m.exchanges[m.next]
	if err := m.check(n, e, msgs); err != nil {
		return Exchange{}, err
	}
	m.next++
	return e, nil
}

func (m *Model) check(n int, e Exchange, msgs []providers.Message) error {
	norm := m.Normalize
	if norm == nil {
		norm = Normalize
	}
	switch m.Match {
	case MatchOrder:
		return nil
	case MatchAll:
		if h := Hash(msgs, norm); h != e.MessagesSHA256 {
			return &MismatchError{
				Exchange: n,
				Reason:   fmt.Sprintf("conversation differs (%d messages recorded, %d sent)", e.Messages, len(msgs)),
				Want:     e.MessagesSHA256,
				Got:      h,
			}
		}
		return nil
	}
	if len(msgs) == 0 {
		return &MismatchError{Exchange: n, Reason: "no messages sent", Want: e.Last.Content}
	}
	last := msgs[len(msgs)-1]
	if last.Role != e.Last.Role {
		return &MismatchError{
			Exchange: n,
			Reason:   fmt.Sprintf("last message role differs: recorded %s, got %s", e.Last.Role, last.Role),
			Want:     excerpt(e.Last.Content, 0),
			Got:      excerpt(last.Content, 0),
		}
	}
	if got, want := ImageDigests(last.Images), e.LastImages; !slices.Equal(got, want) {
		return &MismatchError{
			Exchange: n,
			Reason:   fmt.Sprintf("last %s message carries other images: recorded %d (%s), got %d (%s)", last.Role, len(want), strings.Join(want, ", "), len(got), strings.Join(got, ", ")),
		}
	}
	if last.ToolCallID != e.Last.ToolCallID {
		return &MismatchError{
			Exchange: n,
			Reason:   fmt.Sprintf("last message answers another tool call: recorded %q, got %q", e.Last.ToolCallID, last.ToolCallID),
		}
	}
	got := norm(last.Content)
	want := norm(e.Last.Content)
	if got != want {
		i := firstDiff(want, got)
		return &MismatchError{
			Exchange: n,
			Reason:   fmt.Sprintf("last %s message differs at byte %d", last.Role, i),
			Want:     excerpt(want, i),
			Got:      excerpt(got, i),
		}
	}
	return nil
}

// firstDiff returns the byte offset of the first difference of a and b,
// backed up to a rune boundary.
func firstDiff(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	for i > 0 && i < len(a) && !utf8.RuneStart(a[i]) {
		i--
	}
	return i
}

// excerpt returns s around byte offset i: up to 60 bytes before and 160
// after, marking cuts with "…".
func excerpt(s string, i int) string {
	const before, after = 60, 160
	lo, hi := i-before, i+after
	pre, post := "…", "…"
	if lo <= 0 {
		lo, pre = 0, ""
	}
	if hi >= len(s) {
		hi, post = len(s), ""
	}
	for lo > 0 && lo < len(s) && !utf8.RuneStart(s[lo]) {
		lo--
	}
	for hi < len(s) && !utf8.RuneStart(s[hi]) {
		hi++
	}
	return pre + s[lo:hi] + post
}
