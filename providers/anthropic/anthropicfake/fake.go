// Package anthropicfake is a loopback stand-in for Anthropic's Messages API
// (POST /v1/messages), for tests only: an httptest server that validates
// requests as strictly as the API does and answers in its real JSON and
// server-sent-event shapes, or fails the way it fails. Tests of
// providers/anthropic and of agents using Claude models import it from
// _test.go files.
package anthropicfake

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Fault is how the fake server misbehaves on one request.
type Fault struct {
	Status      int    // non-zero: reply with this status and Anthropic's error body
	Body        string // replaces the error body (e.g. a proxy's HTML page)
	RetryAfter  string // retry-after header value
	Hang        bool   // never answer (until the client goes away)
	StreamError string // stream a few events, then an SSE error event of this type
	CutStream   bool   // stream a few events, then drop the connection
	EndEarly    bool   // stream a few events, then end the response cleanly without message_stop
	Malformed   bool   // 200 with a truncated JSON body
	BadIndex    bool   // stream a content block with the wrong index
	Stall       bool   // stream a few events, then send nothing until the client goes away
	Refuse      bool   // answer with no content and stop_reason "refusal"
}

// Block is one content block of a scripted reply: text, or a tool_use
// when name is set.
type Block struct {
	Text  string
	ID    string
	Name  string
	Input string // a JSON object

	thinking string // a thinking block (the fake adds one when thinking is on)
}

// Server imitates Anthropic's Messages API (POST /v1/messages) strictly:
// it checks x-api-key and anthropic-version, rejects unknown top-level
// fields, and validates the body as the API does (model and max_tokens
// required, turns that alternate and start with the user, system only at
// the top level, content block types per role, tool_result blocks first in
// a user turn and answering exactly the tool_use ids of the previous
// assistant turn, base64 images with a supported media_type, stop
// sequences, temperature range, thinking budget). It answers with the next
// scripted reply (or answer when none is left), cut at the first stop
// sequence, as a Message JSON or as the SSE events the API streams, with
// usage. Errors are Anthropic's JSON error bodies with their statuses.
// Faults are served first, one per request.
type Server struct {
	// URL is the server's base URL, to give as the provider's BaseURL.
	URL string

	key    string
	answer string

	mu       sync.Mutex
	faults   []Fault
	replies  [][]Block
	requests []Request
	srv      *httptest.Server
}

// Request is a request the server received, valid or not.
type Request struct {
	Header http.Header
	// Body is the decoded JSON body (numbers as json.Number; see Number),
	// nil if it was not JSON.
	Body map[string]any
	At   time.Time
}

// New starts a server on 127.0.0.1 that accepts the API key key and
// answers answer to every request for which no reply was scripted, after
// serving faults, one per request. Close it when done.
func New(key, answer string, faults ...Fault) *Server {
	s := &Server{key: key, answer: answer, faults: faults}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	s.URL = s.srv.URL
	return s
}

// Close shuts the server down, ending any request in progress.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Fail queues faults, served before any reply, one per request.
func (s *Server) Fail(faults ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, faults...)
}

// Script queues replies, served after the faults, one per valid request.
func (s *Server) Script(replies ...[]Block) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = append(s.replies, replies...)
}

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

var errorMessages = map[string]string{
	"authentication_error":  "invalid x-api-key",
	"rate_limit_error":      "Number of request tokens has exceeded your per-minute rate limit (https://docs.claude.com/en/api/rate-limits); see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later.",
	"overloaded_error":      "Overloaded",
	"api_error":             "Internal server error",
	"not_found_error":       "Not Found",
	"invalid_request_error": "Invalid request",
}

var statusErrorType = map[int]string{400: "invalid_request_error", 401: "authentication_error", 404: "not_found_error",
	429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("request-id", "req_011CTestFake")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}, "request_id": "req_011CTestFake"})
	w.Write(b)
}

func badRequest(w http.ResponseWriter, format string, args ...any) {
	writeError(w, 400, "invalid_request_error", fmt.Sprintf(format, args...))
}

var knownFields = map[string]bool{
	"model": true, "max_tokens": true, "messages": true, "system": true, "stop_sequences": true,
	"temperature": true, "top_p": true, "top_k": true, "stream": true, "tools": true, "tool_choice": true,
	"thinking": true, "metadata": true, "service_tier": true, "output_config": true,
}

// noStructuredOutputs are models the fake treats as older ones, which
// refuse output_config.format.
var noStructuredOutputs = map[string]bool{OlderModel: true}

// OlderModel is a model name the server treats as one from before
// structured outputs: a request with output_config.format is refused with
// a 400 naming the field.
const OlderModel = "claude-3-5-haiku-20241022"

var (
	toolNameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`)
	toolIDRE   = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)
	mediaTypes = map[string]bool{"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true}
)

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	var raw bytes.Buffer
	raw.ReadFrom(r.Body)
	var body map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw.Bytes()))
	dec.UseNumber()
	decErr := dec.Decode(&body)
	s.mu.Lock()
	s.requests = append(s.requests, Request{Header: r.Header.Clone(), Body: body, At: time.Now()})
	var f Fault
	if len(s.faults) > 0 {
		f, s.faults = s.faults[0], s.faults[1:]
	}
	s.mu.Unlock()

	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		writeError(w, 404, "not_found_error", "Not Found")
		return
	}
	if r.Header.Get("x-api-key") != s.key {
		writeError(w, 401, "authentication_error", "invalid x-api-key")
		return
	}
	if r.Header.Get("anthropic-version") == "" {
		badRequest(w, "anthropic-version: header is required")
		return
	}
	if r.Header.Get("Authorization") != "" {
		badRequest(w, "only one of x-api-key and Authorization may be sent")
		return
	}
	if f.Hang {
		<-r.Context().Done()
		return
	}
	if f.Status != 0 {
		if f.RetryAfter != "" {
			w.Header().Set("retry-after", f.RetryAfter)
		}
		if f.Body != "" {
			w.WriteHeader(f.Status)
			fmt.Fprint(w, f.Body)
			return
		}
		typ := statusErrorType[f.Status]
		writeError(w, f.Status, typ, errorMessages[typ])
		return
	}
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		badRequest(w, "Content-Type must be application/json")
		return
	}
	if decErr != nil {
		badRequest(w, "There was an issue with your request body: invalid JSON")
		return
	}
	req, msg := validate(body)
	if msg != "" {
		badRequest(w, "%s", msg)
		return
	}
	s.mu.Lock()
	reply := []Block{{Text: s.answer}}
	if len(s.replies) > 0 {
		reply, s.replies = s.replies[0], s.replies[1:]
	}
	s.mu.Unlock()

	// Cut the text at the first stop sequence, as the API does; a cut
	// drops the blocks after it.
	stopReason, stopSeq := "end_turn", any(nil)
	var out []Block
	for _, b := range reply {
		if b.Name != "" {
			out = append(out, b)
			stopReason = "tool_use"
			continue
		}
		cut, at := b.Text, -1
		for _, sq := range req.stop {
			if i := strings.Index(b.Text, sq); i >= 0 && (at < 0 || i < at) {
				at, stopSeq = i, sq
			}
		}
		if at >= 0 {
			cut = b.Text[:at]
			stopReason = "stop_sequence"
		}
		out = append(out, Block{Text: cut})
		if at >= 0 {
			break
		}
	}
	if f.Refuse {
		out, stopReason, stopSeq = nil, "refusal", nil
	}
	if req.thinking {
		out = append([]Block{{thinking: "The user wants a sum. 1 + 2 = 3."}}, out...)
	}
	input := req.inputTokens
	output := 0
	for _, b := range out {
		output += len(strings.Fields(b.Text)) + len(strings.Fields(b.thinking)) + len(b.Input)/4
	}
	output = max(output, 1)
	if req.stream {
		s.stream(w, r, req.model, out, stopReason, stopSeq, input, output, f)
		return
	}
	if f.Malformed {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"msg_01X","type":"message","role":"assistant","content":[{"type":"text","text":"Thou`)
		return
	}
	content := []any{}
	for _, b := range out {
		if b.thinking != "" {
			content = append(content, map[string]any{"type": "thinking", "thinking": b.thinking, "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"})
		} else if b.Name != "" {
			content = append(content, map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": json.RawMessage(b.Input)})
		} else {
			content = append(content, map[string]any{"type": "text", "text": b.Text})
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("request-id", "req_011CTestFake")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "msg_01XFDUDYJgAACzvnptvVoYEL", "type": "message", "role": "assistant", "model": req.model,
		"content": content, "stop_reason": stopReason, "stop_sequence": stopSeq,
		"usage": map[string]any{"input_tokens": input, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
			"output_tokens": output, "service_tier": "standard"},
	})
}

// stream writes the events of a reply as the API streams them.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, model string, out []Block, stopReason string, stopSeq any, input, output int, f Fault) {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("request-id", "req_011CTestFake")
	fl := w.(http.Flusher)
	send := func(event string, v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		fl.Flush()
	}
	send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_01StreamFake", "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": input, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 1, "service_tier": "standard"},
	}})
	send("ping", map[string]any{"type": "ping"})
	events := 0
	for i, b := range out {
		if f.BadIndex {
			i += 2
		}
		if b.thinking != "" {
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "thinking", "thinking": "", "signature": ""}})
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "thinking_delta", "thinking": b.thinking}})
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "signature_delta", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"}})
		} else if b.Name != "" {
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}})
			// The API first sends an empty partial_json, then pieces that
			// split keys and values anywhere.
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": ""}})
			for j := 0; j < len(b.Input); j += 7 {
				send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": b.Input[j:min(j+7, len(b.Input))]}})
			}
		} else {
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			for _, piece := range strings.SplitAfter(b.Text, " ") {
				if piece == "" {
					continue
				}
				events++
				if events == 3 && f.StreamError != "" {
					send("error", map[string]any{"type": "error", "error": map[string]any{"type": f.StreamError, "message": errorMessages[f.StreamError]}})
					return
				}
				if events == 3 && f.Stall {
					<-r.Context().Done()
					return
				}
				if events == 3 && f.EndEarly {
					return
				}
				if events == 3 && f.CutStream {
					hj, _ := w.(http.Hijacker)
					if conn, _, err := hj.Hijack(); err == nil {
						conn.Close()
					}
					return
				}
				send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "text_delta", "text": piece}})
			}
		}
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stopReason, "stop_sequence": stopSeq},
		"usage": map[string]any{"output_tokens": output}})
	send("message_stop", map[string]any{"type": "message_stop"})
}

// request is what the fake needs from a valid body.
type request struct {
	model       string
	stream      bool
	stop        []string
	inputTokens int
	thinking    bool
}

// validate checks a Messages request body as the API does and returns the
// API's error message for the first problem found.
func validate(body map[string]any) (request, string) {
	var req request
	for k := range body {
		if !knownFields[k] {
			return req, k + ": Extra inputs are not permitted"
		}
	}
	model, ok := body["model"].(string)
	if !ok || model == "" {
		return req, "model: Field required"
	}
	req.model = model
	mt, ok := body["max_tokens"].(json.Number)
	if !ok {
		return req, "max_tokens: Field required"
	}
	maxTokens, err := mt.Int64()
	if err != nil || maxTokens < 1 {
		return req, "max_tokens: Input should be greater than or equal to 1"
	}
	if v, ok := body["stream"]; ok {
		if req.stream, ok = v.(bool); !ok {
			return req, "stream: Input should be a valid boolean"
		}
	}
	if v, ok := body["temperature"]; ok {
		n, ok := v.(json.Number)
		t, err := n.Float64()
		if !ok || err != nil || t < 0 || t > 1 {
			return req, "temperature: Input should be less than or equal to 1"
		}
	}
	if v, ok := body["stop_sequences"]; ok {
		list, ok := v.([]any)
		if !ok {
			return req, "stop_sequences: Input should be a valid list"
		}
		for i, x := range list {
			s, ok := x.(string)
			if !ok {
				return req, fmt.Sprintf("stop_sequences.%d: Input should be a valid string", i)
			}
			if strings.TrimSpace(s) == "" {
				return req, "stop_sequences: each stop sequence must contain non-whitespace"
			}
			req.stop = append(req.stop, s)
		}
	}
	if v, ok := body["system"]; ok {
		switch sys := v.(type) {
		case string:
			req.inputTokens += len(strings.Fields(sys))
		case []any:
			for i, b := range sys {
				bm, _ := b.(map[string]any)
				text, _ := bm["text"].(string)
				if bm["type"] != "text" || text == "" {
					return req, fmt.Sprintf("system.%d: system blocks must be non-empty text blocks", i)
				}
				req.inputTokens += len(strings.Fields(text))
			}
		default:
			return req, "system: Input should be a valid string or list"
		}
	}
	if th, ok := body["thinking"]; ok {
		tm, _ := th.(map[string]any)
		if tm["type"] == "enabled" {
			bt, _ := tm["budget_tokens"].(json.Number)
			b, err := bt.Int64()
			if err != nil || b < 1024 {
				return req, "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
			}
			if b >= maxTokens {
				return req, "`max_tokens` must be greater than `thinking.budget_tokens`."
			}
			if _, ok := body["temperature"]; ok {
				return req, "`temperature` may only be set to 1 when thinking is enabled."
			}
			req.thinking = true
		}
	}
	if v, ok := body["output_config"]; ok {
		oc, _ := v.(map[string]any)
		if f, ok := oc["format"]; ok {
			if noStructuredOutputs[model] {
				return req, "output_config.format: structured outputs are not supported for model '" + model + "'"
			}
			fm, _ := f.(map[string]any)
			schema, ok := fm["schema"].(map[string]any)
			if fm["type"] != "json_schema" || !ok {
				return req, "output_config.format: expected {\"type\": \"json_schema\", \"schema\": {...}}"
			}
			if msg := closedObjects(schema, "output_config.format.schema"); msg != "" {
				return req, msg
			}
		}
	}
	toolNames := map[string]bool{}
	if v, ok := body["tools"]; ok {
		tools, ok := v.([]any)
		if !ok {
			return req, "tools: Input should be a valid list"
		}
		for i, x := range tools {
			tm, _ := x.(map[string]any)
			name, _ := tm["name"].(string)
			if !toolNameRE.MatchString(name) {
				return req, fmt.Sprintf("tools.%d.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'", i)
			}
			if toolNames[name] {
				return req, "tools: Tool names must be unique."
			}
			toolNames[name] = true
			schema, ok := tm["input_schema"].(map[string]any)
			if !ok {
				return req, fmt.Sprintf("tools.%d.custom.input_schema: Field required", i)
			}
			if schema["type"] != "object" {
				return req, fmt.Sprintf("tools.%d.custom.input_schema.type: Input should be 'object'", i)
			}
			if d, ok := tm["description"]; ok {
				if _, ok := d.(string); !ok {
					return req, fmt.Sprintf("tools.%d.custom.description: Input should be a valid string", i)
				}
			}
		}
	}
	if v, ok := body["tool_choice"]; ok {
		tc, _ := v.(map[string]any)
		switch tc["type"] {
		case "auto", "any", "none":
		case "tool":
			if !toolNames[fmt.Sprint(tc["name"])] {
				return req, "tool_choice.tool.name: no tool of that name"
			}
		default:
			return req, "tool_choice: Input tag does not match any of the expected tags: 'auto', 'any', 'tool', 'none'"
		}
		if len(toolNames) == 0 {
			return req, "tool_choice may only be specified while providing tools."
		}
	}
	msgs, ok := body["messages"].([]any)
	if !ok {
		return req, "messages: Field required"
	}
	if len(msgs) == 0 {
		return req, "messages: at least one message is required"
	}
	var pendingToolUse []string // tool_use ids of the previous assistant turn
	for i, x := range msgs {
		m, _ := x.(map[string]any)
		role, _ := m["role"].(string)
		switch role {
		case "user", "assistant":
		case "system":
			return req, fmt.Sprintf("messages.%d: Unexpected role \"system\". The Messages API accepts a top-level `system` parameter, not \"system\" as an input message role.", i)
		default:
			return req, fmt.Sprintf("messages.%d.role: Input should be 'user' or 'assistant'", i)
		}
		if i == 0 && role != "user" {
			return req, "messages: first message must use the \"user\" role"
		}
		if i > 0 {
			prev, _ := msgs[i-1].(map[string]any)["role"].(string)
			if prev == role {
				return req, "messages: roles must alternate between \"user\" and \"assistant\", but found multiple \"" + role + "\" roles in a row"
			}
		}
		var blocks []any
		switch c := m["content"].(type) {
		case string:
			if c == "" {
				return req, fmt.Sprintf("messages.%d: all messages must have non-empty content except for the optional final assistant message", i)
			}
			blocks = []any{map[string]any{"type": "text", "text": c}}
		case []any:
			if len(c) == 0 {
				return req, fmt.Sprintf("messages.%d: all messages must have non-empty content except for the optional final assistant message", i)
			}
			blocks = c
		default:
			return req, fmt.Sprintf("messages.%d.content: Input should be a valid string or list", i)
		}
		answered := map[string]bool{}
		seenOther := false
		var toolUse []string
		for j, xb := range blocks {
			b, _ := xb.(map[string]any)
			where := fmt.Sprintf("messages.%d.content.%d", i, j)
			typ, _ := b["type"].(string)
			switch typ {
			case "text":
				text, ok := b["text"].(string)
				if !ok || text == "" {
					return req, where + ": text content blocks must be non-empty"
				}
				if strings.TrimSpace(text) == "" {
					return req, where + ": text content blocks must contain non-whitespace text"
				}
				if role == "assistant" && i == len(msgs)-1 && j == len(blocks)-1 && strings.TrimRight(text, " \t\r\n") != text {
					return req, "final assistant content cannot end with trailing whitespace"
				}
				req.inputTokens += len(strings.Fields(text))
				seenOther = true
			case "image":
				if role != "user" {
					return req, where + ": image blocks are only allowed in user messages"
				}
				if msg := checkImage(b, where); msg != "" {
					return req, msg
				}
				req.inputTokens += 100
				seenOther = true
			case "tool_use":
				if role != "assistant" {
					return req, where + ": tool_use blocks are only allowed in assistant messages"
				}
				id, _ := b["id"].(string)
				name, _ := b["name"].(string)
				if !toolIDRE.MatchString(id) {
					return req, where + ".id: String should match pattern '^[a-zA-Z0-9_-]+$'"
				}
				if name == "" {
					return req, where + ".name: Field required"
				}
				if _, ok := b["input"].(map[string]any); !ok {
					return req, where + ".input: Input should be a valid dictionary"
				}
				toolUse = append(toolUse, id)
			case "tool_result":
				if role != "user" {
					return req, where + ": tool_result blocks are only allowed in user messages"
				}
				if seenOther {
					return req, fmt.Sprintf("messages.%d: tool_result blocks must come before any other content in a user message", i)
				}
				id, _ := b["tool_use_id"].(string)
				found := false
				for _, p := range pendingToolUse {
					found = found || p == id
				}
				if !found {
					return req, fmt.Sprintf("%s: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", where, id)
				}
				answered[id] = true
				switch rc := b["content"].(type) {
				case nil, string:
				case []any:
					for k, xc := range rc {
						cb, _ := xc.(map[string]any)
						switch cb["type"] {
						case "text":
							if t, _ := cb["text"].(string); strings.TrimSpace(t) == "" {
								return req, fmt.Sprintf("%s.content.%d: text content blocks must be non-empty", where, k)
							}
						case "image":
							if msg := checkImage(cb, fmt.Sprintf("%s.content.%d", where, k)); msg != "" {
								return req, msg
							}
						default:
							return req, fmt.Sprintf("%s.content.%d.type: Input tag %v is not allowed in tool_result content", where, k, cb["type"])
						}
					}
				default:
					return req, where + ".content: Input should be a valid string or list"
				}
			default:
				return req, fmt.Sprintf("%s.type: Input tag '%s' found using 'type' does not match any of the expected tags", where, typ)
			}
		}
		if role == "user" {
			for _, id := range pendingToolUse {
				if !answered[id] {
					return req, fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i, id)
				}
			}
		}
		pendingToolUse = toolUse
	}
	return req, ""
}

// closedObjects checks that every object schema sets additionalProperties
// to false, as structured outputs require.
func closedObjects(v any, where string) string {
	switch x := v.(type) {
	case map[string]any:
		if x["type"] == "object" && x["additionalProperties"] != false {
			return where + ": For 'object' type, 'additionalProperties' must be explicitly set to false"
		}
		for k, e := range x {
			if msg := closedObjects(e, where+"."+k); msg != "" {
				return msg
			}
		}
	case []any:
		for i, e := range x {
			if msg := closedObjects(e, fmt.Sprintf("%s.%d", where, i)); msg != "" {
				return msg
			}
		}
	}
	return ""
}

func checkImage(b map[string]any, where string) string {
	src, _ := b["source"].(map[string]any)
	if src["type"] != "base64" {
		return where + ".source.type: Input tag does not match any of the expected tags: 'base64', 'url', 'file'"
	}
	mt, _ := src["media_type"].(string)
	if !mediaTypes[mt] {
		return where + ".source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'"
	}
	data, _ := src["data"].(string)
	dec, err := base64.StdEncoding.DecodeString(data)
	if err != nil || len(dec) == 0 {
		return where + ".source.base64.data: invalid base64 data"
	}
	// Like the API, check the bytes are the image the media type says.
	magic := map[string]string{"image/png": "\x89PNG\r\n\x1a\n", "image/jpeg": "\xff\xd8\xff", "image/gif": "GIF8", "image/webp": "RIFF"}
	if !strings.HasPrefix(string(dec), magic[mt]) {
		return where + ".source.base64.data: The image was specified using the " + mt + " media type, but the image appears to be a different format"
	}
	return ""
}

// Number reads a JSON number of a recorded body; NaN if v is not one.
func Number(v any) float64 {
	n, ok := v.(json.Number)
	if !ok {
		return math.NaN()
	}
	f, _ := n.Float64()
	return f
}
