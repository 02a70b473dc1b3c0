package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/providers/anthropic/anthropicfake"
	"github.com/star-agent/star-agent/providers/retry"
)

type (
	server = anthropicfake.Server
	fault  = anthropicfake.Fault
	block  = anthropicfake.Block
)

var number = anthropicfake.Number

// newServer starts the fake Messages API for one test.
func newServer(t testing.TB, key, answer string, faults ...fault) *server {
	s := anthropicfake.New(key, answer, faults...)
	t.Cleanup(s.Close)
	return s
}

const (
	testKey = "sk-ant-api03-test-0123456789abcdef"
	answer  = "Thought: I will add.\n<code>\nprint(1 + 2)\n</code><end_code> and more text"
)

var conv = []providers.Message{
	{Role: providers.RoleSystem, Content: "You are an expert assistant."},
	{Role: providers.RoleSystem, Content: "Answer with code."},
	{Role: providers.RoleUser, Content: "Task: add one and two"},
	{Role: providers.RoleUser, Content: "Use Python."},
}

var stopOpts = providers.GenerateOptions{StopSequences: []string{"<end_code>", "Observation:"}}

// fast retries, so tests do not wait for real backoff.
var fast = retry.Policy{BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}

func newModel(t *testing.T, s *server, mod func(*Options)) *Model {
	t.Helper()
	o := Options{Model: "claude-sonnet-4-5", APIKey: testKey, BaseURL: s.URL, Retry: fast}
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

func apiError(t *testing.T, err error) *APIError {
	t.Helper()
	var ae *APIError
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v (%T), want one wrapping *APIError", err, err)
	}
	return ae
}

// toJSON round-trips a recorded body value to compare it with a literal.
func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestGenerateSendsRequestAndReadsUsage(t *testing.T) {
	s := newServer(t, testKey, answer)
	m := newModel(t, s, nil)
	got, err := m.Generate(context.Background(), conv, stopOpts)
	if err != nil {
		t.Fatal(err)
	}
	want := "Thought: I will add.\n<code>\nprint(1 + 2)\n</code>"
	if got.Content != want || got.Role != providers.RoleAssistant {
		t.Fatalf("got %q (%s), want %q: the text is cut at the stop sequence by the server", got.Content, got.Role, want)
	}
	if got.Usage == nil || got.Usage.InputTokens == 0 || got.Usage.OutputTokens != len(strings.Fields(want)) {
		t.Fatalf("usage = %+v", got.Usage)
	}
	r := s.Requests()
	if len(r) != 1 {
		t.Fatalf("%d requests", len(r))
	}
	h, b := r[0].Header, r[0].Body
	if h.Get("x-api-key") != testKey || h.Get("anthropic-version") != "2023-06-01" || h.Get("Authorization") != "" {
		t.Fatalf("headers: x-api-key %q, anthropic-version %q, Authorization %q", h.Get("x-api-key"), h.Get("anthropic-version"), h.Get("Authorization"))
	}
	if b["model"] != "claude-sonnet-4-5" || number(b["max_tokens"]) != DefaultMaxTokens {
		t.Fatalf("model %v, max_tokens %v", b["model"], b["max_tokens"])
	}
	if got := toJSON(t, b["system"]); got != `[{"text":"You are an expert assistant.\n\nAnswer with code.","type":"text"}]` {
		t.Fatalf("system = %s", got)
	}
	if got := toJSON(t, b["messages"]); got != `[{"content":[{"text":"Task: add one and two","type":"text"},{"text":"Use Python.","type":"text"}],"role":"user"}]` {
		t.Fatalf("messages = %s (two user messages merge into one turn)", got)
	}
	if got := toJSON(t, b["stop_sequences"]); got != `["\u003cend_code\u003e","Observation:"]` {
		t.Fatalf("stop_sequences = %s", got)
	}
	if _, ok := b["temperature"]; ok {
		t.Fatal("temperature sent though none was set")
	}
}

func TestTemperatureMaxTokensAndExtraBody(t *testing.T) {
	s := newServer(t, testKey, answer)
	half := 0.5
	m := newModel(t, s, func(o *Options) {
		o.Temperature = &half
		o.MaxTokens = 100
		o.ExtraBody = map[string]any{"top_k": 3, "service_tier": "standard_only"}
	})
	zero := 0.0
	if _, err := m.Generate(context.Background(), conv, providers.GenerateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Generate(context.Background(), conv, providers.GenerateOptions{
		Temperature: &zero, MaxTokens: 7, ExtraBody: map[string]any{"metadata": map[string]any{"user_id": "u-1"}, "top_k": 5},
	}); err != nil {
		t.Fatal(err)
	}
	r := s.Requests()
	if number(r[0].Body["temperature"]) != 0.5 || number(r[0].Body["max_tokens"]) != 100 || number(r[0].Body["top_k"]) != 3 || r[0].Body["service_tier"] != "standard_only" {
		t.Fatalf("defaults not sent: %v", r[0].Body)
	}
	b := r[1].Body
	if number(b["temperature"]) != 0 || number(b["max_tokens"]) != 7 || number(b["top_k"]) != 5 || b["service_tier"] != "standard_only" || toJSON(t, b["metadata"]) != `{"user_id":"u-1"}` {
		t.Fatalf("per-call options not sent: %v", b)
	}
	// An unknown field goes through too, and the API's refusal is clear.
	_, err := m.Generate(context.Background(), conv, providers.GenerateOptions{ExtraBody: map[string]any{"bogus.field": 1}})
	if ae := apiError(t, err); ae.StatusCode != 400 || !strings.Contains(ae.Message, "bogus.field: Extra inputs are not permitted") {
		t.Fatalf("err = %v", err)
	}
}

func TestStreamYieldsTextAndUsage(t *testing.T) {
	s := newServer(t, testKey, answer)
	m := newModel(t, s, nil)
	var text strings.Builder
	var usage *providers.Usage
	n := 0
	for d, err := range m.GenerateStream(context.Background(), conv, stopOpts) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		text.WriteString(d.Content)
		if d.Usage != nil {
			usage = d.Usage
		}
	}
	want := "Thought: I will add.\n<code>\nprint(1 + 2)\n</code>"
	if text.String() != want || n < 4 {
		t.Fatalf("streamed %q in %d deltas, want %q", text.String(), n, want)
	}
	if usage == nil || usage.InputTokens == 0 || usage.OutputTokens != len(strings.Fields(want)) {
		t.Fatalf("usage = %+v (input from message_start, output from message_delta)", usage)
	}
	if b := s.Requests()[0].Body; b["stream"] != true {
		t.Fatalf("stream not requested: %v", b)
	}
}

var weatherTools = []providers.ToolDefinition{{
	Name: "get_weather", Description: "Weather for a city.",
	Parameters: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}},
		"required": []string{"city"}, "additionalProperties": false},
}, {
	Name: "final_answer", Description: "The final answer.",
	Parameters: map[string]any{"type": "object", "properties": map[string]any{"answer": map[string]any{}}, "required": []any{"answer"}},
}}

func TestToolUseRoundTrip(t *testing.T) {
	s := newServer(t, testKey, "")
	s.Script(
		[]block{{Text: "Checking both cities."},
			{ID: "toolu_01A", Name: "get_weather", Input: `{"city":"Paris"}`},
			{ID: "toolu_01B", Name: "get_weather", Input: `{"city":"Oslo"}`}},
		[]block{{Text: "Paris is warmer."}},
	)
	m := newModel(t, s, nil)
	msgs := []providers.Message{
		{Role: providers.RoleSystem, Content: "You call tools."},
		{Role: providers.RoleUser, Content: "Which is warmer, Paris or Oslo?"},
	}
	opts := providers.GenerateOptions{Tools: weatherTools, ToolChoice: "required"}
	got, err := m.Generate(context.Background(), msgs, opts)
	if err != nil {
		t.Fatal(err)
	}
	wantCalls := []providers.ToolCall{
		{ID: "toolu_01A", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
		{ID: "toolu_01B", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Oslo"}`)},
	}
	if got.Content != "Checking both cities." || !reflect.DeepEqual(got.ToolCalls, wantCalls) {
		t.Fatalf("got %q %s", got.Content, toJSON(t, got.ToolCalls))
	}
	b := s.Requests()[0].Body
	if toJSON(t, b["tool_choice"]) != `{"type":"any"}` {
		t.Fatalf("tool_choice = %s", toJSON(t, b["tool_choice"]))
	}
	if g := toJSON(t, b["tools"]); g != `[{"description":"Weather for a city.","input_schema":{"additionalProperties":false,"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"},"name":"get_weather"},{"description":"The final answer.","input_schema":{"properties":{"answer":{}},"required":["answer"],"type":"object"},"name":"final_answer"}]` {
		t.Fatalf("tools = %s", g)
	}

	// The results go back as tool_result blocks of one user turn, in
	// order, after the assistant's tool_use blocks; the fake checks the ids.
	msgs = append(msgs, *got,
		providers.Message{Role: providers.RoleTool, ToolCallID: "toolu_01A", Content: "Paris: 21°C"},
		providers.Message{Role: providers.RoleTool, ToolCallID: "toolu_01B", Content: "Oslo: 9°C"},
		providers.Message{Role: providers.RoleUser, Content: "Now answer."},
	)
	got, err = m.Generate(context.Background(), msgs, providers.GenerateOptions{Tools: weatherTools})
	if err != nil {
		t.Fatal(err)
	}
	if got.Content != "Paris is warmer." || len(got.ToolCalls) != 0 {
		t.Fatalf("got %+v", got)
	}
	b = s.Requests()[1].Body
	wantMsgs := `[{"content":[{"text":"Which is warmer, Paris or Oslo?","type":"text"}],"role":"user"},` +
		`{"content":[{"text":"Checking both cities.","type":"text"},{"id":"toolu_01A","input":{"city":"Paris"},"name":"get_weather","type":"tool_use"},{"id":"toolu_01B","input":{"city":"Oslo"},"name":"get_weather","type":"tool_use"}],"role":"assistant"},` +
		`{"content":[{"content":[{"text":"Paris: 21°C","type":"text"}],"tool_use_id":"toolu_01A","type":"tool_result"},{"content":[{"text":"Oslo: 9°C","type":"text"}],"tool_use_id":"toolu_01B","type":"tool_result"},{"text":"Now answer.","type":"text"}],"role":"user"}]`
	if g := toJSON(t, b["messages"]); g != wantMsgs {
		t.Fatalf("messages =\n%s\nwant\n%s", g, wantMsgs)
	}
	if toJSON(t, b["tool_choice"]) != `{"type":"auto"}` {
		t.Fatalf("tool_choice = %s", toJSON(t, b["tool_choice"]))
	}
}

func TestToolResultsGoFirstInTheirTurn(t *testing.T) {
	s := newServer(t, testKey, "ok")
	m := newModel(t, s, nil)
	msgs := []providers.Message{
		{Role: providers.RoleUser, Content: "Weather?"},
		{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{
			{ID: "toolu_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
			{ID: "toolu_2", Name: "get_weather", Arguments: json.RawMessage(`not json`)}}},
		{Role: providers.RoleUser, Content: "Note: be brief."},
		{Role: providers.RoleTool, ToolCallID: "toolu_1", Content: "21°C"},
		{Role: providers.RoleTool, ToolCallID: "toolu_2"}, // an empty result
	}
	if _, err := m.Generate(context.Background(), msgs, providers.GenerateOptions{Tools: weatherTools}); err != nil {
		t.Fatal(err)
	}
	want := `[{"content":[{"text":"Weather?","type":"text"}],"role":"user"},` +
		`{"content":[{"id":"toolu_1","input":{"city":"Paris"},"name":"get_weather","type":"tool_use"},{"id":"toolu_2","input":{},"name":"get_weather","type":"tool_use"}],"role":"assistant"},` +
		`{"content":[{"content":[{"text":"21°C","type":"text"}],"tool_use_id":"toolu_1","type":"tool_result"},{"tool_use_id":"toolu_2","type":"tool_result"},{"text":"Note: be brief.","type":"text"}],"role":"user"}]`
	if g := toJSON(t, s.Requests()[0].Body["messages"]); g != want {
		t.Fatalf("messages =\n%s\nwant\n%s", g, want)
	}
	_, err := m.Generate(context.Background(), []providers.Message{{Role: providers.RoleUser, Content: "x"}, {Role: providers.RoleTool, Content: "orphan"}}, providers.GenerateOptions{})
	if err == nil || !strings.Contains(err.Error(), "without a tool call ID") {
		t.Fatalf("err = %v", err)
	}
}

func TestToolResultMissingIsRefusedByTheAPI(t *testing.T) {
	// A conversation that answers only one of two calls is what the API
	// refuses; the fake must refuse it too, or the round trip above
	// proves nothing.
	s := newServer(t, testKey, "ok")
	m := newModel(t, s, nil)
	msgs := []providers.Message{
		{Role: providers.RoleUser, Content: "Weather?"},
		{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{
			{ID: "toolu_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
			{ID: "toolu_2", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Oslo"}`)}}},
		{Role: providers.RoleTool, ToolCallID: "toolu_1", Content: "21°C"},
	}
	_, err := m.Generate(context.Background(), msgs, providers.GenerateOptions{Tools: weatherTools})
	ae := apiError(t, err)
	if ae.StatusCode != 400 || ae.Type != "invalid_request_error" || !strings.Contains(ae.Message, "toolu_2") {
		t.Fatalf("err = %v", err)
	}
	if pe := asError(t, err); pe.Retryable || pe.Attempts != 1 {
		t.Fatalf("a 400 is not retried: %+v", pe)
	}
}

func TestStreamToolUse(t *testing.T) {
	s := newServer(t, testKey, "")
	input := `{"city":"São Paulo","units":{"temp":"celsius"},"days":[1,2,3]}`
	s.Script([]block{{Text: "Let me look."},
		{ID: "toolu_01S", Name: "get_weather", Input: input},
		{ID: "toolu_01T", Name: "final_answer", Input: `{"answer":"later"}`}})
	m := newModel(t, s, nil)
	var text strings.Builder
	var last providers.Delta
	for d, err := range m.GenerateStream(context.Background(), []providers.Message{{Role: providers.RoleUser, Content: "Weather?"}},
		providers.GenerateOptions{Tools: weatherTools}) {
		if err != nil {
			t.Fatal(err)
		}
		if len(d.ToolCalls) > 0 && d.Usage == nil {
			t.Fatal("tool calls came before the last delta")
		}
		text.WriteString(d.Content)
		last = d
	}
	want := []providers.ToolCall{
		{ID: "toolu_01S", Name: "get_weather", Arguments: json.RawMessage(input)},
		{ID: "toolu_01T", Name: "final_answer", Arguments: json.RawMessage(`{"answer":"later"}`)},
	}
	if text.String() != "Let me look." || !reflect.DeepEqual(last.ToolCalls, want) || last.Usage == nil || last.Usage.OutputTokens == 0 {
		t.Fatalf("text %q, last delta %s", text.String(), toJSON(t, last))
	}
}

func TestImagesAreSentAsBase64Blocks(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR fake pixels")
	jpg := []byte("\xff\xd8\xff\xe0 fake jpeg")
	s := newServer(t, testKey, "A chart.")
	s.Script([]block{{ID: "toolu_img", Name: "get_weather", Input: `{"city":"x"}`}}, []block{{Text: "A chart."}})
	m := newModel(t, s, nil)
	msgs := []providers.Message{{Role: providers.RoleUser, Content: "What is this?", Images: []providers.Image{
		{MIMEType: "image/png", Data: png}, {MIMEType: "IMAGE/JPEG", Data: jpg}}}}
	got, err := m.Generate(context.Background(), msgs, providers.GenerateOptions{Tools: weatherTools})
	if err != nil {
		t.Fatal(err)
	}
	b := s.Requests()[0].Body
	want := `[{"content":[{"text":"What is this?","type":"text"},` +
		`{"source":{"data":"iVBORw0KGgoAAAANSUhEUiBmYWtlIHBpeGVscw==","media_type":"image/png","type":"base64"},"type":"image"},` +
		`{"source":{"data":"/9j/4CBmYWtlIGpwZWc=","media_type":"image/jpeg","type":"base64"},"type":"image"}],"role":"user"}]`
	if g := toJSON(t, b["messages"]); g != want {
		t.Fatalf("messages =\n%s\nwant\n%s", g, want)
	}
	// An image a tool returned goes inside its tool_result.
	msgs = append(msgs, *got, providers.Message{Role: providers.RoleTool, ToolCallID: "toolu_img", Content: "plot",
		Images: []providers.Image{{MIMEType: "image/png", Data: png}}})
	if _, err := m.Generate(context.Background(), msgs, providers.GenerateOptions{Tools: weatherTools}); err != nil {
		t.Fatal(err)
	}
	turns := s.Requests()[1].Body["messages"].([]any)
	if g := toJSON(t, turns[2]); !strings.Contains(g, `"tool_result"`) || !strings.Contains(g, `"media_type":"image/png"`) {
		t.Fatalf("tool result turn = %s", g)
	}

	// A type Anthropic does not take is refused before sending.
	_, err = m.Generate(context.Background(), []providers.Message{{Role: providers.RoleUser, Content: "x",
		Images: []providers.Image{{MIMEType: "image/bmp", Data: []byte("BM")}}}}, providers.GenerateOptions{})
	if err == nil || !strings.Contains(err.Error(), `"image/bmp"`) || len(s.Requests()) != 2 {
		t.Fatalf("err = %v, %d requests", err, len(s.Requests()))
	}
	// The fake does check the bytes: a PNG labelled JPEG is refused.
	_, err = m.Generate(context.Background(), []providers.Message{{Role: providers.RoleUser, Content: "x",
		Images: []providers.Image{{MIMEType: "image/jpeg", Data: png}}}}, providers.GenerateOptions{})
	if ae := apiError(t, err); ae.StatusCode != 400 || !strings.Contains(ae.Message, "different format") {
		t.Fatalf("err = %v", err)
	}
}

func TestConversationShape(t *testing.T) {
	s := newServer(t, testKey, "done")
	m := newModel(t, s, nil)
	msgs := []providers.Message{
		{Role: providers.RoleSystem, Content: "sys"},
		{Role: providers.RoleUser, Content: "task"},
		{Role: providers.RoleAssistant, Content: "step 1"},
		{Role: providers.RoleAssistant, Content: ""},      // empty: dropped
		{Role: providers.RoleAssistant, Content: " \n\t"}, // whitespace only: dropped
		{Role: providers.RoleAssistant, Content: "step 2"},
		{Role: providers.RoleUser, Content: "obs"},
		{Role: providers.RoleSystem, Content: "late system"},
		{Role: providers.RoleAssistant, Content: "Thought: \n"}, // a prefill: trailing space trimmed
		{Role: providers.RoleSystem, Content: "  "},             // nothing to add
	}
	if _, err := m.Generate(context.Background(), msgs, providers.GenerateOptions{}); err != nil {
		t.Fatal(err)
	}
	b := s.Requests()[0].Body
	want := `[{"content":[{"text":"task","type":"text"}],"role":"user"},{"content":[{"text":"step 1","type":"text"},{"text":"step 2","type":"text"}],"role":"assistant"},{"content":[{"text":"obs","type":"text"}],"role":"user"},{"content":[{"text":"Thought:","type":"text"}],"role":"assistant"}]`
	if g := toJSON(t, b["messages"]); g != want {
		t.Fatalf("messages =\n%s\nwant\n%s", g, want)
	}
	if g := toJSON(t, b["system"]); g != `[{"text":"sys\n\nlate system","type":"text"}]` {
		t.Fatalf("system = %s", g)
	}
	// A conversation that does not start with the user is refused before sending.
	_, err := m.Generate(context.Background(), []providers.Message{{Role: providers.RoleAssistant, Content: "hi"}}, providers.GenerateOptions{})
	if err == nil || !strings.Contains(err.Error(), "must start with a user message") || len(s.Requests()) != 1 {
		t.Fatalf("err = %v", err)
	}
}

func TestReasoningEffortEnablesThinking(t *testing.T) {
	s := newServer(t, testKey, "42")
	half := 0.5
	m := newModel(t, s, func(o *Options) { o.Temperature = &half })
	got, err := m.Generate(context.Background(), conv, providers.GenerateOptions{ReasoningEffort: "medium", MaxTokens: 1000})
	if err != nil {
		t.Fatal(err)
	}
	// The thinking block is not part of the text; its tokens are output.
	if got.Content != "42" || got.Usage.OutputTokens != 1+len(strings.Fields("The user wants a sum. 1 + 2 = 3.")) {
		t.Fatalf("got %q, usage %+v", got.Content, got.Usage)
	}
	var text strings.Builder
	for d, err := range m.GenerateStream(context.Background(), conv, providers.GenerateOptions{ReasoningEffort: "medium", MaxTokens: 1000}) {
		if err != nil {
			t.Fatal(err)
		}
		text.WriteString(d.Content)
	}
	if text.String() != "42" {
		t.Fatalf("streamed %q", text.String())
	}
	b := s.Requests()[0].Body
	if toJSON(t, b["thinking"]) != `{"budget_tokens":4096,"type":"enabled"}` || number(b["max_tokens"]) != 5096 || b["temperature"] != nil {
		t.Fatalf("thinking %s, max_tokens %v, temperature %v", toJSON(t, b["thinking"]), b["max_tokens"], b["temperature"])
	}
	// With tools, thinking stays off (its blocks would have to be sent back).
	if _, err := m.Generate(context.Background(), conv, providers.GenerateOptions{ReasoningEffort: "high", Tools: weatherTools}); err != nil {
		t.Fatal(err)
	}
	if b := s.Requests()[2].Body; b["thinking"] != nil || number(b["temperature"]) != 0.5 {
		t.Fatalf("with tools: %v", b)
	}
	// The Model's default effort applies; an unknown one is refused before sending.
	m = newModel(t, s, func(o *Options) { o.ReasoningEffort = "low" })
	if _, err := m.Generate(context.Background(), conv, providers.GenerateOptions{}); err != nil {
		t.Fatal(err)
	}
	if b := s.Requests()[3].Body; toJSON(t, b["thinking"]) != `{"budget_tokens":1024,"type":"enabled"}` || number(b["max_tokens"]) != DefaultMaxTokens+1024 {
		t.Fatalf("default effort: %v", b)
	}
	if _, err := m.Generate(context.Background(), conv, providers.GenerateOptions{ReasoningEffort: "extreme"}); err == nil || !strings.Contains(err.Error(), `"extreme"`) || len(s.Requests()) != 4 {
		t.Fatalf("err = %v", err)
	}
}

func TestRetryAfterIsHonoured(t *testing.T) {
	s := newServer(t, testKey, answer, fault{Status: 429, RetryAfter: "1"})
	m := newModel(t, s, nil)
	got, err := m.Generate(context.Background(), conv, stopOpts)
	if err != nil {
		t.Fatal(err)
	}
	r := s.Requests()
	if len(r) != 2 || got.Usage.OutputTokens == 0 {
		t.Fatalf("%d requests, %+v", len(r), got)
	}
	if gap := r[1].At.Sub(r[0].At); gap < 900*time.Millisecond {
		t.Fatalf("retried after %v; retry-after asked for 1s (backoff alone is ~1ms)", gap)
	}
	// One attempt per retry, not the SDK's and ours compounded.
	if r[1].Body["model"] != "claude-sonnet-4-5" {
		t.Fatalf("body not resent intact: %v", r[1].Body)
	}
}

func TestOverloadedAndServerErrorsAreRetried(t *testing.T) {
	s := newServer(t, testKey, answer, fault{Status: 529}, fault{Status: 500}, fault{Status: 502, Body: "<html>Bad Gateway</html>"})
	m := newModel(t, s, nil)
	got, err := m.Generate(context.Background(), conv, stopOpts)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got.Content, "Thought:") || len(s.Requests()) != 4 {
		t.Fatalf("content %q after %d requests", got.Content, len(s.Requests()))
	}
}

func TestOverloadedExhaustsRetries(t *testing.T) {
	var faults []fault
	for range 10 {
		faults = append(faults, fault{Status: 529})
	}
	s := newServer(t, testKey, answer, faults...)
	m := newModel(t, s, func(o *Options) { o.MaxRetries = 2 })
	_, err := m.Generate(context.Background(), conv, stopOpts)
	pe := asError(t, err)
	ae := apiError(t, err)
	if pe.StatusCode != 529 || !pe.Retryable || pe.Attempts != 3 || len(s.Requests()) != 3 || ae.Type != "overloaded_error" {
		t.Fatalf("err = %+v, %d requests", pe, len(s.Requests()))
	}
	if !strings.Contains(err.Error(), "after 3 attempts") || !strings.Contains(err.Error(), "overloaded_error: Overloaded") {
		t.Fatalf("error text: %v", err)
	}
}

func TestNoRetriesWhenDisabled(t *testing.T) {
	s := newServer(t, testKey, answer, fault{Status: 529})
	m := newModel(t, s, func(o *Options) { o.MaxRetries = -1 })
	if _, err := m.Generate(context.Background(), conv, stopOpts); err == nil || len(s.Requests()) != 1 {
		t.Fatalf("err = %v, %d requests", err, len(s.Requests()))
	}
}

func TestWrongKeyIsClearAndNotRetried(t *testing.T) {
	s := newServer(t, "sk-ant-the-right-key", answer)
	m := newModel(t, s, nil)
	_, err := m.Generate(context.Background(), conv, stopOpts)
	pe := asError(t, err)
	ae := apiError(t, err)
	if pe.StatusCode != 401 || pe.Retryable || len(s.Requests()) != 1 || ae.Type != "authentication_error" {
		t.Fatalf("err = %+v, %d requests", pe, len(s.Requests()))
	}
	msg := err.Error()
	if !strings.Contains(msg, "check the API key") || !strings.Contains(msg, "authentication_error: invalid x-api-key") || strings.Contains(msg, testKey) {
		t.Fatalf("error text: %s", msg)
	}
	for _, m := range []string{msg, toJSON(t, pe)} {
		if strings.Contains(m, testKey) {
			t.Fatalf("key leaked: %s", m)
		}
	}
}

func TestStreamRetriesBeforeFirstEvent(t *testing.T) {
	s := newServer(t, testKey, answer, fault{Status: 429, RetryAfter: "0"}, fault{Status: 529})
	m := newModel(t, s, nil)
	var text strings.Builder
	for d, err := range m.GenerateStream(context.Background(), conv, stopOpts) {
		if err != nil {
			t.Fatal(err)
		}
		text.WriteString(d.Content)
	}
	if !strings.HasPrefix(text.String(), "Thought:") || len(s.Requests()) != 3 {
		t.Fatalf("%q after %d requests", text.String(), len(s.Requests()))
	}
}

func TestStreamErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		f     fault
		want  string
		typ   string
		retry bool
	}{
		{"error event", fault{StreamError: "overloaded_error"}, "overloaded_error: Overloaded", "overloaded_error", true},
		{"cut", fault{CutStream: true}, "", "", true},
		{"ended without message_stop", fault{EndEarly: true}, "stream ended before message_stop", "", true},
		{"block index out of order", fault{BadIndex: true}, "out of order", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, testKey, strings.Repeat("word ", 20), tc.f)
			m := newModel(t, s, nil)
			var last error
			n := 0
			for _, err := range m.GenerateStream(context.Background(), conv, stopOpts) {
				n++
				last = err
			}
			pe := asError(t, last)
			if !pe.Retryable || len(s.Requests()) != 1 || (n < 2 && !tc.f.BadIndex) || !strings.Contains(last.Error(), tc.want) {
				t.Fatalf("err = %v after %d deltas, %d requests", last, n, len(s.Requests()))
			}
			if tc.typ != "" {
				if ae := apiError(t, last); ae.Type != tc.typ || pe.StatusCode != 529 || !strings.Contains(last.Error(), tc.want) {
					t.Fatalf("err = %v", last)
				}
			}
		})
	}
}

func TestMalformedAndHostileResponses(t *testing.T) {
	s := newServer(t, testKey, answer, fault{Malformed: true})
	m := newModel(t, s, nil)
	_, err := m.Generate(context.Background(), conv, stopOpts)
	if pe := asError(t, err); !pe.Retryable || pe.StatusCode != 200 || !strings.Contains(err.Error(), "malformed response") {
		t.Fatalf("err = %v", err)
	}

	// A huge error message (a hostile or broken proxy) is cut, and a key
	// it echoes is redacted.
	huge := `{"type":"error","error":{"type":"invalid_request_error","message":"key ` + testKey + " " + strings.Repeat("x", 1<<20) + `"}}`
	s = newServer(t, testKey, answer, fault{Status: 400, Body: huge})
	m = newModel(t, s, nil)
	_, err = m.Generate(context.Background(), conv, stopOpts)
	ae := apiError(t, err)
	if len(err.Error()) > 2300 || strings.Contains(err.Error(), testKey) || !strings.Contains(ae.Message, "[REDACTED]") || ae.Type != "invalid_request_error" {
		t.Fatalf("error of %d bytes: %.300s", len(err.Error()), err)
	}
	// A body that is not Anthropic's JSON is still reported.
	s = newServer(t, testKey, answer, fault{Status: 400, Body: "<html>400 Bad Request</html>"})
	m = newModel(t, s, nil)
	_, err = m.Generate(context.Background(), conv, stopOpts)
	if ae := apiError(t, err); ae.StatusCode != 400 || !strings.Contains(ae.Message, "<html>400 Bad Request") {
		t.Fatalf("err = %v", err)
	}
}

func TestRefusalIsAnError(t *testing.T) {
	s := newServer(t, testKey, answer, fault{Refuse: true}, fault{Refuse: true})
	m := newModel(t, s, nil)
	_, err := m.Generate(context.Background(), conv, stopOpts)
	if pe := asError(t, err); pe.Retryable || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("err = %v", err)
	}
	var last error
	for _, err := range m.GenerateStream(context.Background(), conv, stopOpts) {
		last = err
	}
	if pe := asError(t, last); pe.Retryable || !strings.Contains(last.Error(), "refused") {
		t.Fatalf("stream err = %v", last)
	}
}

func TestCancelStopsPromptly(t *testing.T) {
	t.Run("hanging server", func(t *testing.T) {
		s := newServer(t, testKey, answer, fault{Hang: true})
		m := newModel(t, s, nil)
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			for len(s.Requests()) == 0 {
				time.Sleep(time.Millisecond)
			}
			cancel()
		}()
		_, err := m.Generate(ctx, conv, stopOpts)
		if !errors.Is(err, context.Canceled) || len(s.Requests()) != 1 {
			t.Fatalf("err = %v, %d requests", err, len(s.Requests()))
		}
	})
	t.Run("stalled stream", func(t *testing.T) {
		s := newServer(t, testKey, strings.Repeat("word ", 50), fault{Stall: true})
		m := newModel(t, s, nil)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		n := 0
		var last error
		for d, err := range m.GenerateStream(ctx, conv, stopOpts) {
			n++
			if d.Content != "" && n == 2 {
				// The server sends nothing more; only the cancel ends the wait.
				go cancel()
			}
			last = err
		}
		if !errors.Is(last, context.Canceled) || n != 3 {
			t.Fatalf("last = %v after %d deltas, want context.Canceled", last, n)
		}
	})
	t.Run("mid stream", func(t *testing.T) {
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
		if !errors.Is(last, context.Canceled) || n != 3 {
			t.Fatalf("last = %v after %d deltas, want context.Canceled right after the cancel", last, n)
		}
	})
}

func TestNewValidates(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "")
	if _, err := New(Options{APIKey: "k"}); err == nil || !strings.Contains(err.Error(), "model") {
		t.Fatalf("no model: %v", err)
	}
	for _, key := range []string{"", " "} {
		if _, err := New(Options{Model: "claude", APIKey: key}); !errors.Is(err, providers.ErrNoAPIKey) || !strings.Contains(err.Error(), "set ANTHROPIC_API_KEY or Options.APIKey") {
			t.Fatalf("key %q: error %v, want ErrNoAPIKey naming the variable and option", key, err)
		}
	}
	if _, err := New(Options{Model: "claude", APIKey: "k", BaseURL: "https://api.anthropic.com/v1"}); err == nil || !strings.Contains(err.Error(), "without /v1") {
		t.Fatalf("base URL with /v1: %v", err)
	}
	s := newServer(t, testKey, "from env")
	t.Setenv("ANTHROPIC_API_KEY", testKey)
	m, err := New(Options{Model: "claude-haiku-4-5", BaseURL: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.Generate(context.Background(), conv, providers.GenerateOptions{})
	if err != nil || got.Content != "from env" {
		t.Fatalf("%v %v", got, err)
	}
	if m.ModelID() != "claude-haiku-4-5" {
		t.Fatal(m.ModelID())
	}
}

// recordTransport records the requests it is given and answers none: it
// never dials.
type recordTransport struct{ reqs []*http.Request }

func (rt *recordTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rt.reqs = append(rt.reqs, r)
	return nil, errors.New("recordTransport: not sending")
}

func TestDefaultBaseURLAndHeaders(t *testing.T) {
	rt := &recordTransport{}
	m, err := New(Options{Model: "claude-sonnet-4-5", APIKey: testKey, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: rt}, Headers: map[string]string{"anthropic-beta": "some-beta-2025-01-01"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Generate(context.Background(), conv, providers.GenerateOptions{})
	pe := asError(t, err)
	if !pe.Retryable || pe.StatusCode != 0 || !strings.Contains(err.Error(), "not sending") || strings.Contains(err.Error(), testKey) {
		t.Fatalf("err = %v", err)
	}
	if len(rt.reqs) != 1 {
		t.Fatalf("%d requests", len(rt.reqs))
	}
	r := rt.reqs[0]
	if r.URL.String() != "https://api.anthropic.com/v1/messages" || r.Header.Get("anthropic-beta") != "some-beta-2025-01-01" || r.Header.Get("x-api-key") != testKey {
		t.Fatalf("%s %v", r.URL, r.Header)
	}
}

func BenchmarkGenerate(b *testing.B) {
	s := newServer(b, testKey, answer)
	m, err := New(Options{Model: "claude-sonnet-4-5", APIKey: testKey, BaseURL: s.URL})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Generate(ctx, conv, stopOpts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGenerateStream(b *testing.B) {
	s := newServer(b, testKey, answer)
	m, err := New(Options{Model: "claude-sonnet-4-5", APIKey: testKey, BaseURL: s.URL})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		for _, err := range m.GenerateStream(ctx, conv, stopOpts) {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

var thoughtCode = &providers.ResponseSchema{Name: "step", Schema: map[string]any{
	"type": "object", "required": []any{"thought", "code"},
	"properties": map[string]any{
		"thought": map[string]any{"type": "string"},
		"code":    map[string]any{"type": "string"},
		"meta":    map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}},
	},
}}

func TestResponseSchemaUsesOutputConfig(t *testing.T) {
	reply := `{"thought":"add","code":"print(1 + 2)"}`
	s := newServer(t, testKey, reply)
	m := newModel(t, s, nil)
	got, err := m.Generate(context.Background(), conv, providers.GenerateOptions{ResponseSchema: thoughtCode})
	if err != nil {
		t.Fatal(err)
	}
	if got.Content != reply {
		t.Fatalf("got %q", got.Content)
	}
	// Objects are closed (the API requires it), the caller's schema is not modified.
	want := `{"format":{"schema":{"additionalProperties":false,"properties":{"code":{"type":"string"},"meta":{"additionalProperties":false,"properties":{"n":{"type":"integer"}},"type":"object"},"thought":{"type":"string"}},"required":["thought","code"],"type":"object"},"type":"json_schema"}}`
	if g := toJSON(t, s.Requests()[0].Body["output_config"]); g != want {
		t.Fatalf("output_config =\n%s\nwant\n%s", g, want)
	}
	if _, ok := thoughtCode.Schema["additionalProperties"]; ok {
		t.Fatal("the caller's schema was modified")
	}
}

func TestResponseSchemaFallsBackOnOlderModels(t *testing.T) {
	reply := `{"thought":"add","code":"print(1 + 2)"}`
	s := newServer(t, testKey, reply)
	m := newModel(t, s, func(o *Options) { o.Model = anthropicfake.OlderModel })
	got, err := m.Generate(context.Background(), conv, providers.GenerateOptions{ResponseSchema: thoughtCode})
	if err != nil || got.Content != reply {
		t.Fatalf("%v %v", got, err)
	}
	var text strings.Builder
	for d, err := range m.GenerateStream(context.Background(), conv, providers.GenerateOptions{ResponseSchema: thoughtCode}) {
		if err != nil {
			t.Fatal(err)
		}
		text.WriteString(d.Content)
	}
	r := s.Requests()
	// Refused once, sent again without it, and not tried again (the stream
	// call remembers).
	if len(r) != 3 || r[0].Body["output_config"] == nil || r[1].Body["output_config"] != nil || r[2].Body["output_config"] != nil || text.String() != reply {
		t.Fatalf("%d requests; streamed %q", len(r), text.String())
	}

	// A fresh model learns it from a stream too.
	s2 := newServer(t, testKey, reply)
	m2 := newModel(t, s2, func(o *Options) { o.Model = anthropicfake.OlderModel })
	text.Reset()
	for d, err := range m2.GenerateStream(context.Background(), conv, providers.GenerateOptions{ResponseSchema: thoughtCode}) {
		if err != nil {
			t.Fatal(err)
		}
		text.WriteString(d.Content)
	}
	if r := s2.Requests(); len(r) != 2 || r[1].Body["output_config"] != nil || text.String() != reply {
		t.Fatalf("%d requests; streamed %q", len(r), text.String())
	}
}
