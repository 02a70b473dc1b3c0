package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/providers"
)

func TestNewModelFlags(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("GEMINI_API_KEY", "")
	t.Setenv("GOOGLE_API_KEY", "")
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("OLLAMA_HOST", ollamaServer(t))
	for _, c := range []struct {
		name string
		f    runFlags
		err  string // "" means a model is built
	}{
		{"nothing", runFlags{}, "no model configured"},
		{"no colon", runFlags{model: "gpt-4o"}, "must be PROVIDER:NAME"},
		{"unknown provider", runFlags{model: "acme:x"}, `unknown model provider "acme"`},
		{"openai without key", runFlags{model: "openai:gpt-4o-mini"}, "needs an API key"},
		{"openai with key", runFlags{model: "openai:gpt-4o-mini", apiKey: "k"}, ""},
		{"openai local server", runFlags{model: "openai:qwen", apiBase: "http://localhost:8000/v1"}, ""},
		{"type and id", runFlags{modelType: "ollama", modelID: "qwen2.5-coder"}, ""},
		{"both forms", runFlags{model: "ollama:x", modelType: "openai"}, "not both"},
		{"replay and model", runFlags{model: "openai:x", replayFile: "f"}, "not both"},
		{"gemini without key", runFlags{model: "gemini:gemini-2.5-flash"}, "GEMINI_API_KEY"},
		{"gemini with key", runFlags{model: "gemini:gemini-2.5-flash", apiKey: "k"}, ""},
		{"ollama without name", runFlags{model: "ollama:"}, "needs a model name"},
		{"anthropic without key", runFlags{model: "anthropic:claude-sonnet-4-5"}, "ANTHROPIC_API_KEY"},
		{"anthropic with key", runFlags{model: "anthropic:claude-sonnet-4-5", apiKey: "k"}, ""},
		{"anthropic without name", runFlags{model: "anthropic:", apiKey: "k"}, "needs a model name"},
		{"anthropic too hot", runFlags{model: "anthropic:claude-sonnet-4-5", apiKey: "k", modelOpts: modelFlags{temperature: optionalFloat{ptr(1.5)}}}, "between 0 and 1 for Anthropic"},
	} {
		m, err := newModel(c.f)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want %q", c.name, err, c.err)
		case c.err == "" && m == nil:
			t.Errorf("%s: no model", c.name)
		}
		if ee, ok := errors.AsType[*ExitError](err); err != nil && (!ok || ee.Code != 2) {
			t.Errorf("%s: %v is not a usage error", c.name, err)
		}
	}
}

func TestOllamaBaseURL(t *testing.T) {
	for in, want := range map[string]string{
		"":                      "http://localhost:11434/v1",
		"gpu-box:11434":         "http://gpu-box:11434/v1",
		"https://ollama.local/": "https://ollama.local/v1",
	} {
		if got := ollamaBaseURL(in); got != want {
			t.Errorf("ollamaBaseURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func TestModelFlagsAreChecked(t *testing.T) {
	neg := -0.5
	for _, c := range []struct {
		name string
		mf   modelFlags
		err  string
	}{
		{"temperature", modelFlags{temperature: optionalFloat{&neg}}, "--temperature must be between 0 and 2"},
		{"max tokens", modelFlags{maxTokens: -1}, "--max-tokens"},
		{"timeout", modelFlags{requestTimeout: -time.Second}, "--request-timeout"},
		{"retries", modelFlags{maxRetries: -2}, "--max-retries"},
		{"effort", modelFlags{reasoningEffort: "extreme"}, `not "extreme"`},
		{"extra body", modelFlags{extraBody: "[1]"}, "--extra-body must be a JSON object"},
		{"extra body null", modelFlags{extraBody: "null"}, "--extra-body must be a JSON object"},
	} {
		_, err := newModel(runFlags{model: "openai:x", apiKey: "k", modelOpts: c.mf})
		ee, ok := errors.AsType[*ExitError](err)
		if !ok || ee.Code != 2 || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %v, want a usage error with %q", c.name, err, c.err)
		}
	}
}

// chatServer is a minimal Chat Completions server that records the
// bodies it gets; hang makes it never answer.
func chatServer(t *testing.T, hang bool) (*httptest.Server, chan map[string]any) {
	bodies := make(chan map[string]any, 10)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		bodies <- body
		if hang {
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	}))
	t.Cleanup(s.Close)
	return s, bodies
}

// TestModelFlagsReachTheRequest: the flags are the provider's defaults;
// OPENAI_BASE_URL is used when --api-base is not given, and loses to it.
func TestModelFlagsReachTheRequest(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	used, usedBodies := chatServer(t, false)
	unused, unusedBodies := chatServer(t, false)
	t.Setenv("OPENAI_BASE_URL", used.URL+"/v1")
	temp := 0.0
	mf := modelFlags{temperature: optionalFloat{&temp}, maxTokens: 300, reasoningEffort: "low", extraBody: `{"top_k": 20}`, maxRetries: 3}
	m, err := newModel(runFlags{model: "openai:qwen", modelOpts: mf})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Generate(context.Background(), []providers.Message{{Role: providers.RoleUser, Content: "hi"}}, providers.GenerateOptions{}); err != nil {
		t.Fatal(err)
	}
	body := <-usedBodies
	if body["max_tokens"] != 300.0 || body["temperature"] == nil || body["temperature"].(float64) > 1e-30 ||
		body["reasoning_effort"] != "low" || body["top_k"] != 20.0 {
		t.Fatalf("body = %v", body)
	}

	m, err = newModel(runFlags{model: "openai:qwen", apiBase: unused.URL + "/v1", modelOpts: mf})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Generate(context.Background(), []providers.Message{{Role: providers.RoleUser, Content: "hi"}}, providers.GenerateOptions{MaxTokens: 5}); err != nil {
		t.Fatal(err)
	}
	if body := <-unusedBodies; body["max_tokens"] != 5.0 {
		t.Fatalf("--api-base not used before OPENAI_BASE_URL, or the call's limit lost: %v", body)
	}
	if len(usedBodies) != 0 {
		t.Fatal("OPENAI_BASE_URL used despite --api-base")
	}
}

// TestRequestTimeout: --request-timeout bounds each attempt of a call to
// a server that never answers, and --max-retries counts the attempts.
func TestRequestTimeout(t *testing.T) {
	s, bodies := chatServer(t, true)
	for _, provider := range []string{"openai", "gemini", "anthropic"} {
		base := s.URL + "/v1"
		if provider != "openai" {
			base = s.URL
		}
		m, err := newModel(runFlags{model: provider + ":m", apiKey: "k", apiBase: base,
			modelOpts: modelFlags{requestTimeout: 50 * time.Millisecond, maxRetries: 1}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.Generate(context.Background(), []providers.Message{{Role: providers.RoleUser, Content: "hi"}}, providers.GenerateOptions{})
		pe, ok := errors.AsType[*providers.Error](err)
		if !ok || pe.Attempts != 2 || !strings.Contains(err.Error(), "timed out after 50ms") {
			t.Fatalf("%s: err = %v (attempts %d, %d requests)", provider, err, pe.Attempts, len(bodies))
		}
		if n := len(bodies); n != 2 {
			t.Fatalf("%s: %d requests, want 2", provider, n)
		}
		<-bodies
		<-bodies
	}
}

// ollamaServer answers GET /api/version as Ollama does (and 404 for
// paths it does not know); it returns its address as OLLAMA_HOST gives
// it, without a scheme.
func ollamaServer(t *testing.T) string {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/api/version" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		fmt.Fprint(w, `{"version":"0.12.6"}`)
	}))
	t.Cleanup(s.Close)
	return strings.TrimPrefix(s.URL, "http://")
}

// closedPort returns a loopback address where nothing listens.
func closedPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// An Ollama that does not answer is said to be so at once, with the
// address and how to change it, before any model call and its retries.
func TestOllamaNotReachable(t *testing.T) {
	addr := closedPort(t)
	for _, c := range []struct {
		name, host string
		f          runFlags
		want       string
	}{
		{"OLLAMA_HOST", addr, runFlags{model: "ollama:llama3"},
			"cannot reach Ollama at http://" + addr + " (from OLLAMA_HOST): dial tcp " + addr + ": connect: connection refused\nstart it (ollama serve), or set OLLAMA_HOST to the address it listens on"},
		{"--api-base", "", runFlags{model: "ollama:llama3", apiBase: "http://" + addr + "/v1"},
			"cannot reach Ollama at http://" + addr + " (from --api-base): dial tcp " + addr + ": connect: connection refused\nstart it (ollama serve), or pass the address it listens on as --api-base"},
	} {
		t.Setenv("OLLAMA_HOST", c.host)
		start := time.Now()
		_, err := newModel(c.f)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: error\n%v\nwant\n%s", c.name, err, c.want)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: the error took %v: retried?", c.name, d)
		}
	}
	t.Setenv("OLLAMA_HOST", ollamaServer(t))
	if _, err := newModel(runFlags{model: "ollama:llama3"}); err != nil {
		t.Errorf("with Ollama answering: %v", err)
	}
}

// An unknown provider is one error, which lists the known ones.
func TestUnknownProvider(t *testing.T) {
	for _, f := range []runFlags{{model: "foo:bar"}, {modelType: "foo", modelID: "bar"}} {
		_, err := newModel(f)
		msg := fmt.Sprint(err)
		if !strings.HasPrefix(msg, `unknown model provider "foo"; the providers are openai, gemini, anthropic, ollama and replay:`+"\n") ||
			!strings.Contains(msg, "--model ollama:qwen2.5-coder") || strings.Contains(msg, "no model configured") {
			t.Errorf("%+v: %s", f, msg)
		}
	}
}
