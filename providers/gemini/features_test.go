package gemini

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
	"testing"

	"github.com/star-agent/star-agent/providers"
)

var weatherTools = []providers.ToolDefinition{
	{Name: "get_weather", Description: "The weather in a city.", Parameters: map[string]any{
		"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}}},
	{Name: "get_time", Description: "The time in a city.", Parameters: map[string]any{
		"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}}},
}

var twoCalls = []fakeCall{
	{name: "get_weather", args: map[string]any{"city": "Paris"}},
	{name: "get_time", args: map[string]any{"city": "Tokyo"}},
}

func generate(t *testing.T, m *Model, stream bool, msgs []providers.Message, opts providers.GenerateOptions) *providers.Message {
	t.Helper()
	if !stream {
		got, err := m.Generate(context.Background(), msgs, opts)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	got := &providers.Message{Role: providers.RoleAssistant}
	for d, err := range m.GenerateStream(context.Background(), msgs, opts) {
		if err != nil {
			t.Fatal(err)
		}
		if d.ToolCalls != nil && d.Usage == nil {
			t.Fatal("tool calls before the last delta")
		}
		got.Content += d.Content
		got.ToolCalls = append(got.ToolCalls, d.ToolCalls...)
	}
	return got
}

// TestFunctionCalls: tools go out as function declarations with their
// JSON schemas; two calls come back (streamed, in two chunks) with
// synthesised, stable, distinct ids and the thought signature; the
// results go back as functionResponse parts by name, in the order of the
// calls even when given in another order, and the calls with their
// signature, which the strict fake checks.
func TestFunctionCalls(t *testing.T) {
	for _, stream := range []bool{false, true} {
		s := newServer(t, testKey, "I will look.")
		s.calls = twoCalls
		m := newModel(t, s, nil)
		opts := providers.GenerateOptions{Tools: weatherTools, ToolChoice: "required"}
		got := generate(t, m, stream, conv[:2], opts)
		if got.Content != "I will look." || len(got.ToolCalls) != 2 {
			t.Fatalf("stream=%v: %+v", stream, got)
		}
		c0, c1 := got.ToolCalls[0], got.ToolCalls[1]
		if c0.Name != "get_weather" || string(c0.Arguments) != `{"city":"Paris"}` || c1.Name != "get_time" ||
			c0.ID == c1.ID || !strings.HasPrefix(c0.ID, syntheticPrefix) || !bytes.Equal(c0.Signature, fakeSignature) || c1.Signature != nil {
			t.Fatalf("calls = %+v", got.ToolCalls)
		}
		again := generate(t, m, stream, conv[:2], opts)
		if again.ToolCalls[0].ID != c0.ID || again.ToolCalls[1].ID != c1.ID {
			t.Fatalf("ids not stable: %s %s, then %s %s", c0.ID, c1.ID, again.ToolCalls[0].ID, again.ToolCalls[1].ID)
		}
		body := s.reqs()[0].body
		fds := body["tools"].([]any)[0].(map[string]any)["functionDeclarations"].([]any)
		if len(fds) != 2 || fds[1].(map[string]any)["parametersJsonSchema"].(map[string]any)["required"].([]any)[0] != "city" {
			t.Fatalf("tools = %v", body["tools"])
		}
		if mode := body["toolConfig"].(map[string]any)["functionCallingConfig"].(map[string]any)["mode"]; mode != "ANY" {
			t.Fatalf("toolConfig = %v", body["toolConfig"])
		}

		// The results, given in the other order.
		s.calls, s.answer = nil, "Sunny, 09:00."
		conv2 := append(append([]providers.Message(nil), conv[:2]...), *got,
			providers.Message{Role: providers.RoleTool, ToolCallID: c1.ID, Content: "09:00"},
			providers.Message{Role: providers.RoleTool, ToolCallID: c0.ID, Content: "sunny"})
		ans := generate(t, m, stream, conv2, opts)
		if ans.Content != "Sunny, 09:00." {
			t.Fatalf("answer = %+v", ans)
		}
		contents := s.reqs()[2].body["contents"].([]any)
		resp := contents[2].(map[string]any)["parts"].([]any)
		fr := resp[0].(map[string]any)["functionResponse"].(map[string]any)
		if len(resp) != 2 || fr["name"] != "get_weather" || fr["response"].(map[string]any)["output"] != "sunny" || fr["id"] != nil {
			t.Fatalf("function responses = %v", resp)
		}

		// Without the signature the strict fake refuses, as Gemini 3 does.
		s.calls = twoCalls
		conv2[2].ToolCalls[0].Signature = nil
		_, err := m.Generate(context.Background(), conv2, opts)
		if pe := asError(t, err); pe.StatusCode != 400 || !strings.Contains(pe.Message, "thought_signature") {
			t.Fatalf("err = %v", err)
		}
	}
}

// TestMissingFunctionResponse: a call left unanswered is refused by the
// strict fake, with Gemini's message.
func TestMissingFunctionResponse(t *testing.T) {
	s := newServer(t, testKey, "ok")
	m := newModel(t, s, nil)
	c := append(append([]providers.Message(nil), conv[:2]...),
		providers.Message{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{
			{ID: "gemini_call_0_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
			{ID: "gemini_call_1_2", Name: "get_time", Arguments: json.RawMessage(`{"city":"Paris"}`)}}},
		providers.Message{Role: providers.RoleTool, ToolCallID: "gemini_call_0_1", Content: "sunny"})
	_, err := m.Generate(context.Background(), c, providers.GenerateOptions{Tools: weatherTools})
	if pe := asError(t, err); pe.StatusCode != 400 || !strings.Contains(pe.Message, "number of function response parts") {
		t.Fatalf("err = %v", err)
	}
}

func testPNG(t testing.TB) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.RGBA{255, 0, 0, 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestImages: images become inlineData parts with their bytes, after the
// text of their turn; a tool result's image goes in the function-response
// turn.
func TestImages(t *testing.T) {
	pic := testPNG(t)
	s := newServer(t, testKey, "A red dot.")
	m := newModel(t, s, nil)
	c := []providers.Message{
		conv[0],
		{Role: providers.RoleUser, Content: "What is this?", Images: []providers.Image{{MIMEType: "image/png", Data: pic}}},
		{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{{ID: "call-1", Name: "screenshot", Arguments: json.RawMessage(`{}`)}}},
		{Role: providers.RoleTool, ToolCallID: "call-1", Content: "taken", Images: []providers.Image{{MIMEType: "image/png", Data: pic}}},
	}
	if _, err := m.Generate(context.Background(), c, providers.GenerateOptions{}); err != nil {
		t.Fatal(err)
	}
	contents := s.reqs()[0].body["contents"].([]any)
	parts := contents[0].(map[string]any)["parts"].([]any)
	d := parts[1].(map[string]any)["inlineData"].(map[string]any)
	b, _ := base64.StdEncoding.DecodeString(d["data"].(string))
	if parts[0].(map[string]any)["text"] != "What is this?" || d["mimeType"] != "image/png" || !bytes.Equal(b, pic) {
		t.Fatalf("parts = %v", parts)
	}
	tp := contents[2].(map[string]any)["parts"].([]any)
	fr := tp[0].(map[string]any)["functionResponse"].(map[string]any)
	if len(tp) != 2 || fr["id"] != "call-1" || tp[1].(map[string]any)["inlineData"] == nil {
		// A server-given id (Vertex) goes back with the response.
		t.Fatalf("tool turn = %v", tp)
	}
	c[1].Images[0].MIMEType = "image/jpeg"
	_, err := m.Generate(context.Background(), c[:2], providers.GenerateOptions{})
	if pe := asError(t, err); pe.StatusCode != 400 || !strings.Contains(pe.Message, "image") {
		t.Fatalf("err = %v", err)
	}
}

var codeSchema = &providers.ResponseSchema{Name: "thought_and_code", Schema: map[string]any{
	"type": "object", "required": []any{"thought", "code"},
	"properties": map[string]any{"thought": map[string]any{"type": "string"}, "code": map[string]any{"type": "string"}},
}}

// TestResponseSchema: the schema goes as responseJsonSchema with
// responseMimeType application/json; a model without JSON mode gets the
// call again without it, once, and never again.
func TestResponseSchema(t *testing.T) {
	const js = `{"thought": "add", "code": "print(3)"}`
	s := newServer(t, testKey, js)
	m := newModel(t, s, nil)
	got := generate(t, m, false, conv, providers.GenerateOptions{ResponseSchema: codeSchema})
	gc := s.reqs()[0].body["generationConfig"].(map[string]any)
	if got.Content != js || gc["responseMimeType"] != "application/json" || gc["responseJsonSchema"].(map[string]any)["required"].([]any)[1] != "code" {
		t.Fatalf("generationConfig = %v", gc)
	}
	for _, stream := range []bool{false, true} {
		s := newServer(t, testKey, js)
		s.noSchema = true
		m := newModel(t, s, nil)
		for range 2 {
			if got := generate(t, m, stream, conv, providers.GenerateOptions{ResponseSchema: codeSchema}); got.Content != js {
				t.Fatalf("content = %q", got.Content)
			}
		}
		if n := len(s.reqs()); n != 3 {
			t.Fatalf("stream=%v: %d requests, want 3", stream, n)
		}
	}
}

// TestReasoningEffortAndExtraBody: effort becomes a thinking budget for
// Gemini 2.5 (which refuses a thinking level) and a thinking level after;
// extra body fields reach the request.
func TestReasoningEffortAndExtraBody(t *testing.T) {
	for model, want := range map[string]string{"gemini-2.5-flash": `{"thinkingBudget":1024}`, "gemini-3-pro-preview": `{"thinkingLevel":"LOW"}`} {
		s := newServer(t, testKey, answer)
		m := newModel(t, s, func(o *Options) {
			o.Model = model
			o.ReasoningEffort = "low"
			o.ExtraBody = map[string]any{"cachedContent": "cachedContents/x"}
		})
		generate(t, m, false, conv, providers.GenerateOptions{ExtraBody: map[string]any{"labels": map[string]any{"run": "1"}}})
		body := s.reqs()[0].body
		tc, _ := json.Marshal(body["generationConfig"].(map[string]any)["thinkingConfig"])
		if string(tc) != want || body["cachedContent"] != "cachedContents/x" || body["labels"].(map[string]any)["run"] != "1" {
			t.Fatalf("%s: body = %v", model, body)
		}
	}
}

// BenchmarkImageEncoding measures what an image costs a request: the
// inlineData part and the JSON of the request, per 1-megapixel PNG
// (1000x1000 pseudo-random pixels, about 3 MB): ns/op is the cost per
// megapixel.
func BenchmarkImageEncoding(b *testing.B) {
	img := image.NewRGBA(image.Rect(0, 0, 1000, 1000))
	x := uint32(2463534242)
	for i := 0; i < len(img.Pix); i += 4 {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = byte(x), byte(x>>8), byte(x>>16), 255
	}
	var buf bytes.Buffer
	png.Encode(&buf, img)
	pic := buf.Bytes()
	m, err := New(context.Background(), Options{Model: "gemini-2.5-flash", APIKey: testKey})
	if err != nil {
		b.Fatal(err)
	}
	msgs := []providers.Message{{Role: providers.RoleUser, Content: "What is this?", Images: []providers.Image{{MIMEType: "image/png", Data: pic}}}}
	b.SetBytes(int64(len(pic)))
	for b.Loop() {
		images := &imageTable{}
		contents, cfg := m.request(msgs, providers.GenerateOptions{}, images)
		body, err := json.Marshal(map[string]any{"contents": contents, "generationConfig": cfg})
		if body = images.splice(body); err != nil || len(body) < len(pic)*4/3 {
			b.Fatal(len(body), err)
		}
	}
}

// BenchmarkImageRequest is a whole call with a 1-megapixel PNG to a
// loopback server that reads the body and answers at once: genai's own
// conversions included.
func BenchmarkImageRequest(b *testing.B) {
	var buf bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, 1000, 1000))
	x := uint32(2463534242)
	for i := 0; i < len(img.Pix); i += 4 {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = byte(x), byte(x>>8), byte(x>>16), 255
	}
	png.Encode(&buf, img)
	pic := buf.Bytes()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"candidates":[{"content":{"parts":[{"text":"ok"}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":1,"totalTokenCount":2}}`)
	}))
	defer srv.Close()
	m, err := New(context.Background(), Options{Model: "gemini-2.5-flash", APIKey: testKey, BaseURL: srv.URL})
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

// TestSpliceLeavesLookalikesAlone: only the request's own placeholders,
// quoted, become image data; bytes that merely start like one do not.
func TestSpliceLeavesLookalikesAlone(t *testing.T) {
	tab := &imageTable{}
	ph := tab.placeholder(providers.Image{MIMEType: "image/gif", Data: []byte("GIF89a")})
	other := append(bytes.Clone(ph[:9]), 0, 0, 9)                          // index out of range
	longer := append(bytes.Clone(ph), 'x', 'y', 'z')                       // more bytes after
	foreign := append([]byte("\xf0SA\x00\x00\x00\x00\x00\x00"), ph[9:]...) // another nonce
	for _, data := range [][]byte{other, longer, foreign, ph[:9]} {
		body, _ := json.Marshal(map[string]any{"a": data, "b": ph})
		want, _ := json.Marshal(map[string]any{"a": data, "b": []byte("GIF89a")})
		if got := tab.splice(body); !bytes.Equal(got, want) {
			t.Errorf("splice(%s) = %s, want %s", body, got, want)
		}
	}
}
