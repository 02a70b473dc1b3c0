package cli

import (
	"cmp"
	"context"
	"os"
	"strings"

	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/providers/anthropic"
	"github.com/star-agent/star-agent/providers/gemini"
	"github.com/star-agent/star-agent/providers/openai"
	"github.com/star-agent/star-agent/providers/replay"
)

// noModelHelp tells a user how to configure a model.
const noModelHelp = `no model configured. Pass one of:
  --model openai:gpt-4o-mini       (set OPENAI_API_KEY, or --api-key)
  --model gemini:gemini-2.5-flash  (set GEMINI_API_KEY or GOOGLE_API_KEY)
  --model anthropic:claude-sonnet-4-5  (set ANTHROPIC_API_KEY)
  --model ollama:qwen2.5-coder     (a local Ollama server; OLLAMA_HOST to change it)
  --model openai:NAME --api-base URL  (any OpenAI-compatible server; or set OPENAI_BASE_URL)
  --replay FILE                    (play a session recorded with --record)`

// newModel builds the model the flags describe.
func newModel(f runFlags) (providers.Model, error) {
	provider, name := f.modelType, f.modelID
	if f.model != "" {
		if provider != "" {
			return nil, usageError("pass either --model or --model-type, not both")
		}
		var ok bool
		provider, name, ok = strings.Cut(f.model, ":")
		if !ok {
			return nil, usageError("--model must be PROVIDER:NAME, e.g. openai:gpt-4o-mini, not %q", f.model)
		}
	}
	if f.replayFile != "" {
		if provider != "" && provider != "replay" {
			return nil, usageError("pass either --replay or --model, not both")
		}
		provider, name = "replay", f.replayFile
	}
	switch provider {
	case "":
		return nil, usageError("%s", noModelHelp)
	case "replay":
		if name == "" {
			return nil, usageError("replay needs a recording: --replay FILE")
		}
		m, err := replay.Open(name)
		if err != nil {
			return nil, usageError("%v", err)
		}
		return m, nil
	}
	mf := &f.modelOpts
	extra, err := mf.check()
	if err != nil {
		return nil, err
	}
	switch provider {
	case "openai", "ollama":
		if name == "" {
			return nil, usageError("--model %s:NAME needs a model name", provider)
		}
		opts := openai.Options{Model: name, APIKey: f.apiKey, BaseURL: f.apiBase,
			Temperature: mf.temperature.p, MaxTokens: mf.maxTokens, Timeout: mf.requestTimeout,
			MaxRetries: mf.retries(), ReasoningEffort: mf.reasoningEffort, ExtraBody: extra}
		if provider == "openai" && opts.APIKey == "" {
			opts.APIKey = os.Getenv("OPENAI_API_KEY")
		}
		if provider == "openai" && opts.BaseURL == "" {
			opts.BaseURL = os.Getenv("OPENAI_BASE_URL")
		}
		if provider == "ollama" && opts.BaseURL == "" {
			opts.BaseURL = ollamaBaseURL(os.Getenv("OLLAMA_HOST"))
		}
		if provider == "openai" && opts.APIKey == "" && opts.BaseURL == "" {
			return nil, usageError("--model openai:%s needs an API key: set OPENAI_API_KEY or pass --api-key (or --api-base, or OPENAI_BASE_URL, for a local server)", name)
		}
		m, err := openai.New(opts)
		if err != nil {
			return nil, usageError("%v", err)
		}
		return m, nil
	case "anthropic":
		if name == "" {
			return nil, usageError("--model anthropic:NAME needs a model name, e.g. anthropic:claude-sonnet-4-5")
		}
		key := cmp.Or(f.apiKey, os.Getenv("ANTHROPIC_API_KEY"))
		if key == "" {
			return nil, usageError("--model anthropic:%s needs an API key: set ANTHROPIC_API_KEY or pass --api-key", name)
		}
		if t := mf.temperature.p; t != nil && *t > 1 {
			return nil, usageError("--temperature must be between 0 and 1 for Anthropic, not %g", *t)
		}
		m, err := anthropic.New(anthropic.Options{Model: name, APIKey: key, BaseURL: f.apiBase,
			Temperature: mf.temperature.p, MaxTokens: mf.maxTokens, RequestTimeout: mf.requestTimeout,
			MaxRetries: mf.retries(), ReasoningEffort: mf.reasoningEffort, ExtraBody: extra})
		if err != nil {
			return nil, usageError("%v", err)
		}
		return m, nil
	case "gemini":
		if name == "" {
			return nil, usageError("--model gemini:NAME needs a model name, e.g. gemini:gemini-2.5-flash")
		}
		key := geminiKey(f)
		if key == "" {
			return nil, usageError("--model gemini:%s needs an API key: set GEMINI_API_KEY or GOOGLE_API_KEY, or pass --api-key", name)
		}
		m, err := gemini.New(context.Background(), gemini.Options{Model: name, APIKey: key, BaseURL: f.apiBase,
			Temperature: mf.temperature.p, MaxTokens: mf.maxTokens, Timeout: mf.requestTimeout,
			MaxRetries: mf.retries(), ReasoningEffort: mf.reasoningEffort, ExtraBody: extra})
		if err != nil {
			return nil, usageError("%v", err)
		}
		return m, nil
	}
	return nil, usageError("unknown model provider %q\n%s", provider, noModelHelp)
}

// ollamaBaseURL is the OpenAI-compatible endpoint of an Ollama server.
func ollamaBaseURL(host string) string {
	if host == "" {
		return "http://localhost:11434/v1"
	}
	if !strings.Contains(host, "://") {
		host = "http://" + host
	}
	return strings.TrimSuffix(host, "/") + "/v1"
}

func geminiKey(f runFlags) string {
	for _, k := range []string{f.apiKey, os.Getenv("GEMINI_API_KEY"), os.Getenv("GOOGLE_API_KEY")} {
		if k != "" {
			return k
		}
	}
	return ""
}
