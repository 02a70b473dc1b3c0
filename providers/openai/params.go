package openai

import (
	"errors"
	"net/http"
	"strings"
	"sync"

	goopenai "github.com/sashabaranov/go-openai"
)

// reasoningFamilies are the name prefixes of OpenAI's reasoning models.
// In Chat Completions they reject stop ("Unsupported parameter: 'stop' is
// not supported with this model."), max_tokens (they take
// max_completion_tokens) and any temperature but the default, so none of
// those is sent to them. The list needs no update for a new model to
// work: a model outside it that rejects one of these parameters with a 400
// is sent the call again without it, once, and the Model remembers (see
// quirks). A provider prefix such as OpenRouter's "openai/" is ignored.
var reasoningFamilies = []string{"o1", "o3", "o4", "gpt-5", "gpt-6"}

// isReasoningModel reports whether name belongs to a reasoning family.
func isReasoningModel(name string) bool {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	for _, f := range reasoningFamilies {
		// The same plain prefix test as go-openai's own check, which
		// refuses max_tokens and temperature for these names before
		// sending anything.
		if strings.HasPrefix(name, f) {
			return true
		}
	}
	return false
}

// quirks are what the server told this Model's model it does not accept,
// learned from its 400s; every later call leaves those parameters out.
// Safe for concurrent use.
type quirks struct {
	mu sync.Mutex
	// noStop: stop is not sent (the caller cuts the text itself).
	noStop bool
	// maxCompletion: the limit goes as max_completion_tokens.
	maxCompletion bool
	// noTemperature: temperature is not sent.
	noTemperature bool
	// noReasoningEffort: reasoning_effort is not sent.
	noReasoningEffort bool
	// noResponseFormat: response_format is not sent; the caller parses
	// the text as it comes.
	noResponseFormat bool
}

func (q *quirks) get() quirks {
	q.mu.Lock()
	defer q.mu.Unlock()
	return quirks{noStop: q.noStop, maxCompletion: q.maxCompletion, noTemperature: q.noTemperature,
		noReasoningEffort: q.noReasoningEffort, noResponseFormat: q.noResponseFormat}
}

// learn reads a 400 that rejects one parameter of req and records the
// quirk. It reports whether the call is worth sending again: only when
// req carried the parameter, so a server that keeps rejecting it cannot
// loop.
func (q *quirks) learn(err error, req *goopenai.ChatCompletionRequest) bool {
	var apiErr *goopenai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != http.StatusBadRequest {
		return false
	}
	// Only a refusal of the parameter itself, not of its value (too many
	// stop sequences, a malformed schema), is worth another try.
	code, _ := apiErr.Code.(string)
	lower := strings.ToLower(apiErr.Message)
	if code != "unsupported_parameter" && code != "unsupported_value" &&
		!strings.Contains(lower, "unsupported") && !strings.Contains(lower, "not supported") &&
		!strings.Contains(lower, "unrecognized") {
		return false
	}
	param := ""
	if apiErr.Param != nil {
		param = *apiErr.Param
	}
	msg := apiErr.Message
	// Servers that leave param null still name it in the message, as
	// "'stop'" or "stop".
	names := func(p string) bool {
		return param == p || strings.HasPrefix(param, p+".") ||
			(param == "" && (strings.Contains(msg, "'"+p+"'") || strings.Contains(msg, "`"+p+"`")))
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	switch {
	case names("stop") && len(req.Stop) > 0:
		q.noStop = true
	//lint:ignore SA1019 the server rejected the max_tokens sent to servers other than OpenAI's
	case names("max_tokens") && req.MaxTokens > 0:
		q.maxCompletion = true
	case names("temperature") && req.Temperature != 0:
		q.noTemperature = true
	case names("reasoning_effort") && req.ReasoningEffort != "":
		q.noReasoningEffort = true
	case names("response_format") && req.ResponseFormat != nil:
		q.noResponseFormat = true
	default:
		return false
	}
	return true
}

// refusedByClient reports whether err is one of go-openai's own checks of
// a request, made before anything is sent.
func refusedByClient(err error) bool {
	for _, e := range []error{
		goopenai.ErrReasoningModelMaxTokensDeprecated, goopenai.ErrReasoningModelLimitationsLogprobs,
		goopenai.ErrReasoningModelLimitationsOther, goopenai.ErrReasoningEffortUnsupported,
		goopenai.ErrReasoningToolsRequireResponses, goopenai.ErrReasoningSamplingUnsupported,
		goopenai.ErrChatCompletionInvalidModel, goopenai.ErrContentFieldsMisused,
	} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
