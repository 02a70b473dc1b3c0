package gemini

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
	status     int    // reply with this status and Google's error JSON (or body)
	body       string // raw error body
	retryAfter string // Retry-After header
	retryDelay string // RetryInfo retryDelay in the error JSON, e.g. "1s"
	malformed  bool   // truncated JSON (or a bad SSE event)
	hang       bool   // never answer
	cutStream  bool   // end the stream before the chunk with finishReason
	blocked    bool   // promptFeedback.blockReason SAFETY, no candidates
}

// server imitates the Gemini API's generateContent and
// streamGenerateContent?alt=sse endpoints: it checks x-goog-api-key,
// validates the request (contents, at most 5 stop sequences), and answers
// with answer cut at the first stop sequence, with usageMetadata.
type server struct {
	t      *testing.T
	key    string
	answer string

	mu       sync.Mutex
	faults   []fault
	requests []recorded
	srv      *httptest.Server
}

type recorded struct {
	path, query string
	header      http.Header
	body        map[string]any
	at          time.Time
}

func newServer(t *testing.T, key, answer string, faults ...fault) *server {
	s := &server{t: t, key: key, answer: answer, faults: faults}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *server) reqs() []recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]recorded(nil), s.requests...)
}

func googleError(w http.ResponseWriter, code int, status, msg string, details ...string) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	d := ""
	if len(details) > 0 {
		d = `,"details":[` + strings.Join(details, ",") + `]`
	}
	fmt.Fprintf(w, `{"error":{"code":%d,"message":%q,"status":%q%s}}`, code, msg, status, d)
}

func (s *server) handle(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	err := json.NewDecoder(r.Body).Decode(&body)
	s.mu.Lock()
	s.requests = append(s.requests, recorded{path: r.URL.Path, query: r.URL.RawQuery, header: r.Header.Clone(), body: body, at: time.Now()})
	var f fault
	if len(s.faults) > 0 {
		f, s.faults = s.faults[0], s.faults[1:]
	}
	s.mu.Unlock()

	model, method, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/v1beta/models/"), ":")
	if r.Method != http.MethodPost || !ok || !strings.HasPrefix(r.URL.Path, "/v1beta/models/") ||
		(method != "generateContent" && method != "streamGenerateContent") {
		googleError(w, 404, "NOT_FOUND", "models/"+model+" is not found for API version v1beta, or is not supported for "+method+".")
		return
	}
	if r.Header.Get("x-goog-api-key") != s.key {
		googleError(w, 400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.",
			`{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com","metadata":{"service":"generativelanguage.googleapis.com"}}`)
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
		switch {
		case f.body != "":
			w.WriteHeader(f.status)
			fmt.Fprint(w, f.body)
		case f.status == 429 && f.retryDelay != "":
			googleError(w, 429, "RESOURCE_EXHAUSTED", "You exceeded your current quota, please check your plan and billing details.",
				`{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}]}`,
				`{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"`+f.retryDelay+`"}`)
		case f.status == 429:
			googleError(w, 429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).")
		case f.status == 503:
			googleError(w, 503, "UNAVAILABLE", "The model is overloaded. Please try again later.")
		default:
			googleError(w, f.status, "INTERNAL", "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting")
		}
		return
	}
	if err != nil {
		googleError(w, 400, "INVALID_ARGUMENT", "Invalid JSON payload received.")
		return
	}
	contents, _ := body["contents"].([]any)
	if len(contents) == 0 {
		googleError(w, 400, "INVALID_ARGUMENT", "* GenerateContentRequest.contents: contents is not specified")
		return
	}
	gc, _ := body["generationConfig"].(map[string]any)
	var stop []string
	if st, ok := gc["stopSequences"].([]any); ok {
		if len(st) > 5 {
			googleError(w, 400, "INVALID_ARGUMENT", "* GenerateContentRequest.generation_config.stop_sequences: Number of stop sequences must be at most 5.")
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
	countParts := func(c any) {
		parts, _ := c.(map[string]any)["parts"].([]any)
		for _, p := range parts {
			t, _ := p.(map[string]any)["text"].(string)
			prompt += len(strings.Fields(t))
		}
	}
	for _, c := range contents {
		countParts(c)
	}
	if si, ok := body["systemInstruction"]; ok {
		countParts(si)
	}
	completion := len(strings.Fields(content))
	usage := map[string]any{"promptTokenCount": prompt, "candidatesTokenCount": completion, "totalTokenCount": prompt + completion + 3, "thoughtsTokenCount": 3,
		"promptTokensDetails": []any{map[string]any{"modality": "TEXT", "tokenCount": prompt}}}
	resp := func(text string, finish string, withUsage bool) map[string]any {
		cand := map[string]any{"content": map[string]any{"parts": []any{map[string]any{"text": text}}, "role": "model"}, "index": 0}
		if finish != "" {
			cand["finishReason"] = finish
		}
		m := map[string]any{"candidates": []any{cand}, "modelVersion": model, "responseId": "abc123"}
		if withUsage {
			m["usageMetadata"] = usage
		} else {
			m["usageMetadata"] = map[string]any{"promptTokenCount": prompt, "totalTokenCount": prompt}
		}
		return m
	}
	if f.blocked {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":%d,"totalTokenCount":%d},"modelVersion":%q}`, prompt, prompt, model)
		return
	}
	if method == "streamGenerateContent" {
		if r.URL.Query().Get("alt") != "sse" {
			googleError(w, 400, "INVALID_ARGUMENT", "this test server speaks only alt=sse")
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		pieces := strings.SplitAfter(content, " ")
		for i, p := range pieces {
			if f.malformed && i == 1 {
				fmt.Fprint(w, "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\r\n\r\n")
				fl.Flush()
				return
			}
			if f.cutStream && i == 2 {
				return
			}
			last := i == len(pieces)-1
			finish := ""
			if last {
				finish = "STOP"
			}
			b, _ := json.Marshal(resp(p, finish, last))
			fmt.Fprintf(w, "data: %s\r\n\r\n", b)
			fl.Flush()
		}
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	if f.malformed {
		fmt.Fprint(w, `{"candidates": [{"content": {"parts": [{"text": "Thou`)
		return
	}
	json.NewEncoder(w).Encode(resp(content, "STOP", true))
}
