package openai

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
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

	mu       sync.Mutex
	faults   []fault
	requests []recorded
	srv      *httptest.Server
}

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
	var stop []string
	if st, ok := body["stop"].([]any); ok {
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
			"index": 0, "message": map[string]any{"role": "assistant", "content": content, "refusal": nil},
			"logprobs": nil, "finish_reason": "stop",
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
	send(chunk(map[string]any{}, "stop"))
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
