// Package openai is a providers.Model for the OpenAI Chat Completions API
// and every server that speaks it, built on github.com/sashabaranov/go-openai.
//
// One provider covers many servers through Options.BaseURL (and, where
// needed, Options.Headers):
//
//	OpenAI        (default)                      APIKey = $OPENAI_API_KEY
//	Azure OpenAI  https://NAME.openai.azure.com  AzureAPIVersion = "2024-10-21", Model = deployment name
//	Ollama        http://localhost:11434/v1      no key
//	vLLM          http://localhost:8000/v1       key only if started with --api-key
//	llama.cpp     http://localhost:8080/v1       (llama-server)
//	LM Studio     http://localhost:1234/v1
//	OpenRouter    https://openrouter.ai/api/v1   Headers: HTTP-Referer, X-Title (optional)
//	Hugging Face  https://router.huggingface.co/v1  APIKey = $HF_TOKEN
//	LiteLLM proxy http://localhost:4000          APIKey = the proxy's key
//
// Reasoning models: stop, max_tokens and temperature are never sent to
// OpenAI's reasoning families (see reasoningFamilies), and a 400 from any
// model refusing one of them, reasoning_effort or response_format gets
// the call sent again once without it, which the Model then remembers.
// Callers cut the text at their stop sequences themselves, since a model
// or server may not. OpenAI's own API gets max_completion_tokens.
//
// GenerateOptions.Tools become function tools and tool_calls come back as
// Message.ToolCalls (assembled from their pieces when streaming); images
// become image_url parts with data: URLs; ResponseSchema becomes a strict
// json_schema response_format; ExtraBody is merged into the JSON body.
//
// Retries are done by providers/retry below go-openai (which has no retries
// of its own): 408, 429 and 5xx responses and transport errors are retried
// with backoff and jitter, honouring Retry-After. Failures are returned as
// *providers.Error, which says whether retrying later may help. The API
// key is sent only in the Authorization (or Azure api-key) header and is
// redacted from any server message that echoes it.
package openai

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/providers/retry"
)

// DefaultBaseURL is OpenAI's API.
const DefaultBaseURL = "https://api.openai.com/v1"

// DefaultTimeout bounds one attempt when Options.Timeout is zero.
const DefaultTimeout = 10 * time.Minute

// Options configure a Model. Model is required, and so is APIKey for
// OpenAI's own API and Azure.
type Options struct {
	// Model is the model name (the deployment name on Azure).
	Model string
	// APIKey is sent as a bearer token (Azure: the api-key header). Empty
	// sends no Authorization header, as local servers expect; OpenAI and
	// Azure refuse that, and so does New, unless Headers authorize.
	APIKey string
	// BaseURL is the API root, ending in /v1 for most servers; default
	// DefaultBaseURL.
	BaseURL string
	// Headers are added to every request (e.g. OpenRouter's HTTP-Referer).
	// They are never logged or recorded.
	Headers map[string]string
	// Organization is sent as OpenAI-Organization when not empty.
	Organization string
	// AzureAPIVersion, when set, switches to Azure OpenAI: BaseURL is the
	// resource endpoint, Model the deployment, and this the api-version.
	AzureAPIVersion string
	// HTTPClient is the client to send requests with; its transport is
	// wrapped with the retrying one. Nil means a new http.Client.
	HTTPClient *http.Client

	// MaxRetries is the number of retries after the first attempt; 0
	// means 3, negative means none.
	MaxRetries int
	// Retry tunes backoff delays and the longest honoured Retry-After;
	// its MaxAttempts is overridden by MaxRetries.
	Retry retry.Policy
	// Timeout bounds one attempt, from request to the end of the response
	// (the whole stream when streaming); default DefaultTimeout. The
	// caller's context bounds the call as a whole.
	Timeout time.Duration
	// RequestsPerMinute paces requests; 0 means no limit.
	RequestsPerMinute int

	// Temperature is the default sampling temperature; nil leaves it to
	// the server. GenerateOptions.Temperature overrides it.
	Temperature *float64
	// MaxTokens is the default output limit; 0 leaves it to the server.
	MaxTokens int
	// UseMaxCompletionTokens sends the limit as max_completion_tokens (as
	// OpenAI's reasoning models require) instead of max_tokens (which
	// other servers understand).
	UseMaxCompletionTokens bool
	// NoStreamUsage omits stream_options.include_usage when streaming, for
	// servers that reject it; streamed calls then report no usage.
	NoStreamUsage bool
	// ReasoningEffort is the default reasoning_effort ("low", "medium",
	// "high"...); GenerateOptions.ReasoningEffort overrides it.
	ReasoningEffort string
	// ExtraBody is merged into every request body (top-level fields, for
	// a server's own parameters, e.g. vLLM's top_k);
	// GenerateOptions.ExtraBody adds to it and wins on the same name.
	ExtraBody map[string]any
}

// Model is a providers.StreamingModel backed by a Chat Completions server.
// It is safe for concurrent use.
type Model struct {
	opts   Options
	client *goopenai.Client
	quirks quirks
}

var _ providers.StreamingModel = (*Model)(nil)

// New returns a Model for opts.
func New(opts Options) (*Model, error) {
	if opts.Model == "" {
		return nil, errors.New("openai: no model name given")
	}
	if strings.TrimSpace(opts.APIKey) == "" && !authorized(opts.Headers) {
		switch {
		case opts.AzureAPIVersion != "":
			return nil, fmt.Errorf("openai: %w for Azure OpenAI: set Options.APIKey to the resource's key (or an Authorization header in Options.Headers)", providers.ErrNoAPIKey)
		case opts.BaseURL == "" || strings.TrimRight(opts.BaseURL, "/") == DefaultBaseURL:
			return nil, fmt.Errorf("openai: %w for %s: set Options.APIKey (star-agent reads OPENAI_API_KEY), or BaseURL to a server that needs none, such as Ollama", providers.ErrNoAPIKey, DefaultBaseURL)
		}
	}
	if opts.BaseURL == "" {
		if opts.AzureAPIVersion != "" {
			return nil, errors.New("openai: Azure needs BaseURL, the resource endpoint")
		}
		opts.BaseURL = DefaultBaseURL
	}
	var cfg goopenai.ClientConfig
	if opts.AzureAPIVersion != "" {
		cfg = goopenai.DefaultAzureConfig(opts.APIKey, opts.BaseURL)
		cfg.APIVersion = opts.AzureAPIVersion
		cfg.AzureModelMapperFunc = func(model string) string { return model }
	} else {
		cfg = goopenai.DefaultConfig(opts.APIKey)
		cfg.BaseURL = strings.TrimRight(opts.BaseURL, "/")
	}
	cfg.OrgID = opts.Organization

	policy := opts.Retry.WithRetries(opts.MaxRetries)
	policy.AttemptTimeout = opts.Timeout
	if policy.AttemptTimeout == 0 {
		policy.AttemptTimeout = DefaultTimeout
	}
	var base http.RoundTripper
	if opts.HTTPClient != nil {
		base = opts.HTTPClient.Transport
	}
	if len(opts.Headers) > 0 {
		base = &headerTransport{base: base, headers: opts.Headers}
	}
	base = &bodyTransport{base: base}
	cfg.HTTPClient = retry.Client(opts.HTTPClient, &retry.Transport{
		Base:    base,
		Policy:  policy,
		Limiter: retry.Limiter(opts.RequestsPerMinute),
	})
	return &Model{opts: opts, client: goopenai.NewClientWithConfig(cfg)}, nil
}

// authorized reports whether headers carry credentials of their own (an
// Entra ID token for Azure, a key a proxy expects).
func authorized(headers map[string]string) bool {
	for k := range headers {
		if strings.EqualFold(k, "Authorization") || strings.EqualFold(k, "api-key") {
			return true
		}
	}
	return false
}

// ModelID implements providers.Model.
func (m *Model) ModelID() string { return m.opts.Model }

// request builds the Chat Completions request for a call, leaving out
// what the model does not accept (see reasoningFamilies and quirks).
// Its images are placeholders in images, for bodyTransport to fill in.
func (m *Model) request(msgs []providers.Message, opts providers.GenerateOptions, images *imageTable) goopenai.ChatCompletionRequest {
	q := m.quirks.get()
	reasoning := isReasoningModel(m.opts.Model)
	req := goopenai.ChatCompletionRequest{
		Model:    m.opts.Model,
		Messages: messages(msgs, images),
	}
	if !reasoning && !q.noStop {
		req.Stop = opts.StopSequences
	}
	if len(opts.Tools) > 0 {
		req.Tools = tools(opts.Tools)
		req.ToolChoice = toolChoice(opts.ToolChoice)
	}
	if rs := opts.ResponseSchema; rs != nil && !q.noResponseFormat {
		schema, _ := json.Marshal(rs.Schema)
		req.ResponseFormat = &goopenai.ChatCompletionResponseFormat{
			Type: goopenai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &goopenai.ChatCompletionResponseFormatJSONSchema{
				Name: cmp.Or(rs.Name, "response"), Schema: json.RawMessage(schema), Strict: true,
			},
		}
	}
	if t := cmp.Or(opts.Temperature, m.opts.Temperature); t != nil && !reasoning && !q.noTemperature {
		// go-openai omits a zero temperature; the smallest float32 is
		// its documented way to ask for greedy sampling.
		req.Temperature = float32(*t)
		if *t == 0 {
			req.Temperature = math.SmallestNonzeroFloat32
		}
	}
	if n := cmp.Or(opts.MaxTokens, m.opts.MaxTokens); n > 0 {
		if m.opts.UseMaxCompletionTokens || reasoning || q.maxCompletion || m.isOpenAI() {
			req.MaxCompletionTokens = n
		} else {
			//lint:ignore SA1019 servers other than OpenAI's take max_tokens only (see isOpenAI)
			req.MaxTokens = n
		}
	}
	if e := cmp.Or(opts.ReasoningEffort, m.opts.ReasoningEffort); e != "" && !q.noReasoningEffort {
		req.ReasoningEffort = e
	}
	return req
}

// isOpenAI reports whether the server is OpenAI's own (or Azure's), which
// takes max_completion_tokens for every model; other servers are sent
// max_tokens, which they all understand, until one rejects it.
func (m *Model) isOpenAI() bool {
	return m.opts.AzureAPIVersion != "" || strings.TrimRight(m.opts.BaseURL, "/") == DefaultBaseURL
}

// extraBody is the options' extra body over the Model's.
func (m *Model) extraBody(opts providers.GenerateOptions) map[string]any {
	if len(opts.ExtraBody) == 0 {
		return m.opts.ExtraBody
	}
	if len(m.opts.ExtraBody) == 0 {
		return opts.ExtraBody
	}
	out := make(map[string]any, len(m.opts.ExtraBody)+len(opts.ExtraBody))
	for k, v := range m.opts.ExtraBody {
		out[k] = v
	}
	for k, v := range opts.ExtraBody {
		out[k] = v
	}
	return out
}

// maxAdjustments bounds how often one call is sent again without a
// parameter the server rejected: once per kind of parameter at most.
const maxAdjustments = 5

// Generate implements providers.Model.
func (m *Model) Generate(ctx context.Context, msgs []providers.Message, opts providers.GenerateOptions) (*providers.Message, error) {
	const op = "chat completion"
	images := &imageTable{}
	req := m.request(msgs, opts, images)
	ctx, rep := retry.WithReport(withBody(ctx, m.extraBody(opts), images))
	var resp goopenai.ChatCompletionResponse
	for n := 0; ; n++ {
		if n > 0 {
			// Parameters as learnt; the messages stay as they are.
			next := m.request(nil, opts, nil)
			next.Messages = req.Messages
			req = next
		}
		var err error
		resp, err = m.client.CreateChatCompletion(ctx, req)
		if err == nil {
			break
		}
		if n < maxAdjustments && ctx.Err() == nil && m.quirks.learn(err, &req) {
			continue
		}
		return nil, m.wrap(ctx, op, rep, err)
	}
	if len(resp.Choices) == 0 {
		return nil, m.malformed(op, rep, "response has no choices")
	}
	msg := resp.Choices[0].Message
	return &providers.Message{
		Role:      providers.RoleAssistant,
		Content:   msg.Content,
		ToolCalls: toolCalls(msg.ToolCalls),
		Usage:     &providers.Usage{InputTokens: resp.Usage.PromptTokens, OutputTokens: resp.Usage.CompletionTokens},
	}, nil
}

// GenerateStream implements providers.StreamingModel. Unless
// Options.NoStreamUsage is set it asks for stream_options.include_usage,
// and the last delta carries the usage the server reports, and the tool
// calls, assembled from their pieces. A failure after some deltas were
// yielded is yielded as an error; it is not retried, since the caller has
// already seen part of the answer.
func (m *Model) GenerateStream(ctx context.Context, msgs []providers.Message, opts providers.GenerateOptions) iter.Seq2[providers.Delta, error] {
	return func(yield func(providers.Delta, error) bool) {
		const op = "stream chat completion"
		images := &imageTable{}
		req := m.request(msgs, opts, images)
		ctx, rep := retry.WithReport(withBody(ctx, m.extraBody(opts), images))
		var stream *goopenai.ChatCompletionStream
		for n := 0; ; n++ {
			if n > 0 {
				next := m.request(nil, opts, nil)
				next.Messages = req.Messages
				req = next
			}
			req.Stream = true
			if !m.opts.NoStreamUsage {
				req.StreamOptions = &goopenai.StreamOptions{IncludeUsage: true}
			}
			var err error
			stream, err = m.client.CreateChatCompletionStream(ctx, req)
			if err == nil {
				break
			}
			if n < maxAdjustments && ctx.Err() == nil && m.quirks.learn(err, &req) {
				continue
			}
			yield(providers.Delta{}, m.wrap(ctx, op, rep, err))
			return
		}
		defer stream.Close()
		usage := providers.Usage{}
		var calls toolCallAccumulator
		finished := false
		for {
			if ctx.Err() != nil {
				// Chunks may already sit in a buffer; stop anyway.
				yield(providers.Delta{}, m.wrap(ctx, op, rep, ctx.Err()))
				return
			}
			chunk, err := stream.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				yield(providers.Delta{}, m.wrap(ctx, op, rep, err))
				return
			}
			if chunk.Usage != nil {
				usage = providers.Usage{InputTokens: chunk.Usage.PromptTokens, OutputTokens: chunk.Usage.CompletionTokens}
			}
			for _, c := range chunk.Choices {
				if c.FinishReason != "" {
					finished = true
				}
				if c.Index != 0 {
					continue
				}
				calls.add(c.Delta.ToolCalls)
				if c.Delta.Content == "" {
					continue
				}
				if !yield(providers.Delta{Content: c.Delta.Content}, nil) {
					return
				}
			}
		}
		if !finished {
			// go-openai reports a connection closed before "data: [DONE]"
			// as a normal end; without a finish reason the answer may be
			// cut short.
			yield(providers.Delta{}, m.malformed(op, rep, "stream ended before a finish reason"))
			return
		}
		yield(providers.Delta{ToolCalls: toolCalls(calls.calls), Usage: &usage}, nil)
	}
}

// wrap turns an error from go-openai into a *providers.Error, or into the
// context's error when the caller gave up.
func (m *Model) wrap(ctx context.Context, op string, rep func() retry.Report, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("openai: %s: %w", op, ctx.Err())
	}
	r := rep()
	e := &providers.Error{Provider: "openai", Op: op, Attempts: r.Attempts, Err: err}
	var apiErr *goopenai.APIError
	var reqErr *goopenai.RequestError
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &apiErr):
		e.StatusCode = apiErr.HTTPStatusCode
		e.Message = apiErr.Message
	case errors.As(err, &reqErr):
		e.StatusCode = reqErr.HTTPStatusCode
		e.Message = truncate(strings.TrimSpace(string(reqErr.Body)), 300)
		if e.Message == "" && reqErr.Err != nil {
			e.Message = reqErr.Err.Error()
		}
	case errors.As(err, &syntaxErr), errors.As(err, &typeErr), errors.Is(err, io.ErrUnexpectedEOF):
		e.StatusCode = r.LastStatus
		e.Message = "malformed response: " + err.Error()
		e.Retryable = true
	case refusedByClient(err):
		// go-openai checks some models' parameters before sending
		// anything; sending the same call again cannot help.
		e.Message = err.Error() + " (refused by the client library before sending; check the model's options)"
	default:
		e.Message = err.Error()
		e.Retryable = true // transport error or timeout
	}
	if e.StatusCode != 0 && !strings.HasPrefix(e.Message, "malformed") {
		e.Retryable = retry.RetryableStatus(e.StatusCode)
	}
	e.Message = providers.Redact(e.Message, m.opts.APIKey)
	for _, v := range m.opts.Headers {
		e.Message = providers.Redact(e.Message, v)
	}
	return e
}

func (m *Model) malformed(op string, rep func() retry.Report, msg string) error {
	r := rep()
	return &providers.Error{Provider: "openai", Op: op, StatusCode: r.LastStatus, Attempts: r.Attempts,
		Message: "malformed response: " + msg, Retryable: true}
}

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	return base.RoundTrip(req)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
