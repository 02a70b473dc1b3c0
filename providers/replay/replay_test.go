package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/providers/scripted"
)

var (
	_ providers.StreamingModel = (*Model)(nil)
	_ providers.StreamingModel = (*Recorder)(nil)
)

var stop = providers.GenerateOptions{StopSequences: []string{"<end_code>", "Observation:"}}

// session is a three-step conversation as an agent would build it.
func session(obs1, obs2 string) [][]providers.Message {
	sys := providers.Message{Role: providers.RoleSystem, Content: "You are an agent."}
	task := providers.Message{Role: providers.RoleUser, Content: "Task: add 1 and 2"}
	a1 := providers.Message{Role: providers.RoleAssistant, Content: "<code>print(1+2)</code>"}
	o1 := providers.Message{Role: providers.RoleUser, Content: obs1}
	a2 := providers.Message{Role: providers.RoleAssistant, Content: "<code>final_answer(3)</code>"}
	o2 := providers.Message{Role: providers.RoleUser, Content: obs2}
	return [][]providers.Message{
		{sys, task},
		{sys, task, a1, o1},
		{sys, task, a1, o1, a2, o2},
	}
}

func record(t *testing.T, inner providers.Model, convs [][]providers.Message, stream bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	r := NewRecorder(inner, &buf)
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	r.Now = func() time.Time { clock = clock.Add(250 * time.Millisecond); return clock }
	for _, msgs := range convs {
		if stream {
			for _, err := range r.GenerateStream(context.Background(), msgs, stop) {
				if err != nil {
					t.Fatal(err)
				}
			}
			continue
		}
		if _, err := r.Generate(context.Background(), msgs, stop); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

func answers() *scripted.Model {
	return &scripted.Model{ID: "gpt-4o-mini", Responses: []scripted.Response{
		{Content: "Thought: add.\n<code>print(1+2)</code>", Usage: &providers.Usage{InputTokens: 10, OutputTokens: 5}},
		{Content: "<code>final_answer(3)</code>", Usage: &providers.Usage{InputTokens: 20, OutputTokens: 6}},
		{Content: "done", Usage: &providers.Usage{InputTokens: 30, OutputTokens: 1}},
	}}
}

func TestRecordFormat(t *testing.T) {
	data := record(t, answers(), session("Observation: 3 (took 1.52s)", "Observation: ok"), false)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3:\n%s", len(lines), data)
	}
	ex, err := Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	e := ex[1]
	if e.Version != 1 || e.N != 2 || e.Model != "gpt-4o-mini" || e.Messages != 4 ||
		e.Last.Role != providers.RoleUser || e.Last.Content != "Observation: 3 (took <duration>)" ||
		e.Content != "<code>final_answer(3)</code>" || e.Usage == nil || e.Usage.OutputTokens != 6 ||
		e.DurationMS != 250 || len(e.Stop) != 2 || len(e.MessagesSHA256) != 64 {
		t.Fatalf("exchange 2 = %+v", e)
	}
	if !strings.HasPrefix(lines[0], `{"v":1,"n":1,"time":"2026-01-02T03:04:05.25Z","model":"gpt-4o-mini"`) {
		t.Fatalf("line 1 = %s", lines[0])
	}
}

func TestReplayMatchesDespiteDurations(t *testing.T) {
	for _, stream := range []bool{false, true} {
		data := record(t, answers(), session("Observation: 3\nran in 1.52s at 2026-01-02T03:04:05Z", "Observation: ok"), stream)
		ex, err := Read(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		m := New(ex, "test.jsonl")
		convs := session("Observation: 3\r\nran in 87ms at 2027-11-12T13:14:15.5+02:00  ", "Observation: ok")
		want := []string{"Thought: add.\n<code>print(1+2)</code>", "<code>final_answer(3)</code>", "done"}
		for i, msgs := range convs {
			var got string
			var usage *providers.Usage
			if stream {
				var b strings.Builder
				for d, err := range m.GenerateStream(context.Background(), msgs, stop) {
					if err != nil {
						t.Fatalf("stream exchange %d: %v", i+1, err)
					}
					b.WriteString(d.Content)
					if d.Usage != nil {
						usage = d.Usage
					}
				}
				got = b.String()
			} else {
				msg, err := m.Generate(context.Background(), msgs, stop)
				if err != nil {
					t.Fatalf("exchange %d: %v", i+1, err)
				}
				got, usage = msg.Content, msg.Usage
			}
			if got != want[i] {
				t.Errorf("stream=%v exchange %d = %q, want %q", stream, i+1, got, want[i])
			}
			if usage == nil || usage.InputTokens != 10*(i+1) {
				t.Errorf("stream=%v exchange %d usage = %v", stream, i+1, usage)
			}
		}
		if m.ModelID() != "gpt-4o-mini" {
			t.Errorf("ModelID = %q", m.ModelID())
		}
		_, err = m.Generate(context.Background(), convs[2], stop)
		var me *MismatchError
		if !errors.As(err, &me) || !me.Exhausted || me.Exchange != 4 || !errors.Is(err, ErrExhausted) || !errors.Is(err, ErrMismatch) {
			t.Fatalf("after the end: err = %v", err)
		}
		if !strings.Contains(err.Error(), "test.jsonl") || !strings.Contains(err.Error(), "exchange 4") {
			t.Errorf("exhausted error does not say where: %v", err)
		}
	}
}

func TestReplayMismatchSaysWhere(t *testing.T) {
	data := record(t, answers(), session("Observation: 3", "Observation: ok"), false)
	ex, _ := Read(bytes.NewReader(data))
	m := New(ex, "")
	convs := session("Observation: 4", "Observation: ok")
	if _, err := m.Generate(context.Background(), convs[0], stop); err != nil {
		t.Fatal(err)
	}
	_, err := m.Generate(context.Background(), convs[1], stop)
	var me *MismatchError
	if !errors.As(err, &me) {
		t.Fatalf("err = %v, want *MismatchError", err)
	}
	if me.Exchange != 2 || me.Want != "Observation: 3" || me.Got != "Observation: 4" || me.Exhausted {
		t.Fatalf("mismatch = %+v", me)
	}
	if !strings.Contains(err.Error(), "exchange 2") || !strings.Contains(err.Error(), "differs at byte 13") {
		t.Errorf("error text: %v", err)
	}
	// The diverging call did not consume the exchange.
	if m.Remaining() != 2 {
		t.Errorf("Remaining = %d, want 2", m.Remaining())
	}
}

func TestReplayRoleMismatch(t *testing.T) {
	m := New([]Exchange{{Version: 1, N: 1, Last: providers.Message{Role: providers.RoleUser, Content: "x"}}}, "")
	_, err := m.Generate(context.Background(), []providers.Message{{Role: providers.RoleSystem, Content: "x"}}, stop)
	if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), "role") {
		t.Fatalf("err = %v", err)
	}
}

func TestExcerptTruncatesAroundDifference(t *testing.T) {
	want := strings.Repeat("a", 1000) + "X" + strings.Repeat("b", 1000)
	got := strings.Repeat("a", 1000) + "Y" + strings.Repeat("b", 1000)
	m := New([]Exchange{{Version: 1, N: 1, Last: providers.Message{Role: providers.RoleUser, Content: want}}}, "")
	_, err := m.Generate(context.Background(), []providers.Message{{Role: providers.RoleUser, Content: got}}, stop)
	var me *MismatchError
	if !errors.As(err, &me) {
		t.Fatal(err)
	}
	if len(me.Want) > 300 || !strings.Contains(me.Want, "aX") || !strings.HasPrefix(me.Want, "…") || !strings.HasSuffix(me.Want, "…") {
		t.Fatalf("Want excerpt = %q", me.Want)
	}
	if !strings.Contains(me.Got, "aY") {
		t.Fatalf("Got excerpt = %q", me.Got)
	}
}

func TestExcerptKeepsRunesWhole(t *testing.T) {
	s := strings.Repeat("é", 200)
	e := excerpt(s, 101)
	if !strings.HasPrefix(e, "…") || strings.ContainsRune(e, '\uFFFD') {
		t.Fatalf("excerpt = %q", e)
	}
	if i := firstDiff("aé", "aè"); i != 1 {
		t.Fatalf("firstDiff = %d, want 1 (start of the differing rune)", i)
	}
}

func TestMatchAll(t *testing.T) {
	data := record(t, answers(), session("Observation: 3", "Observation: ok"), false)
	ex, _ := Read(bytes.NewReader(data))
	m := New(ex, "")
	m.Match = MatchAll
	convs := session("Observation: 3", "Observation: ok")
	convs[0][0].Content = "You are a different agent."
	_, err := m.Generate(context.Background(), convs[0], stop)
	if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), "conversation differs") {
		t.Fatalf("changed system prompt with MatchAll: err = %v", err)
	}
	m.Match = MatchLast
	if _, err := m.Generate(context.Background(), convs[0], stop); err != nil {
		t.Fatalf("changed system prompt with MatchLast: %v", err)
	}
}

func TestMatchOrder(t *testing.T) {
	data := record(t, answers(), session("a", "b"), false)
	ex, _ := Read(bytes.NewReader(data))
	m := New(ex, "")
	m.Match = MatchOrder
	for range 3 {
		if _, err := m.Generate(context.Background(), []providers.Message{{Role: providers.RoleUser, Content: "anything"}}, stop); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRecordedErrorIsReplayed(t *testing.T) {
	inner := &scripted.Model{Responses: []scripted.Response{{Err: errors.New("openai: chat completion: status 500")}}}
	var buf bytes.Buffer
	r := NewRecorder(inner, &buf)
	msgs := session("x", "y")[0]
	if _, err := r.Generate(context.Background(), msgs, stop); err == nil {
		t.Fatal("want the inner error")
	}
	ex, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(ex) != 1 || !strings.Contains(ex[0].Error, "status 500") {
		t.Fatalf("recorded %+v", ex)
	}
	_, err = New(ex, "").Generate(context.Background(), msgs, stop)
	if err == nil || !strings.Contains(err.Error(), "recorded error") || !strings.Contains(err.Error(), "status 500") {
		t.Fatalf("replayed error = %v", err)
	}
}

func TestCancelledCallIsNotRecorded(t *testing.T) {
	inner := &scripted.Model{Responses: []scripted.Response{{Content: "x"}}, Delay: time.Hour}
	var buf bytes.Buffer
	r := NewRecorder(inner, &buf)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Generate(ctx, session("x", "y")[0], stop); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if buf.Len() != 0 {
		t.Fatalf("recorded a cancelled call: %s", buf.Bytes())
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestRecorderWriteFailureIsReported(t *testing.T) {
	r := NewRecorder(scripted.New("x"), failingWriter{})
	_, err := r.Generate(context.Background(), session("x", "y")[0], stop)
	if err == nil || !strings.Contains(err.Error(), "disk full") || !strings.Contains(err.Error(), "record exchange 1") {
		t.Fatalf("err = %v", err)
	}
}

func TestReadRejectsBadLines(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"bad json", "# comment\n\n{\"v\":1,\"n\":1\n", "line 3"},
		{"unknown field", `{"v":1,"n":1,"api_key":"sk-x"}`, "unknown field"},
		{"version", `{"v":2,"n":1}`, "format version 2"},
	}
	for _, tt := range tests {
		_, err := Read(strings.NewReader(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
	ex, err := Read(strings.NewReader("# a comment\n\n{\"v\":1,\"n\":1,\"content\":\"hi\"}\n"))
	if err != nil || len(ex) != 1 || ex[0].Content != "hi" {
		t.Fatalf("Read = %v, %v", ex, err)
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"took 1.52s", "took <duration>"},
		{"took 320ms and 12µs", "took <duration> and <duration>"},
		{"elapsed 1h2m3.5s.", "elapsed <duration>."},
		{"in 0.5 seconds", "in <duration>"},
		{"at 2026-01-02T03:04:05.123Z now", "at <time> now"},
		{"<object at 0x7f3a2b1c9d40>", "<object at <addr>>"},
		{"a  \r\nb\t\n", "a\nb\n"},
		{"x = 42\nprint(3)", "x = 42\nprint(3)"},
		{"v1.52s2", "v1.52s2"},
	}
	for _, tt := range tests {
		if got := Normalize(tt.in); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := Normalize(Normalize(tt.in)); got != Normalize(tt.in) {
			t.Errorf("Normalize not idempotent on %q", tt.in)
		}
	}
}

func TestRecorderStreamsFromNonStreamingModel(t *testing.T) {
	var buf bytes.Buffer
	r := NewRecorder(plain{}, &buf)
	var got string
	for d, err := range r.GenerateStream(context.Background(), session("x", "y")[0], stop) {
		if err != nil {
			t.Fatal(err)
		}
		got += d.Content
	}
	if got != "plain answer" || !strings.Contains(buf.String(), `"content":"plain answer"`) {
		t.Fatalf("got %q, recorded %s", got, buf.String())
	}
}

// plain is a Model that cannot stream.
type plain struct{}

func (plain) ModelID() string { return "plain" }
func (plain) Generate(context.Context, []providers.Message, providers.GenerateOptions) (*providers.Message, error) {
	return &providers.Message{Role: providers.RoleAssistant, Content: "plain answer"}, nil
}

func TestOpen(t *testing.T) {
	name := t.TempDir() + "/session.jsonl"
	data := record(t, answers(), session("a", "b"), false)
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Open(name)
	if err != nil {
		t.Fatal(err)
	}
	if m.Remaining() != 3 || m.ModelID() != "gpt-4o-mini" {
		t.Fatalf("Remaining %d, ModelID %q", m.Remaining(), m.ModelID())
	}
	if _, err := Open(name + ".missing"); err == nil {
		t.Fatal("missing file: want error")
	}
	os.WriteFile(name, []byte("{\"v\":1}\nnot json\n"), 0o644)
	if _, err := Open(name); err == nil || !strings.Contains(err.Error(), "session.jsonl: replay: line 2") {
		t.Fatalf("bad file: err = %v", err)
	}
}

// A tool-calling conversation with an image replays: the recording keeps
// the answer's tool calls and the digests of the last message's images, and
// a request that carries another image or answers another call does not
// match.
func TestToolCallsAndImagesReplay(t *testing.T) {
	img := providers.Image{MIMEType: "image/png", Data: []byte("\x89PNG\r\n\x1a\nfake")}
	opts := providers.GenerateOptions{Tools: []providers.ToolDefinition{{Name: "get_weather", Description: "d",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}}}
	call := providers.ToolCall{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}
	first := []providers.Message{{Role: providers.RoleUser, Content: "Weather on this picture?", Images: []providers.Image{img}}}
	second := append(slices.Clone(first),
		providers.Message{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{call}},
		providers.Message{Role: providers.RoleTool, ToolCallID: "call_1", Content: "sunny"})
	inner := &scripted.Model{ID: "m", Responses: []scripted.Response{{ToolCalls: []providers.ToolCall{call}}, {Content: "It is sunny."}}}
	var buf bytes.Buffer
	r := NewRecorder(inner, &buf)
	for _, msgs := range [][]providers.Message{first, second} {
		if _, err := r.Generate(context.Background(), msgs, opts); err != nil {
			t.Fatal(err)
		}
	}
	if bytes.Contains(buf.Bytes(), []byte("fake")) || !bytes.Contains(buf.Bytes(), []byte(`"last_images":["`)) {
		t.Fatalf("the recording should hold the image's digest, not its bytes:\n%s", buf.String())
	}
	exchanges, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for _, stream := range []bool{false, true} {
		m := New(exchanges, "")
		var got []providers.ToolCall
		if stream {
			for d, err := range m.GenerateStream(context.Background(), first, opts) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, d.ToolCalls...)
			}
		} else {
			msg, err := m.Generate(context.Background(), first, opts)
			if err != nil {
				t.Fatal(err)
			}
			got = msg.ToolCalls
		}
		if len(got) != 1 || got[0].ID != "call_1" || string(got[0].Arguments) != `{"city":"Paris"}` {
			t.Fatalf("stream %v: tool calls %+v", stream, got)
		}
		if msg, err := m.Generate(context.Background(), second, opts); err != nil || msg.Content != "It is sunny." {
			t.Fatalf("stream %v: second answer %+v, %v", stream, msg, err)
		}
	}
	other := []providers.Message{{Role: providers.RoleUser, Content: "Weather on this picture?", Images: []providers.Image{{MIMEType: "image/png", Data: []byte("other")}}}}
	if _, err := New(exchanges, "").Generate(context.Background(), other, opts); err == nil || !strings.Contains(err.Error(), "other images") {
		t.Errorf("another image: %v", err)
	}
	m := New(exchanges, "")
	m.Generate(context.Background(), first, opts)
	wrong := slices.Clone(second)
	wrong[2].ToolCallID = "call_2"
	if _, err := m.Generate(context.Background(), wrong, opts); err == nil || !strings.Contains(err.Error(), "another tool call") {
		t.Errorf("answer to another call: %v", err)
	}
}
