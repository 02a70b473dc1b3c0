package cli

import (
	"errors"
	"strings"
	"testing"
)

func TestNewModelFlags(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("GEMINI_API_KEY", "")
	t.Setenv("GOOGLE_API_KEY", "")
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
