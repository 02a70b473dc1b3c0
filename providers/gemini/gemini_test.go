package gemini

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/providers/retry"
)

const (
	testKey = "AIzaSy-test-0123456789"
	answer  = "Thought: I will add.\n<code>\nprint(1 + 2)\n</code><end_code> and more text"
	wantCut = "Thought: I will add.\n<code>\nprint(1 + 2)\n</code>"
)

var conv = []providers.Message{
	{Role: providers.RoleSystem, Content: "You are an expert assistant."},
	{Role: providers.RoleUser, Content: "Task: add one and two"},
	{Role: providers.RoleAssistant, Content: "<code>print(3)</code>"},
	{Role: providers.RoleUser, Content: "Observation: 3"},
	{Role: providers.RoleUser, Content: "Now finish."},
}

var stopOpts = providers.GenerateOptions{StopSequences: []string{"<end_code>", "Observation:"}}

var fast = retry.Policy{BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}

func newModel(t *testing.T, s *server, mod func(*Options)) *Model {
	t.Helper()
	o := Options{Model: "gemini-2.5-flash", APIKey: testKey, BaseURL: s.srv.URL, Retry: fast}
	if mod != nil {
		mod(&o)
	}
	m, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func asError(t *testing.T, err error) *providers.Error {
	t.Helper()
	var pe *providers.Error
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v (%T), want *providers.Error", err, err)
	}
	return pe
}

func TestGenerateRequestShapeAndUsage(t *testing.T) {
	s := newServer(t, testKey, answer)
	half := 0.5
	m := newModel(t, s, func(o *Options) {
		o.Temperature = &half
		o.MaxTokens = 256
		o.Headers = map[string]string{"X-Trace": "t1"}
	})
	got, err := m.Generate(context.Background(), conv, stopOpts)
	if err != nil {
		t.Fatal(err)
	}
	if got.Content != wantCut || got.Role != providers.RoleAssistant {
		t.Fatalf("got %+v", got)
	}
	// prompt: 5 system + 5 task + 1 code + 2 obs + 2 = 15 words; output 9 + 3 thinking tokens.
	if got.Usage == nil || got.Usage.InputTokens != 15 || got.Usage.OutputTokens != 12 {
		t.Fatalf("usage = %+v", got.Usage)
	}
	r := s.reqs()[0]
	if r.path != "/v1beta/models/gemini-2.5-flash:generateContent" || r.header.Get("x-goog-api-key") != testKey || r.header.Get("X-Trace") != "t1" {
		t.Fatalf("path %q headers %v", r.path, r.header)
	}
	si := r.body["systemInstruction"].(map[string]any)["parts"].([]any)
	if len(si) != 1 || si[0].(map[string]any)["text"] != "You are an expert assistant." {
		t.Fatalf("systemInstruction = %v", r.body["systemInstruction"])
	}
	contents := r.body["contents"].([]any)
	var roles []string
	for _, c := range contents {
		roles = append(roles, c.(map[string]any)["role"].(string))
	}
	if strings.Join(roles, ",") != "user,model,user" {
		t.Fatalf("roles = %v (consecutive user messages should merge)", roles)
	}
	if parts := contents[2].(map[string]any)["parts"].([]any); len(parts) != 2 {
		t.Fatalf("merged turn has %d parts", len(parts))
	}
	gc := r.body["generationConfig"].(map[string]any)
	if gc["temperature"] != 0.5 || gc["maxOutputTokens"] != 256.0 || len(gc["stopSequences"].([]any)) != 2 {
		t.Fatalf("generationConfig = %v", gc)
	}
}

func TestStream(t *testing.T) {
	s := newServer(t, testKey, answer)
	m := newModel(t, s, nil)
	var b strings.Builder
	n := 0
	var usage *providers.Usage
	for d, err := range m.GenerateStream(context.Background(), conv, stopOpts) {
		if err != nil {
			t.Fatal(err)
		}
		if usage != nil {
			t.Fatal("delta after usage")
		}
		b.WriteString(d.Content)
		n++
		usage = d.Usage
	}
	if b.String() != wantCut || n < 4 {
		t.Fatalf("streamed %q in %d deltas", b.String(), n)
	}
	if usage == nil || usage.InputTokens != 15 || usage.OutputTokens != 12 {
		t.Fatalf("usage = %+v", usage)
	}
	r := s.reqs()[0]
	if r.path != "/v1beta/models/gemini-2.5-flash:streamGenerateContent" || r.query != "alt=sse" {
		t.Fatalf("path %q query %q", r.path, r.query)
	}
}

func TestRetryInfoDelayIsHonoured(t *testing.T) {
	s := newServer(t, testKey, answer, fault{status: 429, retryDelay: "1s"})
	m := newModel(t, s, nil)
	if _, err := m.Generate(context.Background(), conv, stopOpts); err != nil {
		t.Fatal(err)
	}
	r := s.reqs()
	if len(r) != 2 || r[1].at.Sub(r[0].at) < 900*time.Millisecond {
		t.Fatalf("%d requests; gap %v, want about 1s", len(r), r[len(r)-1].at.Sub(r[0].at))
	}
}

func TestRetryAfterHeaderIsHonoured(t *testing.T) {
	s := newServer(t, testKey, answer, fault{status: 429, retryAfter: "1"})
	m := newModel(t, s, nil)
	if _, err := m.Generate(context.Background(), conv, stopOpts); err != nil {
		t.Fatal(err)
	}
	r := s.reqs()
	if len(r) != 2 || r[1].at.Sub(r[0].at) < 900*time.Millisecond {
		t.Fatalf("%d requests; gap %v, want about 1s", len(r), r[len(r)-1].at.Sub(r[0].at))
	}
}

func TestServerErrorsThenSuccess(t *testing.T) {
	s := newServer(t, testKey, answer, fault{status: 500}, fault{status: 503})
	m := newModel(t, s, nil)
	got, err := m.Generate(context.Background(), conv, stopOpts)
	if err != nil {
		t.Fatal(err)
	}
	if got.Content != wantCut || len(s.reqs()) != 3 {
		t.Fatalf("content %q after %d requests", got.Content, len(s.reqs()))
	}
	for i, r := range s.reqs() {
		if r.body["contents"] == nil {
			t.Fatalf("request %d lost its body", i+1)
		}
	}
}

func TestOverloadedExhaustsRetries(t *testing.T) {
	s := newServer(t, testKey, answer, fault{status: 503}, fault{status: 503}, fault{status: 503}, fault{status: 503})
	m := newModel(t, s, func(o *Options) { o.MaxRetries = 1 })
	_, err := m.Generate(context.Background(), conv, stopOpts)
	pe := asError(t, err)
	if pe.StatusCode != 503 || !pe.Retryable || pe.Attempts != 2 || len(s.reqs()) != 2 {
		t.Fatalf("err = %+v, %d requests", pe, len(s.reqs()))
	}
	if !strings.Contains(err.Error(), "UNAVAILABLE: The model is overloaded") {
		t.Fatalf("error text: %v", err)
	}
}

func TestWrongKey(t *testing.T) {
	s := newServer(t, "AIzaSy-the-right-one", answer)
	m := newModel(t, s, nil)
	_, err := m.Generate(context.Background(), conv, stopOpts)
	pe := asError(t, err)
	// Gemini answers a bad key with 400 INVALID_ARGUMENT, not 401.
	if pe.StatusCode != 400 || pe.Retryable || len(s.reqs()) != 1 || !strings.Contains(pe.Message, "API key not valid") {
		t.Fatalf("err = %+v, %d requests", pe, len(s.reqs()))
	}
	if strings.Contains(err.Error(), testKey) {
		t.Fatalf("error leaks the key: %v", err)
	}
}

func TestTooManyStopSequencesIsNotRetried(t *testing.T) {
	s := newServer(t, testKey, answer)
	m := newModel(t, s, nil)
	_, err := m.Generate(context.Background(), conv, providers.GenerateOptions{StopSequences: []string{"a", "b", "c", "d", "e", "f"}})
	pe := asError(t, err)
	if pe.StatusCode != 400 || pe.Retryable || len(s.reqs()) != 1 {
		t.Fatalf("err = %+v", pe)
	}
}

func TestMalformedJSON(t *testing.T) {
	s := newServer(t, testKey, answer, fault{malformed: true})
	m := newModel(t, s, nil)
	_, err := m.Generate(context.Background(), conv, stopOpts)
	pe := asError(t, err)
	if !strings.Contains(pe.Message, "malformed response") || !pe.Retryable {
		t.Fatalf("err = %+v", pe)
	}
}

func TestBlockedPrompt(t *testing.T) {
	s := newServer(t, testKey, answer, fault{blocked: true})
	m := newModel(t, s, nil)
	_, err := m.Generate(context.Background(), conv, stopOpts)
	pe := asError(t, err)
	if !strings.Contains(pe.Message, "prompt blocked: SAFETY") || pe.Retryable {
		t.Fatalf("err = %+v", pe)
	}
}

func TestHangingServer(t *testing.T) {
	s := newServer(t, testKey, answer, fault{hang: true})
	m := newModel(t, s, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := m.Generate(ctx, conv, stopOpts)
	// The server never answers: the bound catches only a wait for it.
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > time.Minute || len(s.reqs()) != 1 {
		t.Fatalf("err = %v after %v, %d requests", err, time.Since(start), len(s.reqs()))
	}
}

func TestAttemptTimeoutIsRetried(t *testing.T) {
	s := newServer(t, testKey, answer, fault{hang: true})
	m := newModel(t, s, func(o *Options) { o.Timeout = 100 * time.Millisecond })
	got, err := m.Generate(context.Background(), conv, stopOpts)
	if err != nil || got.Content != wantCut || len(s.reqs()) != 2 {
		t.Fatalf("got %v, %v after %d requests", got, err, len(s.reqs()))
	}
}

func TestStreamErrors(t *testing.T) {
	tests := []struct {
		name string
		f    fault
		key  string
		want string
	}{
		{"malformed event", fault{malformed: true}, testKey, "malformed response"},
		{"cut short", fault{cutStream: true}, testKey, "stream ended before a finish reason"},
		{"wrong key", fault{}, "AIzaSy-other", "API key not valid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, tt.key, answer, tt.f)
			m := newModel(t, s, nil)
			var last error
			for _, err := range m.GenerateStream(context.Background(), conv, stopOpts) {
				if last != nil {
					t.Fatal("yielded after an error")
				}
				last = err
			}
			if last == nil || !strings.Contains(last.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", last, tt.want)
			}
			asError(t, last)
		})
	}
}

func TestStreamRetriesBeforeFirstChunk(t *testing.T) {
	s := newServer(t, testKey, answer, fault{status: 500})
	m := newModel(t, s, nil)
	var b strings.Builder
	for d, err := range m.GenerateStream(context.Background(), conv, stopOpts) {
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(d.Content)
	}
	if b.String() != wantCut || len(s.reqs()) != 2 {
		t.Fatalf("streamed %q after %d requests", b.String(), len(s.reqs()))
	}
}

func TestNewValidates(t *testing.T) {
	if _, err := New(context.Background(), Options{APIKey: "k"}); err == nil {
		t.Error("no model: want error")
	}
	for _, key := range []string{"", " "} {
		_, err := New(context.Background(), Options{Model: "gemini-2.5-flash", APIKey: key})
		if !errors.Is(err, providers.ErrNoAPIKey) || !strings.Contains(err.Error(), "set Options.APIKey (star-agent reads GEMINI_API_KEY or GOOGLE_API_KEY)") {
			t.Errorf("key %q: error %v, want ErrNoAPIKey naming the option and variables", key, err)
		}
	}
}
