package openai

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
	testKey = "sk-test-0123456789abcdef"
	answer  = "Thought: I will add.\n<code>\nprint(1 + 2)\n</code><end_code> and more text"
)

var conv = []providers.Message{
	{Role: providers.RoleSystem, Content: "You are an expert assistant."},
	{Role: providers.RoleUser, Content: "Task: add one and two"},
}

var stopOpts = providers.GenerateOptions{StopSequences: []string{"<end_code>", "Observation:"}}

// fast retries, so tests do not wait for real backoff.
var fast = retry.Policy{BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}

func newModel(t *testing.T, s *server, mod func(*Options)) *Model {
	t.Helper()
	o := Options{Model: "gpt-4o-mini", APIKey: testKey, BaseURL: s.url(), Retry: fast}
	if mod != nil {
		mod(&o)
	}
	m, err := New(o)
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

func TestGenerateSendsRequestAndReadsUsage(t *testing.T) {
	s := newServer(t, testKey, answer)
	m := newModel(t, s, func(o *Options) {
		o.Headers = map[string]string{"HTTP-Referer": "https://example.org", "X-Title": "star-agent"}
		o.Organization = "org-test"
	})
	got, err := m.Generate(context.Background(), conv, stopOpts)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Thought: I will add.\n<code>\nprint(1 + 2)\n</code>"; got.Content != want {
		t.Fatalf("content = %q, want %q", got.Content, want)
	}
	if got.Role != providers.RoleAssistant || got.Usage == nil || got.Usage.InputTokens != 18 || got.Usage.OutputTokens != 9 {
		t.Fatalf("message = %+v usage %+v", got, got.Usage)
	}
	r := s.reqs()[0]
	if r.header.Get("Authorization") != "Bearer "+testKey || r.header.Get("OpenAI-Organization") != "org-test" ||
		r.header.Get("HTTP-Referer") != "https://example.org" || r.header.Get("X-Title") != "star-agent" {
		t.Fatalf("headers = %v", r.header)
	}
	if r.body["model"] != "gpt-4o-mini" || r.body["stream"] != false {
		t.Fatalf("body = %v", r.body)
	}
	msgs := r.body["messages"].([]any)
	if len(msgs) != 2 || msgs[0].(map[string]any)["role"] != "system" || msgs[1].(map[string]any)["content"] != "Task: add one and two" {
		t.Fatalf("messages = %v", msgs)
	}
	for _, k := range []string{"temperature", "max_tokens", "stream_options"} {
		if _, ok := r.body[k]; ok {
			t.Errorf("unset option %q was sent: %v", k, r.body[k])
		}
	}
	if m.ModelID() != "gpt-4o-mini" {
		t.Errorf("ModelID = %q", m.ModelID())
	}
}

func TestTemperatureAndMaxTokens(t *testing.T) {
	s := newServer(t, testKey, answer)
	zero, half := 0.0, 0.5
	m := newModel(t, s, func(o *Options) { o.Temperature = &half; o.MaxTokens = 100 })
	if _, err := m.Generate(context.Background(), conv, providers.GenerateOptions{Temperature: &zero}); err != nil {
		t.Fatal(err)
	}
	m2 := newModel(t, s, func(o *Options) { o.Temperature = &half; o.UseMaxCompletionTokens = true })
	if _, err := m2.Generate(context.Background(), conv, providers.GenerateOptions{MaxTokens: 50}); err != nil {
		t.Fatal(err)
	}
	r := s.reqs()
	if tmp, ok := r[0].body["temperature"].(float64); !ok || tmp > 1e-6 {
		t.Errorf("temperature 0 sent as %v (present %v)", r[0].body["temperature"], ok)
	}
	if r[0].body["max_tokens"] != 100.0 {
		t.Errorf("max_tokens = %v", r[0].body["max_tokens"])
	}
	if r[1].body["temperature"] != 0.5 || r[1].body["max_completion_tokens"] != 50.0 || r[1].body["max_tokens"] != nil {
		t.Errorf("second request = %v", r[1].body)
	}
}

func TestStreamRequestsUsageAndYieldsChunks(t *testing.T) {
	s := newServer(t, testKey, answer)
	m := newModel(t, s, nil)
	var b strings.Builder
	var deltas int
	var usage *providers.Usage
	for d, err := range m.GenerateStream(context.Background(), conv, stopOpts) {
		if err != nil {
			t.Fatal(err)
		}
		if usage != nil {
			t.Fatal("delta after usage")
		}
		b.WriteString(d.Content)
		deltas++
		usage = d.Usage
	}
	if want := "Thought: I will add.\n<code>\nprint(1 + 2)\n</code>"; b.String() != want {
		t.Fatalf("streamed %q, want %q", b.String(), want)
	}
	if deltas < 4 || usage == nil || usage.InputTokens != 18 || usage.OutputTokens != 9 {
		t.Fatalf("%d deltas, usage %+v", deltas, usage)
	}
	r := s.reqs()[0]
	so, _ := r.body["stream_options"].(map[string]any)
	if r.body["stream"] != true || so["include_usage"] != true {
		t.Fatalf("stream request = %v", r.body)
	}
}

func TestStreamWithoutUsageOption(t *testing.T) {
	s := newServer(t, testKey, answer)
	m := newModel(t, s, func(o *Options) { o.NoStreamUsage = true })
	var usage *providers.Usage
	for d, err := range m.GenerateStream(context.Background(), conv, stopOpts) {
		if err != nil {
			t.Fatal(err)
		}
		usage = d.Usage
	}
	if _, ok := s.reqs()[0].body["stream_options"]; ok {
		t.Fatal("stream_options sent")
	}
	if usage == nil || *usage != (providers.Usage{}) {
		t.Fatalf("usage = %v, want zero", usage)
	}
}

func TestRetryAfterSecondsIsHonoured(t *testing.T) {
	s := newServer(t, testKey, answer, fault{status: 429, retryAfter: "1"})
	m := newModel(t, s, nil)
	start := time.Now()
	got, err := m.Generate(context.Background(), conv, stopOpts)
	if err != nil {
		t.Fatal(err)
	}
	if got.Usage.OutputTokens == 0 {
		t.Fatal("no usage after retry")
	}
	r := s.reqs()
	if len(r) != 2 {
		t.Fatalf("%d requests, want 2", len(r))
	}
	if gap := r[1].at.Sub(r[0].at); gap < 900*time.Millisecond {
		t.Fatalf("retried after %v; Retry-After asked for 1s (backoff alone is ~1ms)", gap)
	}
	// Retry-After asked for 1 s; only a wait for the 30 s backoff cap
	// or more, not a slow machine, reaches the bound.
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("retried after %v, not after the 1 s asked for", d)
	}
}

func TestRetryAfterTooLongGivesUp(t *testing.T) {
	s := newServer(t, testKey, answer, fault{status: 429, retryAfter: "3600"})
	m := newModel(t, s, nil)
	_, err := m.Generate(context.Background(), conv, stopOpts)
	pe := asError(t, err)
	if pe.StatusCode != 429 || !pe.Retryable || len(s.reqs()) != 1 {
		t.Fatalf("err = %v, %d requests", err, len(s.reqs()))
	}
	if !strings.Contains(err.Error(), "Rate limit reached") || !strings.Contains(err.Error(), "429 Too Many Requests") {
		t.Fatalf("error text: %v", err)
	}
}

func TestServerErrorThenSuccess(t *testing.T) {
	s := newServer(t, testKey, answer, fault{status: 500}, fault{status: 502, body: "<html>Bad Gateway</html>"})
	m := newModel(t, s, nil)
	got, err := m.Generate(context.Background(), conv, stopOpts)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got.Content, "Thought:") || len(s.reqs()) != 3 {
		t.Fatalf("content %q after %d requests", got.Content, len(s.reqs()))
	}
	// The body was sent again intact on every attempt.
	for i, r := range s.reqs() {
		if r.body["model"] != "gpt-4o-mini" {
			t.Fatalf("request %d body = %v", i+1, r.body)
		}
	}
}

func TestUnavailableExhaustsRetries(t *testing.T) {
	var faults []fault
	for range 10 {
		faults = append(faults, fault{status: 503, body: "upstream connect error or disconnect/reset before headers"})
	}
	s := newServer(t, testKey, answer, faults...)
	m := newModel(t, s, func(o *Options) { o.MaxRetries = 2 })
	_, err := m.Generate(context.Background(), conv, stopOpts)
	pe := asError(t, err)
	if pe.StatusCode != 503 || !pe.Retryable || pe.Attempts != 3 || len(s.reqs()) != 3 {
		t.Fatalf("err = %+v, %d requests", pe, len(s.reqs()))
	}
	if !strings.Contains(err.Error(), "after 3 attempts") || !strings.Contains(err.Error(), "upstream connect error") {
		t.Fatalf("error text: %v", err)
	}
}

func TestNoRetriesWhenDisabled(t *testing.T) {
	s := newServer(t, testKey, answer, fault{status: 500})
	m := newModel(t, s, func(o *Options) { o.MaxRetries = -1 })
	if _, err := m.Generate(context.Background(), conv, stopOpts); err == nil || len(s.reqs()) != 1 {
		t.Fatalf("err = %v, %d requests", err, len(s.reqs()))
	}
}

func TestWrongKeyIsNotRetriedNorLeaked(t *testing.T) {
	s := newServer(t, "sk-the-right-key", answer)
	m := newModel(t, s, nil)
	_, err := m.Generate(context.Background(), conv, stopOpts)
	pe := asError(t, err)
	if pe.StatusCode != 401 || pe.Retryable || len(s.reqs()) != 1 {
		t.Fatalf("err = %+v, %d requests", pe, len(s.reqs()))
	}
	if strings.Contains(err.Error(), testKey) {
		t.Fatalf("error leaks the key: %v", err)
	}
	if !strings.Contains(err.Error(), "Incorrect API key provided: [REDACTED]") || !strings.Contains(err.Error(), "check the API key") {
		t.Fatalf("error text: %v", err)
	}
}

func TestBadRequestIsNotRetried(t *testing.T) {
	s := newServer(t, testKey, answer)
	m := newModel(t, s, nil)
	_, err := m.Generate(context.Background(), conv, providers.GenerateOptions{StopSequences: []string{"a", "b", "c", "d", "e"}})
	pe := asError(t, err)
	if pe.StatusCode != 400 || pe.Retryable || len(s.reqs()) != 1 || !strings.Contains(pe.Message, "maximum length 4") {
		t.Fatalf("err = %+v, %d requests", pe, len(s.reqs()))
	}
}

func TestMalformedJSON(t *testing.T) {
	s := newServer(t, testKey, answer, fault{malformed: true})
	m := newModel(t, s, nil)
	_, err := m.Generate(context.Background(), conv, stopOpts)
	pe := asError(t, err)
	if !strings.Contains(pe.Message, "malformed response") || !pe.Retryable || pe.StatusCode != 200 {
		t.Fatalf("err = %+v", pe)
	}
}

func TestContextDeadlineOnHangingServer(t *testing.T) {
	s := newServer(t, testKey, answer, fault{hang: true})
	m := newModel(t, s, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := m.Generate(ctx, conv, stopOpts)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	// The server never answers: the bound catches only a wait for it.
	if d := time.Since(start); d > time.Minute {
		t.Fatalf("returned after %v", d)
	}
	if len(s.reqs()) != 1 {
		t.Fatalf("%d requests: a cancelled call must not be retried", len(s.reqs()))
	}
}

func TestAttemptTimeoutIsRetried(t *testing.T) {
	s := newServer(t, testKey, answer, fault{hang: true})
	m := newModel(t, s, func(o *Options) { o.Timeout = 100 * time.Millisecond })
	got, err := m.Generate(context.Background(), conv, stopOpts)
	if err != nil {
		t.Fatal(err)
	}
	if got.Content == "" || len(s.reqs()) != 2 {
		t.Fatalf("content %q after %d requests", got.Content, len(s.reqs()))
	}
}

func TestAttemptTimeoutExhausted(t *testing.T) {
	s := newServer(t, testKey, answer, fault{hang: true}, fault{hang: true})
	m := newModel(t, s, func(o *Options) { o.Timeout = 50 * time.Millisecond; o.MaxRetries = 1 })
	_, err := m.Generate(context.Background(), conv, stopOpts)
	pe := asError(t, err)
	if !pe.Retryable || pe.StatusCode != 0 || !errors.Is(err, retry.ErrTimeout) {
		t.Fatalf("err = %v", err)
	}
}

func TestStreamRetriesBeforeFirstChunk(t *testing.T) {
	s := newServer(t, testKey, answer, fault{status: 429, retryAfter: "0"}, fault{status: 500})
	m := newModel(t, s, nil)
	var b strings.Builder
	for d, err := range m.GenerateStream(context.Background(), conv, stopOpts) {
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(d.Content)
	}
	if !strings.HasPrefix(b.String(), "Thought:") || len(s.reqs()) != 3 {
		t.Fatalf("streamed %q after %d requests", b.String(), len(s.reqs()))
	}
}

func TestStreamErrors(t *testing.T) {
	tests := []struct {
		name string
		f    fault
		want string
	}{
		{"malformed chunk", fault{malformed: true}, "malformed response"},
		{"connection cut", fault{cutStream: true}, "stream ended before a finish reason"},
		{"wrong key", fault{}, "401 Unauthorized"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key := testKey
			if tt.name == "wrong key" {
				key = "sk-other"
			}
			s := newServer(t, key, answer, tt.f)
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

func TestStreamCancelMidway(t *testing.T) {
	s := newServer(t, testKey, strings.Repeat("word ", 50))
	m := newModel(t, s, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	var last error
	for _, err := range m.GenerateStream(ctx, conv, stopOpts) {
		n++
		if n == 2 {
			cancel()
		}
		last = err
	}
	if !errors.Is(last, context.Canceled) {
		t.Fatalf("last = %v after %d deltas, want context.Canceled", last, n)
	}
}

func TestRequestsPerMinute(t *testing.T) {
	s := newServer(t, testKey, answer)
	m := newModel(t, s, func(o *Options) { o.RequestsPerMinute = 1200 }) // one per 50ms
	for range 4 {
		if _, err := m.Generate(context.Background(), conv, stopOpts); err != nil {
			t.Fatal(err)
		}
	}
	r := s.reqs()
	if span := r[3].at.Sub(r[0].at); span < 140*time.Millisecond {
		t.Fatalf("4 requests within %v; 1200/min allows one per 50ms", span)
	}
}

func TestAzure(t *testing.T) {
	s := newServer(t, testKey, answer)
	s.path = "/openai/deployments/my-gpt4o/chat/completions"
	m, err := New(Options{Model: "my-gpt4o", APIKey: testKey, BaseURL: s.srv.URL, AzureAPIVersion: "2024-10-21", Retry: fast})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Generate(context.Background(), conv, stopOpts); err != nil {
		t.Fatal(err)
	}
	r := s.reqs()[0]
	if r.header.Get("api-key") != testKey || r.header.Get("Authorization") != "" || r.query != "api-version=2024-10-21" {
		t.Fatalf("Azure request: headers %v query %q", r.header, r.query)
	}
}

func TestNoKeySendsNoAuthorization(t *testing.T) {
	s := newServer(t, "", answer) // a local server (Ollama, llama.cpp) wants no key
	m := newModel(t, s, func(o *Options) { o.APIKey = "" })
	if _, err := m.Generate(context.Background(), conv, stopOpts); err != nil {
		t.Fatal(err)
	}
	if h := s.reqs()[0].header.Get("Authorization"); h != "" {
		t.Fatalf("Authorization = %q", h)
	}
}

func TestNewValidates(t *testing.T) {
	if _, err := New(Options{}); err == nil {
		t.Error("no model: want error")
	}
	if _, err := New(Options{Model: "x", APIKey: testKey, AzureAPIVersion: "2024-10-21"}); err == nil {
		t.Error("Azure without endpoint: want error")
	}
}

// OpenAI's API and Azure need a key: without one New says so, where
// every call would fail after its retries. A server that needs none (a
// local one, or one authorized by Headers) is built without.
func TestNewWantsAKeyForOpenAI(t *testing.T) {
	for _, c := range []struct {
		name string
		opts Options
		want string // in the error; "" means New succeeds
	}{
		{"OpenAI", Options{Model: "gpt-4o-mini"}, "set Options.APIKey (star-agent reads OPENAI_API_KEY), or BaseURL"},
		{"OpenAI by its URL", Options{Model: "gpt-4o-mini", BaseURL: DefaultBaseURL + "/", APIKey: " "}, "OPENAI_API_KEY"},
		{"Azure", Options{Model: "my-gpt4o", BaseURL: "https://name.openai.azure.com", AzureAPIVersion: "2024-10-21"}, "for Azure OpenAI: set Options.APIKey"},
		{"Azure with a token", Options{Model: "my-gpt4o", BaseURL: "https://name.openai.azure.com", AzureAPIVersion: "2024-10-21", Headers: map[string]string{"Authorization": "Bearer t"}}, ""},
		{"a proxy's header", Options{Model: "gpt-4o-mini", Headers: map[string]string{"authorization": "Bearer t"}}, ""},
		{"Ollama", Options{Model: "llama3", BaseURL: "http://127.0.0.1:11434/v1"}, ""},
	} {
		m, err := New(c.opts)
		switch {
		case c.want == "" && (err != nil || m == nil):
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (!errors.Is(err, providers.ErrNoAPIKey) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want ErrNoAPIKey saying %q", c.name, err, c.want)
		}
	}
}
