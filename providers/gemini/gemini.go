// Package gemini is a providers.Model for Google's Gemini API, built on
// google.golang.org/genai with the Gemini API backend (API keys from Google
// AI Studio). genai is the maintained successor of
// github.com/google/generative-ai-go, whose support ended on 2025-11-30.
//
// System messages become the request's system instruction; user and
// assistant messages become "user" and "model" turns, tool results
// functionResponse parts (see contents), images inlineData parts.
// GenerateOptions.Tools become function declarations and functionCall
// parts Message.ToolCalls; ResponseSchema becomes responseJsonSchema with
// responseMimeType application/json, dropped for good for a model that
// refuses it; ReasoningEffort becomes a thinking budget or level. Retries are done by
// providers/retry below genai (whose own retries stay off): 408, 429 and 5xx
// responses and transport errors are retried with backoff and jitter,
// honouring a Retry-After header or, as Gemini sends it, the RetryInfo
// retryDelay in the error body. Failures are *providers.Error.
package gemini

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/genai"

	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/providers/retry"
)

// DefaultTimeout bounds one attempt when Options.Timeout is zero.
const DefaultTimeout = 10 * time.Minute

// Options configure a Model. Model and APIKey are required.
type Options struct {
	// Model is the model name, e.g. "gemini-2.5-flash".
	Model string
	// APIKey is sent in the x-goog-api-key header.
	APIKey string
	// BaseURL replaces https://generativelanguage.googleapis.com/ (for a
	// proxy or a test server).
	BaseURL string
	// APIVersion replaces genai's default ("v1beta").
	APIVersion string
	// Headers are added to every request. They are never logged or
	// recorded.
	Headers map[string]string
	// HTTPClient is the client to send requests with; its transport is
	// wrapped with the retrying one. Nil means a new http.Client.
	HTTPClient *http.Client

	// MaxRetries is the number of retries after the first attempt; 0
	// means 3, negative means none.
	MaxRetries int
	// Retry tunes backoff delays and the longest honoured retry delay; its
	// MaxAttempts is overridden by MaxRetries.
	Retry retry.Policy
	// Timeout bounds one attempt, from request to the end of the response
	// (the whole stream when streaming); default DefaultTimeout.
	Timeout time.Duration
	// RequestsPerMinute paces requests; 0 means no limit.
	RequestsPerMinute int

	// Temperature is the default sampling temperature; nil leaves it to
	// the server. GenerateOptions.Temperature overrides it.
	Temperature *float64
	// MaxTokens is the default output limit; 0 leaves it to the server.
	MaxTokens int
	// ReasoningEffort is the default reasoning effort (see
	// thinkingConfig); GenerateOptions.ReasoningEffort overrides it.
	ReasoningEffort string
	// ExtraBody is merged into every request body (genai's
	// HTTPOptions.ExtraBody); GenerateOptions.ExtraBody adds to it and
	// wins on the same name.
	ExtraBody map[string]any
}

// Model is a providers.StreamingModel backed by the Gemini API. It is safe
// for concurrent use.
type Model struct {
	opts   Options
	client *genai.Client
	// noSchema is set once the server refused a response schema for
	// this model; later calls go without one.
	noSchema atomic.Bool
}

var _ providers.StreamingModel = (*Model)(nil)

// New returns a Model for opts.
func New(ctx context.Context, opts Options) (*Model, error) {
	if opts.Model == "" {
		return nil, errors.New("gemini: no model name given")
	}
	if strings.TrimSpace(opts.APIKey) == "" {
		return nil, fmt.Errorf("gemini: %w: set Options.APIKey (star-agent reads GEMINI_API_KEY or GOOGLE_API_KEY)", providers.ErrNoAPIKey)
	}
	policy := opts.Retry.WithRetries(opts.MaxRetries)
	policy.AttemptTimeout = cmp.Or(opts.Timeout, DefaultTimeout)
	var base http.RoundTripper
	if opts.HTTPClient != nil {
		base = opts.HTTPClient.Transport
	}
	hc := retry.Client(opts.HTTPClient, &retry.Transport{
		Base:       &bodyTransport{base: base},
		Policy:     policy,
		Limiter:    retry.Limiter(opts.RequestsPerMinute),
		RetryAfter: retryInfoDelay,
	})
	cfg := &genai.ClientConfig{
		APIKey:     opts.APIKey,
		Backend:    genai.BackendGeminiAPI,
		HTTPClient: hc,
		HTTPOptions: genai.HTTPOptions{
			BaseURL:    opts.BaseURL,
			APIVersion: opts.APIVersion,
		},
	}
	if len(opts.Headers) > 0 {
		cfg.HTTPOptions.Headers = http.Header{}
		for k, v := range opts.Headers {
			cfg.HTTPOptions.Headers.Set(k, v)
		}
	}
	client, err := genai.NewClient(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("gemini: new client: %w", err)
	}
	return &Model{opts: opts, client: client}, nil
}

// ModelID implements providers.Model.
func (m *Model) ModelID() string { return m.opts.Model }

// request converts a conversation to Gemini's contents and config (see
// contents).
// Its images are placeholders in images, for bodyTransport to fill in.
func (m *Model) request(msgs []providers.Message, opts providers.GenerateOptions, images *imageTable) ([]*genai.Content, *genai.GenerateContentConfig) {
	cfg := &genai.GenerateContentConfig{StopSequences: opts.StopSequences}
	contents, system := contents(msgs, images)
	if len(system) > 0 {
		cfg.SystemInstruction = &genai.Content{Parts: system}
	}
	if t := cmp.Or(opts.Temperature, m.opts.Temperature); t != nil {
		f := float32(*t)
		cfg.Temperature = &f
	}
	if n := cmp.Or(opts.MaxTokens, m.opts.MaxTokens); n > 0 {
		cfg.MaxOutputTokens = int32(n)
	}
	if len(opts.Tools) > 0 {
		cfg.Tools = tools(opts.Tools)
		cfg.ToolConfig = toolConfig(opts.ToolChoice)
	}
	if rs := opts.ResponseSchema; rs != nil && !m.noSchema.Load() {
		cfg.ResponseMIMEType = "application/json"
		cfg.ResponseJsonSchema = rs.Schema
	}
	cfg.ThinkingConfig = thinkingConfig(m.opts.Model, cmp.Or(opts.ReasoningEffort, m.opts.ReasoningEffort))
	if extra := mergeExtra(m.opts.ExtraBody, opts.ExtraBody); len(extra) > 0 {
		cfg.HTTPOptions = &genai.HTTPOptions{ExtraBody: extra}
	}
	return contents, cfg
}

func mergeExtra(base, over map[string]any) map[string]any {
	if len(over) == 0 {
		return base
	}
	out := make(map[string]any, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

// schemaRefused reports whether err is a 400 refusing the response schema
// of cfg (a model without JSON mode, or one that cannot combine it with
// function calling), and if so remembers it: the call is worth sending
// again without the schema.
func (m *Model) schemaRefused(err error, cfg *genai.GenerateContentConfig) bool {
	var apiErr genai.APIError
	if cfg.ResponseJsonSchema == nil || !errors.As(err, &apiErr) || apiErr.Code != http.StatusBadRequest {
		return false
	}
	msg := strings.ToLower(apiErr.Message)
	for _, s := range []string{"response_mime_type", "responsemimetype", "response_schema", "response_json_schema",
		"responsejsonschema", "json mode", "mime type"} {
		if strings.Contains(msg, s) {
			m.noSchema.Store(true)
			return true
		}
	}
	return false
}

// Generate implements providers.Model.
func (m *Model) Generate(ctx context.Context, msgs []providers.Message, opts providers.GenerateOptions) (*providers.Message, error) {
	const op = "generate content"
	images := &imageTable{}
	contents, cfg := m.request(msgs, opts, images)
	ctx, rep := retry.WithReport(withImages(ctx, images))
	var resp *genai.GenerateContentResponse
	for n := 0; ; n++ {
		if n > 0 {
			_, cfg = m.request(nil, opts, nil)
		}
		var err error
		resp, err = m.client.Models.GenerateContent(ctx, m.opts.Model, contents, cfg)
		if err == nil {
			break
		}
		if n == 0 && ctx.Err() == nil && m.schemaRefused(err, cfg) {
			continue
		}
		return nil, m.wrap(ctx, op, rep, err)
	}
	text, _, err := m.text(op, rep, resp)
	if err != nil {
		return nil, err
	}
	msg := &providers.Message{Role: providers.RoleAssistant, Content: text, Usage: usage(resp)}
	if c := resp.Candidates; len(c) > 0 && c[0].Content != nil {
		msg.ToolCalls = functionCalls(c[0].Content.Parts, 0)
	}
	return msg, nil
}

// GenerateStream implements providers.StreamingModel using
// streamGenerateContent with server-sent events. The last delta carries the
// usage of the last chunk that reported it, and the function calls of all
// chunks.
func (m *Model) GenerateStream(ctx context.Context, msgs []providers.Message, opts providers.GenerateOptions) iter.Seq2[providers.Delta, error] {
	return func(yield func(providers.Delta, error) bool) {
		const op = "stream generate content"
		images := &imageTable{}
		contents, cfg := m.request(msgs, opts, images)
		ctx, rep := retry.WithReport(withImages(ctx, images))
		u := &providers.Usage{}
		var calls []providers.ToolCall
		finished := false
	call:
		for n := 0; ; n++ {
			if n > 0 {
				_, cfg = m.request(nil, opts, nil)
			}
			for resp, err := range m.client.Models.GenerateContentStream(ctx, m.opts.Model, contents, cfg) {
				if err == nil {
					err = ctx.Err()
				}
				if err != nil {
					if n == 0 && ctx.Err() == nil && m.schemaRefused(err, cfg) {
						continue call // nothing was yielded: the refusal comes first
					}
					yield(providers.Delta{}, m.wrap(ctx, op, rep, err))
					return
				}
				text, done, err := m.text(op, rep, resp)
				if err != nil {
					yield(providers.Delta{}, err)
					return
				}
				finished = finished || done
				if resp.UsageMetadata != nil {
					u = usage(resp)
				}
				if c := resp.Candidates; len(c) > 0 && c[0].Content != nil {
					calls = append(calls, functionCalls(c[0].Content.Parts, len(calls))...)
				}
				if text != "" && !yield(providers.Delta{Content: text}, nil) {
					return
				}
			}
			break
		}
		if !finished {
			yield(providers.Delta{}, malformed(op, rep, "stream ended before a finish reason"))
			return
		}
		yield(providers.Delta{ToolCalls: calls, Usage: u}, nil)
	}
}

// text returns the text of the first candidate (thoughts excluded) and
// whether it carries a finish reason. A blocked prompt, or a candidate
// stopped for safety with no text, is an error.
func (m *Model) text(op string, rep func() retry.Report, resp *genai.GenerateContentResponse) (string, bool, error) {
	if len(resp.Candidates) == 0 {
		if fb := resp.PromptFeedback; fb != nil && fb.BlockReason != "" {
			return "", false, &providers.Error{Provider: "gemini", Op: op, StatusCode: rep().LastStatus,
				Attempts: rep().Attempts, Message: "prompt blocked: " + string(fb.BlockReason)}
		}
		if resp.UsageMetadata != nil {
			return "", false, nil // a usage-only chunk
		}
		return "", false, malformed(op, rep, "response has no candidates")
	}
	c := resp.Candidates[0]
	var b strings.Builder
	if c.Content != nil {
		for _, p := range c.Content.Parts {
			if !p.Thought {
				b.WriteString(p.Text)
			}
		}
	}
	switch c.FinishReason {
	case genai.FinishReasonSafety, genai.FinishReasonRecitation, genai.FinishReasonBlocklist,
		genai.FinishReasonProhibitedContent, genai.FinishReasonSPII:
		if b.Len() == 0 {
			return "", true, &providers.Error{Provider: "gemini", Op: op, StatusCode: rep().LastStatus,
				Attempts: rep().Attempts, Message: "response blocked: " + string(c.FinishReason)}
		}
	}
	return b.String(), c.FinishReason != "", nil
}

// usage reads UsageMetadata; thinking tokens count as output, as they are
// billed.
func usage(resp *genai.GenerateContentResponse) *providers.Usage {
	u := &providers.Usage{}
	if md := resp.UsageMetadata; md != nil {
		u.InputTokens = int(md.PromptTokenCount)
		u.OutputTokens = int(md.CandidatesTokenCount + md.ThoughtsTokenCount)
	}
	return u
}

// wrap turns an error from genai into a *providers.Error, or into the
// context's error when the caller gave up.
func (m *Model) wrap(ctx context.Context, op string, rep func() retry.Report, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("gemini: %s: %w", op, ctx.Err())
	}
	r := rep()
	e := &providers.Error{Provider: "gemini", Op: op, Attempts: r.Attempts, Err: err}
	var apiErr genai.APIError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &apiErr):
		e.StatusCode = cmp.Or(apiErr.Code, r.LastStatus)
		e.Message = apiErr.Message
		if apiErr.Status != "" {
			e.Message = apiErr.Status + ": " + e.Message
		}
		e.Retryable = retry.RetryableStatus(e.StatusCode)
	case errors.As(err, &syntaxErr), errors.Is(err, io.ErrUnexpectedEOF), r.LastStatus == http.StatusOK:
		e.StatusCode = r.LastStatus
		e.Message = "malformed response: " + truncate(err.Error(), 300)
		e.Retryable = true
	default:
		e.Message = err.Error()
		e.Retryable = true // transport error or timeout
	}
	e.Message = providers.Redact(e.Message, m.opts.APIKey)
	for _, v := range m.opts.Headers {
		e.Message = providers.Redact(e.Message, v)
	}
	return e
}

func malformed(op string, rep func() retry.Report, msg string) error {
	r := rep()
	return &providers.Error{Provider: "gemini", Op: op, StatusCode: r.LastStatus, Attempts: r.Attempts,
		Message: "malformed response: " + msg, Retryable: true}
}

// retryInfoDelay reads the retryDelay of a google.rpc.RetryInfo detail in
// a Gemini error body ({"error":{"details":[{"@type":
// "type.googleapis.com/google.rpc.RetryInfo","retryDelay":"17s"}]}}),
// restoring the body for the caller.
func retryInfoDelay(resp *http.Response) (time.Duration, bool) {
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), resp.Body), resp.Body}
	if err != nil {
		return 0, false
	}
	var e struct {
		Error struct {
			Details []struct {
				Type       string `json:"@type"`
				RetryDelay string `json:"retryDelay"`
			} `json:"details"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil {
		return 0, false
	}
	for _, d := range e.Error.Details {
		if strings.HasSuffix(d.Type, "google.rpc.RetryInfo") {
			if v, err := time.ParseDuration(d.RetryDelay); err == nil && v >= 0 {
				return v, true
			}
		}
	}
	return 0, false
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
