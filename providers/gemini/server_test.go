package gemini

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

	// calls, when set, are the function calls of the answer, after its
	// text; streamed, each comes in a chunk of its own. The first call
	// carries a thought signature, as Gemini 3 models send, and a later
	// request whose model turn does not send it back is refused.
	calls []fakeCall
	// noSchema refuses responseMimeType application/json, as models
	// without JSON mode do.
	noSchema bool
	// signed is the name of the call the fake gave a signature.
	signed string

	mu       sync.Mutex
	faults   []fault
	requests []recorded
	srv      *httptest.Server
}

// fakeCall is a function call the fake answers with.
type fakeCall struct {
	name string
	args map[string]any
}

// fakeSignature is the thought signature the fake gives its first call.
var fakeSignature = []byte("sig\x00\x01opaque")

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
	if msg := s.validate(model, body); msg != "" {
		googleError(w, 400, "INVALID_ARGUMENT", msg)
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
		parts := []any{}
		if text != "" || len(s.calls) == 0 {
			parts = append(parts, map[string]any{"text": text})
		}
		if finish != "" && withUsage {
			parts = append(parts, s.callParts()...)
		}
		cand := map[string]any{"content": map[string]any{"parts": parts, "role": "model"}, "index": 0}
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
		if len(s.calls) > 0 {
			// Text first, then each call in a chunk of its own, the
			// last with the finish reason and usage.
			send := func(v map[string]any) {
				b, _ := json.Marshal(v)
				fmt.Fprintf(w, "data: %s\r\n\r\n", b)
				fl.Flush()
			}
			if content != "" {
				send(resp(content, "", false))
			}
			for i, p := range s.callParts() {
				cand := map[string]any{"content": map[string]any{"parts": []any{p}, "role": "model"}, "index": 0}
				m := map[string]any{"candidates": []any{cand}, "modelVersion": model, "responseId": "abc123"}
				if i == len(s.calls)-1 {
					cand["finishReason"] = "STOP"
					m["usageMetadata"] = usage
				}
				send(m)
			}
			return
		}
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

// callParts are the functionCall parts of the answer.
func (s *server) callParts() []any {
	var parts []any
	for i, c := range s.calls {
		p := map[string]any{"functionCall": map[string]any{"name": c.name, "args": c.args}}
		if i == 0 {
			p["thoughtSignature"] = base64.StdEncoding.EncodeToString(fakeSignature)
			s.mu.Lock()
			s.signed = c.name
			s.mu.Unlock()
		}
		parts = append(parts, p)
	}
	return parts
}

var functionName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$`)

// validate checks a request as the Gemini API does and returns the
// message of its 400 for the first thing wrong, or "".
func (s *server) validate(model string, body map[string]any) string {
	gc, _ := body["generationConfig"].(map[string]any)
	if mt, ok := gc["responseMimeType"].(string); ok {
		if s.noSchema {
			return "JSON mode is not enabled for models/" + model
		}
		if mt != "application/json" && mt != "text/plain" && mt != "text/x.enum" {
			return "* GenerateContentRequest.generation_config.response_mime_type: allowed mimetypes are `text/plain`, `application/json`, `application/xml`, `application/yaml` and `text/x.enum`."
		}
	}
	if _, ok := gc["responseJsonSchema"]; ok && gc["responseMimeType"] != "application/json" {
		return "* GenerateContentRequest.generation_config.response_mime_type: must be application/json when response_json_schema is set."
	}
	if tc, ok := gc["thinkingConfig"].(map[string]any); ok {
		if _, lvl := tc["thinkingLevel"]; lvl && strings.HasPrefix(model, "gemini-2.") {
			return "Thinking level is not supported for this model."
		}
	}
	declared := map[string]bool{}
	tools, _ := body["tools"].([]any)
	for _, t := range tools {
		fds, _ := t.(map[string]any)["functionDeclarations"].([]any)
		for i, fd := range fds {
			f, _ := fd.(map[string]any)
			name, _ := f["name"].(string)
			if !functionName.MatchString(name) {
				return fmt.Sprintf("* GenerateContentRequest.tools[0].function_declarations[%d].name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.", i)
			}
			if p, ok := f["parametersJsonSchema"].(map[string]any); ok && p["type"] != "object" {
				return fmt.Sprintf("* GenerateContentRequest.tools[0].function_declarations[%d].parameters_json_schema: must be an object schema", i)
			}
			declared[name] = true
		}
	}
	// Turns: roles user and model only; a functionResponse turn answers
	// the functionCall parts of the model turn before it, as many and by
	// name in order; calls carry back their thought signatures; inline
	// images are real images of their declared type.
	contents, _ := body["contents"].([]any)
	var lastCalls []string
	for i, c := range contents {
		cm, _ := c.(map[string]any)
		role, _ := cm["role"].(string)
		if role != "user" && role != "model" {
			return "Please use a valid role: user, model."
		}
		parts, _ := cm["parts"].([]any)
		if len(parts) == 0 {
			return fmt.Sprintf("* GenerateContentRequest.contents[%d].parts: contents.parts must not be empty.", i)
		}
		var calls, responses []string
		for j, p := range parts {
			pm, _ := p.(map[string]any)
			if fc, ok := pm["functionCall"].(map[string]any); ok {
				if role != "model" {
					return fmt.Sprintf("* GenerateContentRequest.contents[%d].parts[%d]: function calls are allowed in model turns only", i, j)
				}
				name, _ := fc["name"].(string)
				s.mu.Lock()
				signed := s.signed
				s.mu.Unlock()
				if len(calls) == 0 && name == signed {
					sig, _ := pm["thoughtSignature"].(string)
					if b, _ := base64.StdEncoding.DecodeString(sig); string(b) != string(fakeSignature) {
						return fmt.Sprintf("Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:%s` , position %d. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.", name, j+1)
					}
				}
				calls = append(calls, name)
			}
			if fr, ok := pm["functionResponse"].(map[string]any); ok {
				name, _ := fr["name"].(string)
				if _, ok := fr["response"].(map[string]any); !ok {
					return fmt.Sprintf("* GenerateContentRequest.contents[%d].parts[%d].function_response.response: must be an object", i, j)
				}
				responses = append(responses, name)
			}
			if d, ok := pm["inlineData"].(map[string]any); ok {
				mt, _ := d["mimeType"].(string)
				data, _ := d["data"].(string)
				b, err := base64.StdEncoding.DecodeString(data)
				if err != nil {
					return fmt.Sprintf("Invalid value at 'contents[%d].parts[%d].inline_data.data' (TYPE_BYTES), Base64 decoding failed", i, j)
				}
				if got := http.DetectContentType(b); got != mt {
					return fmt.Sprintf("Unable to process input image. Please retry or report in https://developers.generativeai.google/guide/troubleshooting (declared %s, the bytes are %s)", mt, got)
				}
			}
		}
		if len(responses) > 0 || len(lastCalls) > 0 {
			if len(responses) != len(lastCalls) {
				return "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."
			}
			if !slices.Equal(responses, lastCalls) {
				return fmt.Sprintf("Please ensure that function response turn comes immediately after a function call turn, and that the responses answer the calls in order (calls %v, responses %v).", lastCalls, responses)
			}
		}
		lastCalls = calls
	}
	return ""
}
