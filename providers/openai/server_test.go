package openai

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fault is how the fake server misbehaves on one request.
type fault struct {
	status     int    // non-zero: reply with this status and body
	body       string // error body; the vendor's error JSON when empty
	retryAfter string // Retry-After header value
	malformed  bool   // 200 with a truncated JSON body (or a bad SSE chunk)
	hang       bool   // never answer (until the client goes away)
	cutStream  bool   // stream a few chunks, then drop the connection
}

// server imitates the OpenAI Chat Completions endpoint: it checks the key,
// validates the request as OpenAI does (model, messages, at most 4 stop
// sequences), and answers with answer, cut at the first stop sequence, in
// the vendor's JSON or SSE format, with usage. Faults are served first, one
// per request.
type server struct {
	t      *testing.T
	key    string
	answer string
	path   string // expected path; default /v1/chat/completions

	// reasoning makes the model one of OpenAI's reasoning models: it
	// rejects stop, max_tokens and a temperature other than 1 with the
	// 400s OpenAI sends.
	reasoning bool
	// ignoreStop answers without cutting at the stop sequences, as some
	// servers do.
	ignoreStop bool
	// noResponseFormat rejects response_format as OpenAI does for models
	// without structured outputs.
	noResponseFormat bool
	// extraFields are top-level request fields accepted beyond OpenAI's
	// (a vLLM-like server); others get OpenAI's "Unrecognized request
	// argument" 400.
	extraFields []string
	// calls, when set, are the tool calls of the answer (its content is
	// then null unless answer is set too).
	calls []fakeCall

	mu       sync.Mutex
	faults   []fault
	requests []recorded
	srv      *httptest.Server
}

// fakeCall is a tool call the fake answers with.
type fakeCall struct{ id, name, args string }

type recorded struct {
	header http.Header
	query  string
	body   map[string]any
	at     time.Time
}

func newServer(t *testing.T, key, answer string, faults ...fault) *server {
	s := &server{t: t, key: key, answer: answer, faults: faults, path: "/v1/chat/completions"}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *server) url() string { return s.srv.URL + "/v1" }

func (s *server) reqs() []recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]recorded(nil), s.requests...)
}

func writeError(w http.ResponseWriter, status int, msg, typ, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	c := "null"
	if code != "" {
		c = fmt.Sprintf("%q", code)
	}
	fmt.Fprintf(w, `{"error":{"message":%q,"type":%q,"param":null,"code":%s}}`, msg, typ, c)
}

// apiError is a 400 as OpenAI sends it, naming the parameter.
type apiError struct{ msg, param, code string }

func (e *apiError) write(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(400)
	param, code := "null", "null"
	if e.param != "" {
		param = fmt.Sprintf("%q", e.param)
	}
	if e.code != "" {
		code = fmt.Sprintf("%q", e.code)
	}
	fmt.Fprintf(w, "{\n  \"error\": {\n    \"message\": %q,\n    \"type\": \"invalid_request_error\",\n    \"param\": %s,\n    \"code\": %s\n  }\n}\n", e.msg, param, code)
}

func (s *server) handle(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	dec := json.NewDecoder(r.Body)
	err := dec.Decode(&body)
	s.mu.Lock()
	s.requests = append(s.requests, recorded{header: r.Header.Clone(), query: r.URL.RawQuery, body: body, at: time.Now()})
	var f fault
	if len(s.faults) > 0 {
		f, s.faults = s.faults[0], s.faults[1:]
	}
	s.mu.Unlock()

	if r.Method != http.MethodPost || r.URL.Path != s.path {
		writeError(w, 404, "Invalid URL ("+r.Method+" "+r.URL.Path+")", "invalid_request_error", "")
		return
	}
	auth := r.Header.Get("Authorization")
	if k := r.Header.Get("api-key"); k != "" {
		auth = "Bearer " + k
	}
	if s.key != "" && auth != "Bearer "+s.key {
		given := strings.TrimPrefix(auth, "Bearer ")
		// Echo the key back, as some compatible servers do, to prove the
		// client redacts it.
		writeError(w, 401, "Incorrect API key provided: "+given+". You can find your API key at https://platform.openai.com/account/api-keys.", "invalid_request_error", "invalid_api_key")
		return
	}
	if f.hang {
		<-r.Context().Done()
		return
	}
	if f.status != 0 {
		if f.retryAfter != "" {
			w.Header().Set("Retry-After", f.retryAfter)
		}
		if f.body != "" {
			w.WriteHeader(f.status)
			fmt.Fprint(w, f.body)
			return
		}
		switch f.status {
		case 429:
			writeError(w, 429, "Rate limit reached for gpt-4o-mini in organization org-test on requests per min (RPM): Limit 3, Used 3, Requested 1.", "requests", "rate_limit_exceeded")
		default:
			writeError(w, f.status, "The server had an error while processing your request. Sorry about that!", "server_error", "")
		}
		return
	}
	if err != nil {
		writeError(w, 400, "We could not parse the JSON body of your request.", "invalid_request_error", "")
		return
	}
	model, _ := body["model"].(string)
	msgs, _ := body["messages"].([]any)
	if model == "" || len(msgs) == 0 {
		writeError(w, 400, "you must provide a model parameter and messages", "invalid_request_error", "")
		return
	}
	if e := s.validate(body); e != nil {
		e.write(w)
		return
	}
	var stop []string
	if st, ok := body["stop"].([]any); ok && !s.ignoreStop {
		if len(st) > 4 {
			writeError(w, 400, "Invalid 'stop': array too long. Expected an array with maximum length 4.", "invalid_request_error", "array_above_max_length")
			return
		}
		for _, x := range st {
			stop = append(stop, x.(string))
		}
	}
	content := s.answer
	for _, sq := range stop {
		if i := strings.Index(content, sq); i >= 0 {
			content = content[:i]
		}
	}
	prompt := 0
	for _, m := range msgs {
		c, _ := m.(map[string]any)["content"].(string)
		prompt += len(strings.Fields(c)) + 4
	}
	completion := len(strings.Fields(content))
	if stream, _ := body["stream"].(bool); stream {
		opts, _ := body["stream_options"].(map[string]any)
		includeUsage, _ := opts["include_usage"].(bool)
		s.stream(w, r, model, content, prompt, completion, includeUsage, f)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if f.malformed {
		fmt.Fprint(w, `{"id":"chatcmpl-x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assis`)
		return
	}
	resp := map[string]any{
		"id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT", "object": "chat.completion", "created": 1727000000,
		"model": model + "-2024-07-18", "system_fingerprint": "fp_test",
		"choices": []any{map[string]any{
			"index": 0, "message": s.message(content),
			"logprobs": nil, "finish_reason": s.finish(),
		}},
		"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
	}
	json.NewEncoder(w).Encode(resp)
}

func (s *server) stream(w http.ResponseWriter, r *http.Request, model, content string, prompt, completion int, includeUsage bool, f fault) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	fl := w.(http.Flusher)
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		fl.Flush()
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		c := map[string]any{
			"id": "chatcmpl-stream", "object": "chat.completion.chunk", "created": 1727000000,
			"model": model + "-2024-07-18", "system_fingerprint": "fp_test",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}},
		}
		if includeUsage {
			c["usage"] = nil
		}
		return c
	}
	send(chunk(map[string]any{"role": "assistant", "content": "", "refusal": nil}, nil))
	words := strings.SplitAfter(content, " ")
	if content == "" {
		words = nil
	}
	for i, piece := range words {
		if f.malformed && i == 1 {
			fmt.Fprint(w, "data: {\"id\":\"chatcmpl-stream\",\"choices\":[{\"delta\":{\"content\":\n\n")
			fl.Flush()
			return
		}
		if f.cutStream && i == 2 {
			return // the handler returns: the chunked body ends without [DONE]
		}
		send(chunk(map[string]any{"content": piece}, nil))
	}
	// Tool calls come as OpenAI streams them: the first delta of a call
	// has its index, id, type, name and empty arguments; the arguments
	// follow in pieces under the same index.
	for i, c := range s.calls {
		send(chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c.id, "type": "function",
			"function": map[string]any{"name": c.name, "arguments": ""}}}}, nil))
		for a := c.args; a != ""; {
			n := min(len(a), 7)
			send(chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i,
				"function": map[string]any{"arguments": a[:n]}}}}, nil))
			a = a[n:]
		}
	}
	send(chunk(map[string]any{}, s.finish()))
	if includeUsage {
		send(map[string]any{
			"id": "chatcmpl-stream", "object": "chat.completion.chunk", "created": 1727000000,
			"model": model + "-2024-07-18", "system_fingerprint": "fp_test", "choices": []any{},
			"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
		})
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	fl.Flush()
}

// message is the assistant message of a non-streamed answer.
func (s *server) message(content string) map[string]any {
	m := map[string]any{"role": "assistant", "content": content, "refusal": nil}
	if len(s.calls) > 0 {
		if content == "" {
			m["content"] = nil
		}
		var calls []any
		for _, c := range s.calls {
			calls = append(calls, map[string]any{"id": c.id, "type": "function",
				"function": map[string]any{"name": c.name, "arguments": c.args}})
		}
		m["tool_calls"] = calls
	}
	return m
}

func (s *server) finish() string {
	if len(s.calls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

// knownFields are the Chat Completions request fields OpenAI accepts.
var knownFields = map[string]bool{
	"model": true, "messages": true, "max_tokens": true, "max_completion_tokens": true, "temperature": true,
	"top_p": true, "n": true, "stream": true, "stop": true, "presence_penalty": true, "response_format": true,
	"seed": true, "frequency_penalty": true, "logit_bias": true, "logprobs": true, "top_logprobs": true,
	"user": true, "tools": true, "tool_choice": true, "stream_options": true, "parallel_tool_calls": true,
	"store": true, "reasoning_effort": true, "metadata": true, "prediction": true, "service_tier": true,
	"verbosity": true, "safety_identifier": true, "modalities": true, "audio": true, "web_search_options": true,
}

var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// validate checks a request as OpenAI does, returning its 400 for the
// first thing wrong.
func (s *server) validate(body map[string]any) *apiError {
	for k := range body {
		if !knownFields[k] && !slices.Contains(s.extraFields, k) {
			return &apiError{msg: "Unrecognized request argument supplied: " + k}
		}
	}
	if s.reasoning {
		if _, ok := body["stop"]; ok {
			return &apiError{msg: "Unsupported parameter: 'stop' is not supported with this model.", param: "stop", code: "unsupported_parameter"}
		}
		if _, ok := body["max_tokens"]; ok {
			return &apiError{msg: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", param: "max_tokens", code: "unsupported_parameter"}
		}
		if t, ok := body["temperature"].(float64); ok && t != 1 {
			return &apiError{msg: fmt.Sprintf("Unsupported value: 'temperature' does not support %g with this model. Only the default (1) value is supported.", t), param: "temperature", code: "unsupported_value"}
		}
	} else if _, ok := body["reasoning_effort"]; ok {
		return &apiError{msg: "Unrecognized request argument supplied: reasoning_effort"}
	}
	if rf, ok := body["response_format"].(map[string]any); ok {
		if s.noResponseFormat {
			return &apiError{msg: "Invalid parameter: 'response_format' of type '" + fmt.Sprint(rf["type"]) + "' is not supported with this model. Learn more about supported models at the Structured Outputs guide: https://platform.openai.com/docs/guides/structured-outputs", param: "response_format"}
		}
		if rf["type"] != "json_schema" {
			return &apiError{msg: "Invalid value: '" + fmt.Sprint(rf["type"]) + "'. Supported values are: 'json_object', 'json_schema', and 'text'.", param: "response_format.type", code: "invalid_value"}
		}
		js, _ := rf["json_schema"].(map[string]any)
		name, _ := js["name"].(string)
		schema, _ := js["schema"].(map[string]any)
		if !toolName.MatchString(name) {
			return &apiError{msg: "Invalid 'response_format.json_schema.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", param: "response_format.json_schema.name", code: "invalid_value"}
		}
		if js["strict"] == true && schema["additionalProperties"] != false {
			return &apiError{msg: "Invalid schema for response_format '" + name + "': In context=(), 'additionalProperties' is required to be supplied and to be false.", param: "response_format", code: "invalid_json_schema"}
		}
	}
	tools, _ := body["tools"].([]any)
	for i, t := range tools {
		tm, _ := t.(map[string]any)
		fn, _ := tm["function"].(map[string]any)
		name, _ := fn["name"].(string)
		if tm["type"] != "function" || fn == nil {
			return &apiError{msg: fmt.Sprintf("Missing required parameter: 'tools[%d].function'.", i), param: fmt.Sprintf("tools[%d].function", i), code: "missing_required_parameter"}
		}
		if !toolName.MatchString(name) {
			return &apiError{msg: fmt.Sprintf("Invalid 'tools[%d].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", i), param: fmt.Sprintf("tools[%d].function.name", i), code: "invalid_value"}
		}
		if p, ok := fn["parameters"].(map[string]any); ok && p["type"] != "object" {
			return &apiError{msg: fmt.Sprintf("Invalid schema for function '%s': schema must be a JSON Schema of 'type: \"object\"', got 'type: \"%v\"'.", name, p["type"]), param: fmt.Sprintf("tools[%d].function.parameters", i), code: "invalid_function_parameters"}
		}
	}
	if _, ok := body["tool_choice"]; ok && len(tools) == 0 {
		return &apiError{msg: "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.", param: "tool_choice"}
	}
	// Messages: tool messages answer the calls of the assistant message
	// just before them, every call is answered, and images come as
	// image_url parts of user messages only.
	msgs, _ := body["messages"].([]any)
	var open []string // call ids not yet answered
	for i, m := range msgs {
		mm, _ := m.(map[string]any)
		role, _ := mm["role"].(string)
		if role != "tool" && len(open) > 0 {
			return &apiError{msg: "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: " + strings.Join(open, ", "), param: "messages", code: ""}
		}
		switch role {
		case "system", "user", "developer":
		case "assistant":
			calls, _ := mm["tool_calls"].([]any)
			for _, c := range calls {
				cm, _ := c.(map[string]any)
				id, _ := cm["id"].(string)
				fn, _ := cm["function"].(map[string]any)
				args, _ := fn["arguments"].(string)
				if id == "" || cm["type"] != "function" || !json.Valid([]byte(args)) {
					return &apiError{msg: fmt.Sprintf("Invalid 'messages[%d].tool_calls': each call needs an id, type 'function' and JSON arguments.", i), param: fmt.Sprintf("messages[%d].tool_calls", i)}
				}
				open = append(open, id)
			}
		case "tool":
			id, _ := mm["tool_call_id"].(string)
			k := slices.Index(open, id)
			if k < 0 {
				return &apiError{msg: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", param: fmt.Sprintf("messages.[%d].role", i)}
			}
			open = slices.Delete(open, k, k+1)
		default:
			return &apiError{msg: fmt.Sprintf("Invalid value: '%s'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.", role), param: fmt.Sprintf("messages[%d].role", i), code: "invalid_value"}
		}
		parts, isParts := mm["content"].([]any)
		if !isParts {
			continue
		}
		for j, p := range parts {
			pm, _ := p.(map[string]any)
			switch pm["type"] {
			case "text":
			case "image_url":
				if role != "user" {
					return &apiError{msg: fmt.Sprintf("Invalid 'messages[%d]'. Image URLs are only allowed for messages with role 'user', but this message with role '%s' contains an image URL.", i, role), param: fmt.Sprintf("messages[%d]", i), code: "invalid_value"}
				}
				iu, _ := pm["image_url"].(map[string]any)
				u, _ := iu["url"].(string)
				if err := checkDataURL(u); err != nil {
					return &apiError{msg: fmt.Sprintf("Invalid 'messages[%d].content[%d].image_url.url': %v", i, j, err), param: fmt.Sprintf("messages[%d].content[%d].image_url.url", i, j), code: "invalid_value"}
				}
			default:
				return &apiError{msg: fmt.Sprintf("Invalid value: '%v'. Supported values are: 'text', 'image_url', 'input_audio', 'refusal', 'audio', and 'file'.", pm["type"]), param: fmt.Sprintf("messages[%d].content[%d].type", i, j), code: "invalid_value"}
			}
		}
	}
	if len(open) > 0 {
		return &apiError{msg: "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: " + strings.Join(open, ", "), param: "messages"}
	}
	return nil
}

// checkDataURL accepts an https URL or a base64 data: URL of a PNG, JPEG,
// GIF or WebP image whose bytes are that format.
func checkDataURL(u string) error {
	if strings.HasPrefix(u, "https://") {
		return nil
	}
	rest, ok := strings.CutPrefix(u, "data:")
	mt, data, ok2 := strings.Cut(rest, ";base64,")
	if !ok || !ok2 {
		return fmt.Errorf("expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got a value of %q", truncate(u, 40))
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return fmt.Errorf("the image data is not valid base64: %v", err)
	}
	if got := http.DetectContentType(b); got != mt {
		return fmt.Errorf("You uploaded an unsupported image. Please make sure your image is valid (declared %s, the bytes are %s).", mt, got)
	}
	return nil
}
