package cli

import (
	"context"

	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/providers/gemini"
)

// newGemini builds the Gemini model.
func newGemini(f runFlags, name string) (providers.Model, error) {
	if name == "" {
		return nil, usageError("--model gemini:NAME needs a model name, e.g. gemini:gemini-2.5-flash")
	}
	key := geminiKey(f)
	if key == "" {
		return nil, usageError("--model gemini:%s needs an API key: set GEMINI_API_KEY or GOOGLE_API_KEY, or pass --api-key", name)
	}
	m, err := gemini.New(context.Background(), gemini.Options{Model: name, APIKey: key, BaseURL: f.apiBase})
	if err != nil {
		return nil, usageError("%v", err)
	}
	return m, nil
}
