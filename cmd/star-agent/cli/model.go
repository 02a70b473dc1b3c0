package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/providers/anthropic"
	"github.com/star-agent/star-agent/providers/gemini"
	"github.com/star-agent/star-agent/providers/openai"
	"github.com/star-agent/star-agent/providers/replay"
)

// modelChoices are the ways to choose a model, one per provider.
const modelChoices = `  --model openai:gpt-4o-mini       (set OPENAI_API_KEY, or --api-key)
  --model gemini:gemini-2.5-flash  (set GEMINI_API_KEY or GOOGLE_API_KEY)
  --model anthropic:claude-sonnet-4-5  (set ANTHROPIC_API_KEY)
  --model ollama:qwen2.5-coder     (a local Ollama server; OLLAMA_HOST to change it)
  --model openai:NAME --api-base URL  (any OpenAI-compatible server; or set OPENAI_BASE_URL)
  --replay FILE                    (play a session recorded with --record)`

// noModelHelp tells a user how to configure a model.
const noModelHelp = "no model configured. Pass one of:\n" + modelChoices

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
		ollamaFrom, ollamaChange := "from --api-base", "pass the address it listens on as --api-base"
		if provider == "ollama" && opts.BaseURL == "" {
			host := os.Getenv("OLLAMA_HOST")
			ollamaFrom, ollamaChange = "from OLLAMA_HOST", "set OLLAMA_HOST to the address it listens on"
			if host == "" {
				ollamaFrom = "the default, as OLLAMA_HOST is not set"
			}
			opts.BaseURL = ollamaBaseURL(host)
		}
		if provider == "openai" && opts.APIKey == "" && opts.BaseURL == "" {
			return nil, usageError("--model openai:%s needs an API key: set OPENAI_API_KEY or pass --api-key (or --api-base, or OPENAI_BASE_URL, for a local server)", name)
		}
		m, err := openai.New(opts)
		if err != nil {
			return nil, usageError("%v", err)
		}
		if provider == "ollama" {
			// Said at once: a call would fail only after its retries, as
			// an OpenAI connection error.
			if err := ollamaReachable(opts.BaseURL, ollamaFrom, ollamaChange); err != nil {
				return nil, usageError("%v", err)
			}
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
	return nil, usageError("unknown model provider %q; the providers are openai, gemini, anthropic, ollama and replay:\n%s", provider, modelChoices)
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

// ollamaTimeout bounds the check that Ollama answers.
const ollamaTimeout = 5 * time.Second

// ollamaReachable checks that an HTTP server answers at the root of
// baseURL (Ollama's /api/version; any answer will do, whatever serves
// there is the user's choice). from says where the address came from,
// change how to give another.
func ollamaReachable(baseURL, from, change string) error {
	root := strings.TrimSuffix(strings.TrimSuffix(baseURL, "/"), "/v1")
	ctx, cancel := context.WithTimeout(context.Background(), ollamaTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, root+"/api/version", nil)
	if err != nil {
		return fmt.Errorf("the Ollama address %q (%s) is not a URL: %v", root, from, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		var cause error = err
		if ue, ok := errors.AsType[*url.Error](err); ok {
			cause = ue.Err
		}
		return fmt.Errorf("cannot reach Ollama at %s (%s): %v\nstart it (ollama serve), or %s", root, from, cause, change)
	}
	resp.Body.Close()
	return nil
}

func geminiKey(f runFlags) string {
	for _, k := range []string{f.apiKey, os.Getenv("GEMINI_API_KEY"), os.Getenv("GOOGLE_API_KEY")} {
		if k != "" {
			return k
		}
	}
	return ""
}
