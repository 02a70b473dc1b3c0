package openai

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/star-agent/star-agent/providers"
)

func ptr[T any](v T) *T { return &v }

// TestReasoningModelRejectsStop: a model outside the known families that
// rejects stop, max_tokens and temperature as OpenAI's reasoning models
// do is sent the call again without each, and the Model remembers: the
// second call succeeds at once.
func TestReasoningModelRejectsStop(t *testing.T) {
	for _, stream := range []bool{false, true} {
		s := newServer(t, testKey, answer)
		s.reasoning = true
		m := newModel(t, s, func(o *Options) { o.Model = "acme-reasoner" })
		opts := providers.GenerateOptions{StopSequences: stopOpts.StopSequences, MaxTokens: 500, Temperature: ptr(0.2), ReasoningEffort: "low"}
		for call := range 2 {
			var got string
			if stream {
				for d, err := range m.GenerateStream(context.Background(), conv, opts) {
					if err != nil {
						t.Fatal(err)
					}
					got += d.Content
				}
			} else {
				msg, err := m.Generate(context.Background(), conv, opts)
				if err != nil {
					t.Fatal(err)
				}
				got = msg.Content
			}
			if got != answer {
				// stop is no longer sent: the whole answer comes back,
				// and the caller cuts it.
				t.Fatalf("call %d: content = %q", call, got)
			}
		}
		reqs := s.reqs()
		// stop, then max_tokens, then temperature: 3 rejected, 1 good,
		// then 1 good.
		if len(reqs) != 5 {
			t.Fatalf("stream=%v: %d requests, want 5", stream, len(reqs))
		}
		last := reqs[4].body
		for _, k := range []string{"stop", "max_tokens", "temperature"} {
			if _, ok := last[k]; ok {
				t.Errorf("%s sent after the server rejected it: %v", k, last)
			}
		}
		if last["max_completion_tokens"] != 500.0 || last["reasoning_effort"] != "low" {
			t.Errorf("body = %v", last)
		}
	}
}

// TestKnownReasoningFamilyNeverGetsStop: o3-mini and the like are never
// sent stop, max_tokens or a temperature: one request.
func TestKnownReasoningFamilyNeverGetsStop(t *testing.T) {
	for _, name := range []string{"o1", "o3-mini", "o4-mini", "gpt-5", "gpt-5-mini", "gpt-5.1", "openai/o3", "gpt-6-astra"} {
		s := newServer(t, testKey, answer)
		s.reasoning = true
		m := newModel(t, s, func(o *Options) { o.Model = name; o.Temperature = ptr(0.0); o.MaxTokens = 100 })
		if _, err := m.Generate(context.Background(), conv, stopOpts); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if n := len(s.reqs()); n != 1 {
			t.Errorf("%s: %d requests, want 1", name, n)
		}
	}
	for _, name := range []string{"gpt-4o", "gpt-4.1", "ollama/qwen3", "qwen-o1"} {
		if isReasoningModel(name) {
			t.Errorf("%s taken for a reasoning model", name)
		}
	}
}

// TestInvalidStopIsNotDropped: a 400 about stop's value (too many) is the
// caller's error, not a reason to drop stop.
func TestRejectedValueIsNotRetried(t *testing.T) {
	s := newServer(t, testKey, answer)
	m := newModel(t, s, nil)
	_, err := m.Generate(context.Background(), conv, providers.GenerateOptions{StopSequences: []string{"a", "b", "c", "d", "e"}})
	if pe := asError(t, err); pe.StatusCode != 400 || len(s.reqs()) != 1 {
		t.Fatalf("err = %v after %d requests", err, len(s.reqs()))
	}
	if q := m.quirks.get(); q.noStop {
		t.Fatal("stop dropped for good after a bad value")
	}
}

// TestLearningIsConcurrencySafe: many calls at once against a reasoning
// server all succeed (run with -race).
func TestLearningIsConcurrencySafe(t *testing.T) {
	s := newServer(t, testKey, answer)
	s.reasoning = true
	m := newModel(t, s, func(o *Options) { o.Model = "acme-reasoner" })
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			_, err := m.Generate(context.Background(), conv, stopOpts)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestServerIgnoringStop: the whole text comes back; nothing breaks.
func TestServerIgnoringStop(t *testing.T) {
	s := newServer(t, testKey, answer)
	s.ignoreStop = true
	m := newModel(t, s, nil)
	got, err := m.Generate(context.Background(), conv, stopOpts)
	if err != nil || got.Content != answer {
		t.Fatalf("%v %+v", err, got)
	}
	if st := s.reqs()[0].body["stop"].([]any); len(st) != 2 {
		t.Fatalf("stop = %v", st)
	}
}

var weatherTools = []providers.ToolDefinition{
	{Name: "get_weather", Description: "The weather in a city.", Parameters: map[string]any{
		"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}}},
	{Name: "get_time", Description: "The time in a city.", Parameters: map[string]any{
		"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}}},
}

var twoCalls = []fakeCall{
	{id: "call_Xa1", name: "get_weather", args: `{"city": "Paris"}`},
	{id: "call_Yb2", name: "get_time", args: `{"city": "Tokyo, Japan"}`},
}

func checkCalls(t *testing.T, got []providers.ToolCall) {
	t.Helper()
	if len(got) != 2 {
		t.Fatalf("tool calls = %+v", got)
	}
	for i, c := range twoCalls {
		var a, b any
		json.Unmarshal(got[i].Arguments, &a)
		json.Unmarshal([]byte(c.args), &b)
		if got[i].ID != c.id || got[i].Name != c.name || !jsonEqual(a, b) {
			t.Errorf("call %d = %s %s %s, want %+v", i, got[i].ID, got[i].Name, got[i].Arguments, c)
		}
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// TestToolCalls: tools go out as function tools; two calls in one message
// come back, non-streamed and streamed in pieces; the answers go back as
// tool messages with their ids after the assistant message with its
// calls, which the strict server checks.
func TestToolCalls(t *testing.T) {
	for _, stream := range []bool{false, true} {
		s := newServer(t, testKey, "")
		s.calls = twoCalls
		m := newModel(t, s, nil)
		opts := providers.GenerateOptions{Tools: weatherTools, ToolChoice: "required"}
		var got *providers.Message
		if stream {
			got = &providers.Message{Role: providers.RoleAssistant}
			n := 0
			for d, err := range m.GenerateStream(context.Background(), conv, opts) {
				if err != nil {
					t.Fatal(err)
				}
				n++
				got.Content += d.Content
				if d.ToolCalls != nil && d.Usage == nil {
					t.Fatal("tool calls before the last delta")
				}
				got.ToolCalls = append(got.ToolCalls, d.ToolCalls...)
			}
		} else {
			var err error
			if got, err = m.Generate(context.Background(), conv, opts); err != nil {
				t.Fatal(err)
			}
		}
		checkCalls(t, got.ToolCalls)
		if got.Content != "" {
			t.Fatalf("content = %q", got.Content)
		}
		body := s.reqs()[0].body
		tl := body["tools"].([]any)
		fn := tl[0].(map[string]any)["function"].(map[string]any)
		if len(tl) != 2 || tl[0].(map[string]any)["type"] != "function" || fn["name"] != "get_weather" ||
			fn["parameters"].(map[string]any)["required"].([]any)[0] != "city" || body["tool_choice"] != "required" {
			t.Fatalf("tools = %v, tool_choice %v", tl, body["tool_choice"])
		}

		// The answers go back.
		s.calls = nil
		s.answer = "It is sunny in Paris."
		conv2 := append(append([]providers.Message(nil), conv...), *got,
			providers.Message{Role: providers.RoleTool, ToolCallID: "call_Xa1", Content: "sunny"},
			providers.Message{Role: providers.RoleTool, ToolCallID: "call_Yb2", Content: "09:00"})
		ans, err := m.Generate(context.Background(), conv2, opts)
		if err != nil || ans.Content != s.answer {
			t.Fatalf("%v %+v", err, ans)
		}
		msgs := s.reqs()[1].body["messages"].([]any)
		asst := msgs[2].(map[string]any)
		tc := asst["tool_calls"].([]any)
		if len(tc) != 2 || tc[1].(map[string]any)["function"].(map[string]any)["name"] != "get_time" {
			t.Fatalf("assistant = %v", asst)
		}
		if tm := msgs[4].(map[string]any); tm["role"] != "tool" || tm["tool_call_id"] != "call_Yb2" || tm["content"] != "09:00" {
			t.Fatalf("tool message = %v", tm)
		}
	}
}

// TestUnansweredToolCallIsRefused: the strict fake refuses a conversation
// that leaves a call unanswered, as OpenAI does; the error says which.
func TestUnansweredToolCallIsRefused(t *testing.T) {
	s := newServer(t, testKey, "ok")
	m := newModel(t, s, nil)
	c := append(append([]providers.Message(nil), conv...),
		providers.Message{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}}},
		providers.Message{Role: providers.RoleUser, Content: "and?"})
	_, err := m.Generate(context.Background(), c, providers.GenerateOptions{Tools: weatherTools})
	if pe := asError(t, err); pe.StatusCode != 400 || !strings.Contains(pe.Message, "call_1") {
		t.Fatalf("err = %v", err)
	}
}

// TestBrokenArguments: a model's arguments that are not JSON come back as
// a JSON string, so memory stays valid JSON.
func TestBrokenArguments(t *testing.T) {
	s := newServer(t, testKey, "")
	s.calls = []fakeCall{{id: "call_1", name: "get_weather", args: `{"city": "Par`}, {id: "call_2", name: "get_time"}}
	m := newModel(t, s, nil)
	got, err := m.Generate(context.Background(), conv, providers.GenerateOptions{Tools: weatherTools})
	if err != nil {
		t.Fatal(err)
	}
	if string(got.ToolCalls[0].Arguments) != `"{\"city\": \"Par"` || string(got.ToolCalls[1].Arguments) != "{}" {
		t.Fatalf("arguments = %s, %s", got.ToolCalls[0].Arguments, got.ToolCalls[1].Arguments)
	}
	if _, err := json.Marshal(got); err != nil {
		t.Fatal(err)
	}
}

func testPNG(t testing.TB, w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x * 7), uint8(y * 13), uint8(x ^ y), 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestImages: a user message's image becomes an image_url part with a
// data: URL holding its bytes; a tool result's image follows the run of
// tool messages as a user message, the only role OpenAI allows images in.
func TestImages(t *testing.T) {
	pic := testPNG(t, 8, 8)
	s := newServer(t, testKey, "A gradient.")
	m := newModel(t, s, nil)
	c := []providers.Message{
		conv[0],
		{Role: providers.RoleUser, Content: "What is in this image?", Images: []providers.Image{{MIMEType: "image/png", Data: pic}}},
		{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{{ID: "call_1", Name: "screenshot", Arguments: json.RawMessage(`{}`)}, {ID: "call_2", Name: "screenshot", Arguments: json.RawMessage(`{}`)}}},
		{Role: providers.RoleTool, ToolCallID: "call_1", Content: "a screenshot", Images: []providers.Image{{MIMEType: "image/png", Data: pic}}},
		{Role: providers.RoleTool, ToolCallID: "call_2", Content: "another"},
		{Role: providers.RoleAssistant, Content: "Observation:", Images: []providers.Image{{MIMEType: "image/png", Data: pic}}},
	}
	if _, err := m.Generate(context.Background(), c, providers.GenerateOptions{}); err != nil {
		t.Fatal(err)
	}
	msgs := s.reqs()[0].body["messages"].([]any)
	roles := []string{}
	for _, x := range msgs {
		roles = append(roles, x.(map[string]any)["role"].(string))
	}
	if got := strings.Join(roles, " "); got != "system user assistant tool tool user assistant user" {
		t.Fatalf("roles = %s", got)
	}
	parts := msgs[1].(map[string]any)["content"].([]any)
	if len(parts) != 2 || parts[0].(map[string]any)["text"] != "What is in this image?" {
		t.Fatalf("parts = %v", parts)
	}
	u := parts[1].(map[string]any)["image_url"].(map[string]any)["url"].(string)
	data, ok := strings.CutPrefix(u, "data:image/png;base64,")
	b, err := base64.StdEncoding.DecodeString(data)
	if !ok || err != nil || !bytes.Equal(b, pic) {
		t.Fatalf("url = %.60s…", u)
	}
	if p := msgs[5].(map[string]any)["content"].([]any); len(p) != 2 || p[1].(map[string]any)["type"] != "image_url" {
		t.Fatalf("tool images message = %v", msgs[5])
	}

	// A wrong MIME type is refused by the strict fake, as by OpenAI.
	c[1].Images[0].MIMEType = "image/jpeg"
	_, err = m.Generate(context.Background(), c[:2], providers.GenerateOptions{})
	if pe := asError(t, err); pe.StatusCode != 400 || !strings.Contains(pe.Message, "image") {
		t.Fatalf("err = %v", err)
	}
}

var codeSchema = &providers.ResponseSchema{Name: "thought_and_code", Schema: map[string]any{
	"type": "object", "additionalProperties": false, "required": []any{"thought", "code"},
	"properties": map[string]any{"thought": map[string]any{"type": "string"}, "code": map[string]any{"type": "string"}},
}}

// TestResponseFormat: the schema goes as a strict json_schema
// response_format; a server without structured outputs gets the call
// again without it, once, and never again.
func TestResponseFormat(t *testing.T) {
	const js = `{"thought": "add", "code": "print(1 + 2)"}`
	s := newServer(t, testKey, js)
	m := newModel(t, s, nil)
	got, err := m.Generate(context.Background(), conv, providers.GenerateOptions{ResponseSchema: codeSchema})
	if err != nil || got.Content != js {
		t.Fatalf("%v %+v", err, got)
	}
	rf := s.reqs()[0].body["response_format"].(map[string]any)
	j := rf["json_schema"].(map[string]any)
	if rf["type"] != "json_schema" || j["name"] != "thought_and_code" || j["strict"] != true ||
		j["schema"].(map[string]any)["required"].([]any)[1] != "code" {
		t.Fatalf("response_format = %v", rf)
	}

	s = newServer(t, testKey, js)
	s.noResponseFormat = true
	m = newModel(t, s, nil)
	for range 2 {
		for d, err := range m.GenerateStream(context.Background(), conv, providers.GenerateOptions{ResponseSchema: codeSchema}) {
			if err != nil {
				t.Fatal(err)
			}
			_ = d
		}
	}
	if n := len(s.reqs()); n != 3 {
		t.Fatalf("%d requests, want 3 (rejected, without, without)", n)
	}
	if _, ok := s.reqs()[2].body["response_format"]; ok {
		t.Fatal("response_format sent again")
	}

	// A schema the server finds invalid is the caller's error.
	s = newServer(t, testKey, js)
	m = newModel(t, s, nil)
	bad := &providers.ResponseSchema{Name: "x", Schema: map[string]any{"type": "object"}}
	_, err = m.Generate(context.Background(), conv, providers.GenerateOptions{ResponseSchema: bad})
	if pe := asError(t, err); pe.StatusCode != 400 || !strings.Contains(pe.Message, "additionalProperties") || len(s.reqs()) != 1 {
		t.Fatalf("err = %v", err)
	}
}

// TestExtraBody: fields of the Model's and the call's extra body are
// merged into the JSON body, the call's winning, on every retry.
func TestExtraBody(t *testing.T) {
	s := newServer(t, testKey, answer, fault{status: 503})
	s.extraFields = []string{"top_k", "chat_template_kwargs"}
	m := newModel(t, s, func(o *Options) {
		o.ExtraBody = map[string]any{"top_k": 40, "seed": 7}
	})
	opts := providers.GenerateOptions{ExtraBody: map[string]any{"top_k": 20, "chat_template_kwargs": map[string]any{"enable_thinking": false}}}
	if _, err := m.Generate(context.Background(), conv, opts); err != nil {
		t.Fatal(err)
	}
	reqs := s.reqs()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for _, r := range reqs {
		if r.body["top_k"] != 20.0 || r.body["seed"] != 7.0 || r.body["chat_template_kwargs"].(map[string]any)["enable_thinking"] != false || r.body["model"] != "gpt-4o-mini" {
			t.Fatalf("body = %v", r.body)
		}
	}
	// Streaming too; and the strict (OpenAI) server refuses a field it
	// does not know, which is reported, not hidden.
	s2 := newServer(t, testKey, answer)
	m2 := newModel(t, s2, nil)
	for _, err := range m2.GenerateStream(context.Background(), conv, opts) {
		if pe := asError(t, err); !strings.Contains(pe.Message, "Unrecognized request argument supplied") {
			t.Fatalf("err = %v", err)
		}
		break
	}
}

// TestMaxCompletionTokensForOpenAI: OpenAI's own API gets
// max_completion_tokens for every model; other servers get max_tokens.
func TestMaxCompletionTokensForOpenAI(t *testing.T) {
	m, err := New(Options{Model: "gpt-4o-mini", APIKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	r := m.request(conv, providers.GenerateOptions{MaxTokens: 10}, &imageTable{})
	//lint:ignore SA1019 other servers are sent max_tokens: checked below
	if r.MaxCompletionTokens != 10 || r.MaxTokens != 0 {
		t.Fatalf("request = %+v", r)
	}
	s := newServer(t, testKey, answer)
	m = newModel(t, s, nil)
	//lint:ignore SA1019 servers other than OpenAI's take max_tokens only
	if r := m.request(conv, providers.GenerateOptions{MaxTokens: 10}, &imageTable{}); r.MaxTokens != 10 {
		t.Fatalf("request = %+v", r)
	}
}

// noisyPNG is a w×h PNG of pseudo-random pixels, which compresses as
// badly as a photograph (about 3 bytes a pixel).
func noisyPNG(t testing.TB, w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	x := uint32(2463534242)
	for i := 0; i < len(img.Pix); i += 4 {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = byte(x), byte(x>>8), byte(x>>16), 255
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// BenchmarkImageEncoding measures what an image costs a request: base64
// into a data: URL and JSON encoding of the request body, per 1-megapixel
// PNG (1000x1000 pseudo-random pixels, about 3 MB): ns/op is the cost per
// megapixel; -benchmem shows the allocations.
func BenchmarkImageEncoding(b *testing.B) {
	pic := noisyPNG(b, 1000, 1000)
	b.ReportMetric(float64(len(pic))/1e6, "MB-png")
	m, err := New(Options{Model: "gpt-4o-mini", APIKey: testKey})
	if err != nil {
		b.Fatal(err)
	}
	msgs := []providers.Message{{Role: providers.RoleUser, Content: "What is this?", Images: []providers.Image{{MIMEType: "image/png", Data: pic}}}}
	b.SetBytes(int64(len(pic)))
	b.ResetTimer()
	for b.Loop() {
		// What a call does: build the request, go-openai marshals it,
		// bodyTransport splices the base64 in.
		images := &imageTable{}
		body, err := json.Marshal(m.request(msgs, providers.GenerateOptions{}, images))
		if err != nil {
			b.Fatal(err)
		}
		if body = images.splice(body); len(body) < len(pic)*4/3 {
			b.Fatalf("body of %d bytes", len(body))
		}
	}
}

// TestSpliceLeavesLookalikesAlone: text that looks like a placeholder
// (another nonce, a bad index, no closing quote) is sent as written; only
// the request's own placeholders become data: URLs.
func TestSpliceLeavesLookalikesAlone(t *testing.T) {
	tab := &imageTable{}
	u := tab.placeholder(providers.Image{MIMEType: "image/gif", Data: []byte("GIF89a")})
	for _, text := range []string{
		`star-agent-image:0000000000000000:0`,
		tab.prefix + `7`,
		tab.prefix + `x`,
		tab.prefix + `-1`,
		`"` + tab.prefix,
	} {
		body, _ := json.Marshal(map[string]any{"text": text, "url": u})
		got := string(tab.splice(body))
		want := `{"text":` + string(must(json.Marshal(text))) + `,"url":"data:image/gif;base64,R0lGODlh"}`
		if got != want {
			t.Errorf("splice(%s) = %s, want %s", body, got, want)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// BenchmarkImageRequest is a whole call with a 1-megapixel PNG to a
// loopback server that reads the body and answers at once.
func BenchmarkImageRequest(b *testing.B) {
	pic := noisyPNG(b, 1000, 1000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	}))
	defer srv.Close()
	m, err := New(Options{Model: "gpt-4o-mini", APIKey: testKey, BaseURL: srv.URL + "/v1"})
	if err != nil {
		b.Fatal(err)
	}
	msgs := []providers.Message{{Role: providers.RoleUser, Content: "What is this?", Images: []providers.Image{{MIMEType: "image/png", Data: pic}}}}
	b.SetBytes(int64(len(pic)))
	for b.Loop() {
		if _, err := m.Generate(context.Background(), msgs, providers.GenerateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestClientSideRefusalIsNotRetried: a request go-openai refuses before
// sending (a GPT-6 model with tools and reasoning needs the Responses
// API) is reported as not retryable, and nothing is sent.
func TestClientSideRefusalIsNotRetried(t *testing.T) {
	s := newServer(t, testKey, answer)
	m := newModel(t, s, func(o *Options) { o.Model = "gpt-6-sol" })
	_, err := m.Generate(context.Background(), conv, providers.GenerateOptions{Tools: weatherTools, ReasoningEffort: "high"})
	if pe := asError(t, err); pe.Retryable || !strings.Contains(pe.Message, "Responses API") || len(s.reqs()) != 0 {
		t.Fatalf("err = %+v, %d requests", err, len(s.reqs()))
	}
}
