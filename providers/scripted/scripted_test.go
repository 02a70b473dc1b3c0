package scripted

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/star-agent/star-agent/providers"
)

var _ providers.StreamingModel = (*Model)(nil)
var _ providers.StreamingModel = Func(nil)

func user(s string) []providers.Message {
	return []providers.Message{{Role: providers.RoleUser, Content: s}}
}

func TestModelInOrderThenExhausted(t *testing.T) {
	m := New("first", "second")
	ctx := context.Background()
	for i, want := range []string{"first", "second"} {
		got, err := m.Generate(ctx, user("q"), providers.GenerateOptions{})
		if err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
		if got.Content != want || got.Role != providers.RoleAssistant {
			t.Fatalf("call %d: got %+v, want %q", i+1, got, want)
		}
		if got.Usage == nil {
			t.Fatalf("call %d: no usage", i+1)
		}
	}
	_, err := m.Generate(ctx, user("q"), providers.GenerateOptions{})
	if !errors.Is(err, ErrExhausted) {
		t.Fatalf("third call: err = %v, want ErrExhausted", err)
	}
	if n := len(m.Calls()); n != 3 {
		t.Fatalf("Calls() has %d entries, want 3", n)
	}
}

func TestStopSequencesCutText(t *testing.T) {
	tests := []struct {
		content string
		stop    []string
		want    string
	}{
		{"a<end_code>b", []string{"<end_code>"}, "a"},
		{"abc Observation: x <end_code>", []string{"<end_code>", "Observation:"}, "abc "},
		{"no stop here", []string{"<end_code>"}, "no stop here"},
		{"x", []string{""}, "x"},
	}
	for _, tt := range tests {
		m := New(tt.content)
		got, err := m.Generate(context.Background(), user("q"), providers.GenerateOptions{StopSequences: tt.stop})
		if err != nil {
			t.Fatal(err)
		}
		if got.Content != tt.want {
			t.Errorf("Generate(%q, stop %q) = %q, want %q", tt.content, tt.stop, got.Content, tt.want)
		}
	}
}

func TestUsageGivenAndEstimated(t *testing.T) {
	m := &Model{Responses: []Response{
		{Content: "x", Usage: &providers.Usage{InputTokens: 7, OutputTokens: 3}},
		{Content: "12345678"},
	}}
	got, _ := m.Generate(context.Background(), user("q"), providers.GenerateOptions{})
	if *got.Usage != (providers.Usage{InputTokens: 7, OutputTokens: 3}) {
		t.Errorf("given usage = %+v", *got.Usage)
	}
	got, _ = m.Generate(context.Background(), user("123456789"), providers.GenerateOptions{})
	if *got.Usage != (providers.Usage{InputTokens: 3, OutputTokens: 2}) {
		t.Errorf("estimated usage = %+v, want {3 2}", *got.Usage)
	}
}

func TestScriptedError(t *testing.T) {
	boom := errors.New("boom")
	m := &Model{Responses: []Response{{Err: boom}, {Content: "ok"}}}
	if _, err := m.Generate(context.Background(), user("q"), providers.GenerateOptions{}); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if got, err := m.Generate(context.Background(), user("q"), providers.GenerateOptions{}); err != nil || got.Content != "ok" {
		t.Fatalf("after error: %v, %v", got, err)
	}
}

func TestDelayHonoursContext(t *testing.T) {
	m := &Model{Responses: []Response{{Content: "late"}}, Delay: time.Hour}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := m.Generate(ctx, user("q"), providers.GenerateOptions{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	// The delay is an hour: the bound catches only a wait for it.
	if time.Since(start) > time.Minute {
		t.Fatal("Generate did not return on cancellation")
	}
}

func TestDelayIsWaited(t *testing.T) {
	m := &Model{Responses: []Response{{Content: "x", Delay: 30 * time.Millisecond}}}
	start := time.Now()
	if _, err := m.Generate(context.Background(), user("q"), providers.GenerateOptions{}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 30*time.Millisecond {
		t.Fatalf("returned after %v, want at least 30ms", d)
	}
}

func TestLoop(t *testing.T) {
	m := &Model{Responses: []Response{{Content: "a"}, {Content: "b"}}, Loop: true}
	var got []string
	for range 5 {
		r, err := m.Generate(context.Background(), user("q"), providers.GenerateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r.Content)
	}
	if s := strings.Join(got, ""); s != "ababa" {
		t.Fatalf("got %q, want ababa", s)
	}
}

func TestStreamReassemblesWithUsageLast(t *testing.T) {
	text := "Thought: compute it.\n<code>\nx = 1 + 2\nfinal_answer(x)\n</code>\n<end_code> ignored"
	m := &Model{Responses: []Response{{Content: text, Usage: &providers.Usage{InputTokens: 5, OutputTokens: 9}}}}
	var b strings.Builder
	var chunks int
	var usage *providers.Usage
	for d, err := range m.GenerateStream(context.Background(), user("q"), providers.GenerateOptions{StopSequences: []string{"<end_code>"}}) {
		if err != nil {
			t.Fatal(err)
		}
		if usage != nil {
			t.Fatal("delta after the one carrying usage")
		}
		b.WriteString(d.Content)
		if d.Content != "" {
			chunks++
		}
		usage = d.Usage
	}
	want := Cut(text, []string{"<end_code>"})
	if b.String() != want {
		t.Fatalf("stream = %q, want %q", b.String(), want)
	}
	if chunks < 2 {
		t.Fatalf("%d chunks, want several", chunks)
	}
	if usage == nil || usage.OutputTokens != 9 {
		t.Fatalf("last usage = %v", usage)
	}
}

func TestStreamStopsWhenConsumerBreaks(t *testing.T) {
	m := New("one two three four five six seven eight nine ten eleven twelve")
	n := 0
	for range m.GenerateStream(context.Background(), user("q"), providers.GenerateOptions{}) {
		n++
		break
	}
	if n != 1 {
		t.Fatalf("n = %d", n)
	}
}

func TestConcurrentCallsTakeDistinctResponses(t *testing.T) {
	const n = 200
	m := &Model{}
	for i := range n {
		m.Responses = append(m.Responses, Response{Content: strings.Repeat("x", i)})
	}
	var wg sync.WaitGroup
	seen := make(chan int, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := m.Generate(context.Background(), user("q"), providers.GenerateOptions{})
			if err != nil {
				t.Error(err)
				return
			}
			seen <- len(r.Content)
		}()
	}
	wg.Wait()
	close(seen)
	got := map[int]bool{}
	for l := range seen {
		if got[l] {
			t.Fatalf("response %d returned twice", l)
		}
		got[l] = true
	}
	if len(got) != n {
		t.Fatalf("%d distinct responses, want %d", len(got), n)
	}
}

func TestFunc(t *testing.T) {
	f := Func(func(ctx context.Context, msgs []providers.Message, opts providers.GenerateOptions) (*providers.Message, error) {
		return &providers.Message{Role: providers.RoleAssistant, Content: "echo " + msgs[len(msgs)-1].Content, Usage: &providers.Usage{OutputTokens: 2}}, nil
	})
	var b strings.Builder
	for d, err := range f.GenerateStream(context.Background(), user("hi there"), providers.GenerateOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(d.Content)
	}
	if b.String() != "echo hi there" {
		t.Fatalf("got %q", b.String())
	}
}
