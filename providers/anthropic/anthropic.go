// Package anthropic is a providers.Model for Anthropic's Messages API, built
// on github.com/anthropics/anthropic-sdk-go.
//
// System messages are joined into the request's top-level system prompt;
// consecutive messages of one role are merged into one turn, as the API
// requires turns to alternate; tool results (RoleTool) become tool_result
// blocks of a user turn and assistant tool calls become tool_use blocks.
// Retries are done by providers/retry below the SDK, whose own retries are
// off so that no call is retried twice over: 408, 429, 529 and other 5xx
// responses and transport errors are retried with backoff and jitter,
// honouring Retry-After. Failures are *providers.Error wrapping an
// *APIError that carries Anthropic's error type. The key is sent only in
// the x-api-key header and never logged.
package anthropic

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/star-agent/star-agent/providers"
	"github.com/star-agent/star-agent/providers/retry"
)

// DefaultMaxTokens is the output limit sent when neither Options.MaxTokens
// nor GenerateOptions.MaxTokens is set: the API requires max_tokens, and
// 4096 is enough for an agent step (a thought and a code block) while
// within every current model's limit.
const DefaultMaxTokens = 4096

// sdkCallTimeout is the SDK's own deadline for a call: out of the way.
const sdkCallTimeout = 24 * time.Hour

// DefaultTimeout bounds one attempt when Options.RequestTimeout is zero.
const DefaultTimeout = 10 * time.Minute

// Thinking budgets in tokens for each ReasoningEffort (extended thinking;
// 1024 is the API's minimum). "none" sends no thinking.
var thinkingBudget = map[string]int{"none": 0, "minimal": 1024, "low": 1024, "medium": 4096, "high": 16384, "xhigh": 32768}

// Options configure a Model. Model is required, and an API key (APIKey or
// $ANTHROPIC_API_KEY).
type Options struct {
	// Model is the model name, e.g. "claude-sonnet-4-5".
	Model string
	// APIKey is sent in the x-api-key header; empty means
	// $ANTHROPIC_API_KEY.
	APIKey string
	// BaseURL is the API's base URL without /v1 (requests go to
	// BaseURL/v1/messages); default https://api.anthropic.com.
	BaseURL string
	// Headers are added to every request. They are never logged.
	Headers map[string]string
	// HTTPClient is the client to send requests with; its transport is
	// wrapped with the retrying one. Nil means a new http.Client.
	HTTPClient *http.Client

	// MaxRetries is the number of retries after the first attempt; 0
	// means 3, negative means none.
	MaxRetries int
	// Retry tunes backoff delays and the longest honoured Retry-After; its
	// MaxAttempts is overridden by MaxRetries.
	Retry retry.Policy
	// RequestTimeout bounds one attempt, from request to the end of the
	// response (the whole stream when streaming); default DefaultTimeout.
	RequestTimeout time.Duration
	// RequestsPerMinute paces requests; 0 means no limit.
	RequestsPerMinute int

	// MaxTokens is the default output limit; 0 means DefaultMaxTokens.
	MaxTokens int
	// Temperature is the default sampling temperature (0 to 1 for
	// Anthropic); nil leaves it to the server. GenerateOptions.Temperature
	// overrides it.
	Temperature *float64
	// ReasoningEffort is the default effort ("none", "minimal", "low",
	// "medium", "high", "xhigh"), sent as an extended-thinking budget of
	// 0, 1024, 1024, 4096, 16384 or 32768 tokens added to max_tokens;
	// GenerateOptions.ReasoningEffort overrides it.
	ReasoningEffort string
	// ExtraBody is set in every request body (top-level fields, e.g.
	// "top_k" or "metadata"); GenerateOptions.ExtraBody adds to it and
	// wins on the same name.
	ExtraBody map[string]any
}

// Model is a providers.StreamingModel backed by the Messages API. It is
// safe for concurrent use.
type Model struct {
	opts   Options
	client sdk.Client
	// noSchema is set once the API refused output_config.format for this
	// model; structured outputs are then left to the caller's parsing.
	noSchema atomic.Bool
}

var _ providers.StreamingModel = (*Model)(nil)

// New returns a Model for opts.
func New(opts Options) (*Model, error) {
	if opts.Model == "" {
		return nil, errors.New("anthropic: no model name given")
	}
	if opts.APIKey == "" {
		opts.APIKey = os.Getenv("ANTHROPIC_API_KEY")
	}
	if strings.TrimSpace(opts.APIKey) == "" {
		return nil, fmt.Errorf("anthropic: %w: set ANTHROPIC_API_KEY or Options.APIKey", providers.ErrNoAPIKey)
	}
	policy := opts.Retry.WithRetries(opts.MaxRetries)
	policy.AttemptTimeout = cmp.Or(opts.RequestTimeout, DefaultTimeout)
	var base http.RoundTripper
	if opts.HTTPClient != nil {
		base = opts.HTTPClient.Transport
	}
	hc := retry.Client(opts.HTTPClient, &retry.Transport{
		Base:    base,
		Policy:  policy,
		Limiter: retry.Limiter(opts.RequestsPerMinute),
	})
	ro := []option.RequestOption{
		// No credential chain, profiles or ANTHROPIC_BASE_URL from the
		// SDK: what is sent is what Options say.
		option.WithoutEnvironmentDefaults(),
		option.WithAPIKey(opts.APIKey),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0), // providers/retry retries
	}
	if opts.BaseURL != "" {
		u := strings.TrimRight(opts.BaseURL, "/")
		if strings.HasSuffix(u, "/v1") {
			return nil, fmt.Errorf("anthropic: base URL %q ends in /v1; give it without /v1 (requests go to BASE/v1/messages)", opts.BaseURL)
		}
		ro = append(ro, option.WithBaseURL(u+"/"))
	}
	for k, v := range opts.Headers {
		ro = append(ro, option.WithHeader(k, v))
	}
	return &Model{opts: opts, client: sdk.NewClient(ro...)}, nil
}

// ModelID implements providers.Model.
func (m *Model) ModelID() string { return m.opts.Model }

// request builds the Messages request for a call and the per-call options
// (ExtraBody).
func (m *Model) request(msgs []providers.Message, opts providers.GenerateOptions) (sdk.MessageNewParams, []option.RequestOption, error) {
	p := sdk.MessageNewParams{
		Model:     sdk.Model(m.opts.Model),
		MaxTokens: int64(cmp.Or(opts.MaxTokens, m.opts.MaxTokens, DefaultMaxTokens)),
	}
	for _, s := range opts.StopSequences {
		if strings.TrimSpace(s) != "" { // whitespace-only ones are refused
			p.StopSequences = append(p.StopSequences, s)
		}
	}
	var system []string
	var turns []sdk.MessageParam
	toolCalls := false
	for i, msg := range msgs {
		var role sdk.MessageParamRole
		var blocks []sdk.ContentBlockParamUnion
		switch msg.Role {
		case providers.RoleSystem:
			if hasText(msg.Content) {
				system = append(system, msg.Content)
			}
			continue
		case providers.RoleUser:
			role = sdk.MessageParamRoleUser
			if hasText(msg.Content) {
				blocks = append(blocks, sdk.NewTextBlock(msg.Content))
			}
			for j, img := range msg.Images {
				b, err := imageBlock(img)
				if err != nil {
					return p, nil, fmt.Errorf("anthropic: message %d, image %d: %w", i, j, err)
				}
				blocks = append(blocks, sdk.ContentBlockParamUnion{OfImage: b})
			}
		case providers.RoleAssistant:
			role = sdk.MessageParamRoleAssistant
			if hasText(msg.Content) {
				blocks = append(blocks, sdk.NewTextBlock(msg.Content))
			}
			for _, tc := range msg.ToolCalls {
				toolCalls = true
				blocks = append(blocks, sdk.NewToolUseBlock(tc.ID, toolInput(tc.Arguments), tc.Name))
			}
		case providers.RoleTool:
			role = sdk.MessageParamRoleUser
			if msg.ToolCallID == "" {
				return p, nil, fmt.Errorf("anthropic: message %d is a tool result without a tool call ID", i)
			}
			res := sdk.ToolResultBlockParam{ToolUseID: msg.ToolCallID}
			if hasText(msg.Content) {
				res.Content = append(res.Content, sdk.ToolResultBlockParamContentUnion{OfText: &sdk.TextBlockParam{Text: msg.Content}})
			}
			for j, img := range msg.Images {
				b, err := imageBlock(img)
				if err != nil {
					return p, nil, fmt.Errorf("anthropic: message %d, image %d: %w", i, j, err)
				}
				res.Content = append(res.Content, sdk.ToolResultBlockParamContentUnion{OfImage: b})
			}
			blocks = append(blocks, sdk.ContentBlockParamUnion{OfToolResult: &res})
		default:
			return p, nil, fmt.Errorf("anthropic: message %d has unknown role %q", i, msg.Role)
		}
		if len(blocks) == 0 {
			continue // the API rejects empty turns and empty text blocks
		}
		if n := len(turns); n > 0 && turns[n-1].Role == role {
			turns[n-1].Content = mergeBlocks(turns[n-1].Content, blocks)
			continue
		}
		turns = append(turns, sdk.MessageParam{Role: role, Content: blocks})
	}
	if len(turns) == 0 || turns[0].Role != sdk.MessageParamRoleUser {
		return p, nil, errors.New("anthropic: the conversation must start with a user message (after any system messages)")
	}
	if last := turns[len(turns)-1]; last.Role == sdk.MessageParamRoleAssistant {
		// A final assistant turn is a prefill, which may not end in
		// whitespace.
		if b := last.Content[len(last.Content)-1].OfText; b != nil {
			b.Text = strings.TrimRight(b.Text, " \t\r\n")
		}
	}
	p.Messages = turns
	if len(system) > 0 {
		p.System = []sdk.TextBlockParam{{Text: strings.Join(system, "\n\n")}}
	}

	for _, t := range opts.Tools {
		p.Tools = append(p.Tools, sdk.ToolUnionParam{OfTool: toolParam(t)})
	}
	if len(opts.Tools) > 0 {
		switch opts.ToolChoice {
		case "":
			p.ToolChoice = sdk.ToolChoiceUnionParam{OfAuto: &sdk.ToolChoiceAutoParam{}}
		case "required":
			p.ToolChoice = sdk.ToolChoiceUnionParam{OfAny: &sdk.ToolChoiceAnyParam{}}
		case "none":
			p.ToolChoice = sdk.ToolChoiceUnionParam{OfNone: &sdk.ToolChoiceNoneParam{}}
		default:
			return p, nil, fmt.Errorf("anthropic: unknown tool choice %q (want \"\", \"required\" or \"none\")", opts.ToolChoice)
		}
	}

	// Extended thinking for ReasoningEffort, except with tools: the API
	// then wants each turn's thinking blocks sent back before its
	// tool_use blocks, and providers.Message does not carry them.
	effort := cmp.Or(opts.ReasoningEffort, m.opts.ReasoningEffort)
	budget, known := thinkingBudget[effort]
	if effort != "" && !known {
		return p, nil, fmt.Errorf("anthropic: unknown reasoning effort %q (want none, minimal, low, medium, high or xhigh)", effort)
	}
	if budget > 0 && len(opts.Tools) == 0 && !toolCalls {
		p.Thinking = sdk.ThinkingConfigParamOfEnabled(int64(budget))
		p.MaxTokens += int64(budget) // budget_tokens must be below max_tokens
		// Thinking is incompatible with a temperature other than 1.
	} else if t := cmp.Or(opts.Temperature, m.opts.Temperature); t != nil {
		p.Temperature = sdk.Float(*t)
	}

	if opts.ResponseSchema != nil && opts.ResponseSchema.Schema != nil && !m.noSchema.Load() {
		p.OutputConfig.Format = sdk.JSONOutputFormatParam{Schema: closeObjects(opts.ResponseSchema.Schema).(map[string]any)}
	}

	var ro []option.RequestOption
	for k, v := range m.opts.ExtraBody {
		if _, ok := opts.ExtraBody[k]; !ok {
			ro = append(ro, option.WithJSONSet(sjsonKey(k), v))
		}
	}
	for k, v := range opts.ExtraBody {
		ro = append(ro, option.WithJSONSet(sjsonKey(k), v))
	}
	return p, ro, nil
}

// hasText reports whether s is worth a text block: the API refuses empty
// and whitespace-only ones.
func hasText(s string) bool { return strings.TrimSpace(s) != "" }

// mergeBlocks appends blocks to a turn's blocks, keeping tool_result blocks
// before any other content of a user turn, as the API requires.
func mergeBlocks(dst, blocks []sdk.ContentBlockParamUnion) []sdk.ContentBlockParamUnion {
	for _, b := range blocks {
		if b.OfToolResult == nil {
			dst = append(dst, b)
			continue
		}
		i := 0
		for i < len(dst) && dst[i].OfToolResult != nil {
			i++
		}
		dst = append(dst[:i], append([]sdk.ContentBlockParamUnion{b}, dst[i:]...)...)
	}
	return dst
}

// imageBlock is an image as a base64 image block.
func imageBlock(img providers.Image) (*sdk.ImageBlockParam, error) {
	mt := strings.ToLower(strings.TrimSpace(img.MIMEType))
	switch sdk.Base64ImageSourceMediaType(mt) {
	case sdk.Base64ImageSourceMediaTypeImageJPEG, sdk.Base64ImageSourceMediaTypeImagePNG,
		sdk.Base64ImageSourceMediaTypeImageGIF, sdk.Base64ImageSourceMediaTypeImageWebP:
	default:
		return nil, fmt.Errorf("type %q is not one Anthropic takes (image/jpeg, image/png, image/gif, image/webp)", img.MIMEType)
	}
	if len(img.Data) == 0 {
		return nil, errors.New("image has no data")
	}
	return &sdk.ImageBlockParam{Source: sdk.ImageBlockParamSourceUnion{OfBase64: &sdk.Base64ImageSourceParam{
		Data:      base64.StdEncoding.EncodeToString(img.Data),
		MediaType: sdk.Base64ImageSourceMediaType(mt),
	}}}, nil
}

// toolInput is a tool call's arguments as the JSON object the API wants
// in a tool_use block; anything else (empty, malformed, not an object)
// becomes {} so that the conversation can still be sent.
func toolInput(args json.RawMessage) any {
	var obj map[string]any
	if err := json.Unmarshal(args, &obj); err != nil || obj == nil {
		return map[string]any{}
	}
	return json.RawMessage(args)
}

// toolParam converts a tool definition; its Parameters schema becomes
// input_schema (type object, properties, required, other keywords kept).
func toolParam(t providers.ToolDefinition) *sdk.ToolParam {
	tp := &sdk.ToolParam{Name: t.Name}
	if t.Description != "" {
		tp.Description = sdk.String(t.Description)
	}
	for k, v := range t.Parameters {
		switch k {
		case "type":
		case "properties":
			tp.InputSchema.Properties = v
		case "required":
			switch r := v.(type) {
			case []string:
				tp.InputSchema.Required = r
			case []any:
				for _, x := range r {
					if s, ok := x.(string); ok {
						tp.InputSchema.Required = append(tp.InputSchema.Required, s)
					}
				}
			}
		default:
			if tp.InputSchema.ExtraFields == nil {
				tp.InputSchema.ExtraFields = map[string]any{}
			}
			tp.InputSchema.ExtraFields[k] = v
		}
	}
	if tp.InputSchema.Properties == nil {
		tp.InputSchema.Properties = map[string]any{}
	}
	return tp
}

// closeObjects returns a copy of a JSON schema in which every object
// schema without additionalProperties has it set to false, as structured
// outputs require.
func closeObjects(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x)+1)
		for k, e := range x {
			out[k] = closeObjects(e)
		}
		if out["type"] == "object" {
			if _, ok := out["additionalProperties"]; !ok {
				out["additionalProperties"] = false
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = closeObjects(e)
		}
		return out
	}
	return v
}

// schemaRefused reports whether err is the API refusing output_config
// (structured outputs) for the model: a 400 naming the field.
func schemaRefused(p sdk.MessageNewParams, err error) bool {
	var sdkErr *sdk.Error
	return p.OutputConfig.Format.Schema != nil && errors.As(err, &sdkErr) &&
		sdkErr.StatusCode == http.StatusBadRequest && strings.Contains(sdkErr.RawJSON(), "output_config")
}

// sjsonKey escapes the path characters of sjson so that an ExtraBody key
// names a top-level field literally.
func sjsonKey(k string) string {
	r := strings.NewReplacer(`\`, `\\`, ".", `\.`, "*", `\*`, "?", `\?`, "|", `\|`, "#", `\#`, "@", `\@`, ":", `\:`)
	return r.Replace(k)
}

// Generate implements providers.Model.
func (m *Model) Generate(ctx context.Context, msgs []providers.Message, opts providers.GenerateOptions) (*providers.Message, error) {
	const op = "messages"
	p, ro, err := m.request(msgs, opts)
	if err != nil {
		return nil, err
	}
	ctx, rep := retry.WithReport(ctx)
	// An explicit timeout keeps the SDK from refusing large max_tokens
	// without streaming. It must not be the per-attempt timeout: the SDK
	// puts it on the whole call, retries included, so a timed-out attempt
	// would never be retried. providers/retry bounds each attempt, ctx the
	// whole call.
	ro = append(ro, option.WithRequestTimeout(sdkCallTimeout))
	resp, err := m.client.Messages.New(ctx, p, ro...)
	if err != nil && schemaRefused(p, err) {
		m.noSchema.Store(true)
		p.OutputConfig.Format = sdk.JSONOutputFormatParam{}
		resp, err = m.client.Messages.New(ctx, p, ro...)
	}
	if err != nil {
		return nil, m.wrap(ctx, op, rep, err)
	}
	out := &providers.Message{Role: providers.RoleAssistant}
	var b strings.Builder
	for _, c := range resp.Content {
		switch c.Type {
		case "text":
			b.WriteString(c.Text)
		case "tool_use":
			if c.ID == "" || c.Name == "" {
				return nil, m.malformed(op, rep, "tool_use block without id or name")
			}
			args := c.Input
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			out.ToolCalls = append(out.ToolCalls, providers.ToolCall{ID: c.ID, Name: c.Name, Arguments: args})
		}
	}
	if resp.StopReason == "" {
		return nil, m.malformed(op, rep, "message has no stop_reason")
	}
	if resp.StopReason == sdk.StopReasonRefusal && b.Len() == 0 && len(out.ToolCalls) == 0 {
		r := rep()
		return nil, &providers.Error{Provider: "anthropic", Op: op, StatusCode: r.LastStatus, Attempts: r.Attempts,
			Message: "the model refused to answer (stop_reason refusal)"}
	}
	out.Content = b.String()
	out.Usage = &providers.Usage{
		InputTokens:  int(resp.Usage.InputTokens + resp.Usage.CacheCreationInputTokens + resp.Usage.CacheReadInputTokens),
		OutputTokens: int(resp.Usage.OutputTokens),
	}
	return out, nil
}

// GenerateStream implements providers.StreamingModel with the Messages
// streaming events. Text deltas are yielded as they come; tool_use blocks
// are accumulated from their input_json_delta events and given, complete,
// with the usage (input tokens from message_start, output tokens from the
// last message_delta) in the last delta. A failure after some deltas were
// yielded is yielded as an error and not retried.
func (m *Model) GenerateStream(ctx context.Context, msgs []providers.Message, opts providers.GenerateOptions) iter.Seq2[providers.Delta, error] {
	return func(yield func(providers.Delta, error) bool) {
		const op = "stream messages"
		p, ro, err := m.request(msgs, opts)
		if err != nil {
			yield(providers.Delta{}, err)
			return
		}
		ctx, rep := retry.WithReport(ctx)
		stream := m.client.Messages.NewStreaming(ctx, p, ro...)
		more := stream.Next()
		if !more && schemaRefused(p, stream.Err()) {
			stream.Close()
			m.noSchema.Store(true)
			p.OutputConfig.Format = sdk.JSONOutputFormatParam{}
			stream = m.client.Messages.NewStreaming(ctx, p, ro...)
			more = stream.Next()
		}
		defer stream.Close()
		type block struct {
			typ, id, name string
			input         strings.Builder
		}
		var blocks []*block
		usage := providers.Usage{}
		started, finished, wrote := false, false, false
		var stopReason sdk.StopReason
		for ; more; more = stream.Next() {
			if ctx.Err() != nil {
				yield(providers.Delta{}, m.wrap(ctx, op, rep, ctx.Err()))
				return
			}
			ev := stream.Current()
			switch ev.Type {
			case "message_start":
				started = true
				u := ev.Message.Usage
				usage.InputTokens = int(u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens)
				usage.OutputTokens = int(u.OutputTokens)
			case "content_block_start":
				if !started || ev.Index != int64(len(blocks)) {
					yield(providers.Delta{}, m.malformed(op, rep, fmt.Sprintf("content_block_start for index %d out of order", ev.Index)))
					return
				}
				cb := ev.ContentBlock
				blocks = append(blocks, &block{typ: cb.Type, id: cb.ID, name: cb.Name})
				if cb.Type == "text" && cb.Text != "" {
					wrote = true
					if !yield(providers.Delta{Content: cb.Text}, nil) {
						return
					}
				}
			case "content_block_delta":
				if ev.Index < 0 || ev.Index >= int64(len(blocks)) {
					yield(providers.Delta{}, m.malformed(op, rep, fmt.Sprintf("content_block_delta for unknown index %d", ev.Index)))
					return
				}
				switch ev.Delta.Type {
				case "text_delta":
					if ev.Delta.Text != "" {
						wrote = true
						if !yield(providers.Delta{Content: ev.Delta.Text}, nil) {
							return
						}
					}
				case "input_json_delta":
					blocks[ev.Index].input.WriteString(ev.Delta.PartialJSON)
				}
			case "message_delta":
				stopReason = ev.Delta.StopReason
				usage.OutputTokens = int(ev.Usage.OutputTokens)
				if ev.Usage.JSON.InputTokens.Valid() {
					usage.InputTokens = int(ev.Usage.InputTokens + ev.Usage.CacheCreationInputTokens + ev.Usage.CacheReadInputTokens)
				}
			case "message_stop":
				finished = true
			}
		}
		if err := stream.Err(); err != nil || ctx.Err() != nil {
			yield(providers.Delta{}, m.wrap(ctx, op, rep, cmp.Or(ctx.Err(), err)))
			return
		}
		if !finished {
			yield(providers.Delta{}, m.malformed(op, rep, "stream ended before message_stop"))
			return
		}
		if stopReason == sdk.StopReasonRefusal && !wrote && len(blocks) == 0 {
			r := rep()
			yield(providers.Delta{}, &providers.Error{Provider: "anthropic", Op: op, StatusCode: r.LastStatus, Attempts: r.Attempts,
				Message: "the model refused to answer (stop_reason refusal)"})
			return
		}
		last := providers.Delta{Usage: &usage}
		for _, b := range blocks {
			if b.typ != "tool_use" {
				continue
			}
			args := json.RawMessage(b.input.String())
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			if !json.Valid(args) {
				yield(providers.Delta{}, m.malformed(op, rep, "tool_use input for "+b.name+" is not valid JSON"))
				return
			}
			last.ToolCalls = append(last.ToolCalls, providers.ToolCall{ID: b.id, Name: b.name, Arguments: args})
		}
		yield(last, nil)
	}
}

// APIError is an error the Messages API answered with: its HTTP status and
// its error type and message. It is the Err of the *providers.Error the
// Model returns, for errors.As.
type APIError struct {
	StatusCode int
	// Type is Anthropic's error type, e.g. "authentication_error",
	// "invalid_request_error", "rate_limit_error", "overloaded_error",
	// "api_error".
	Type      string
	Message   string
	RequestID string
}

func (e *APIError) Error() string {
	s := e.Type + ": " + e.Message
	if e.RequestID != "" {
		s += " (request " + e.RequestID + ")"
	}
	return s
}

// statusOfType is the status Anthropic uses for an error type, for errors
// that arrive inside a stream (whose HTTP status was 200).
var statusOfType = map[string]int{
	"invalid_request_error": 400, "authentication_error": 401, "billing_error": 402,
	"permission_error": 403, "not_found_error": 404, "request_too_large": 413,
	"rate_limit_error": 429, "api_error": 500, "timeout_error": 504, "overloaded_error": 529,
}

// wrap turns an error from the SDK into a *providers.Error, or into the
// context's error when the caller gave up.
func (m *Model) wrap(ctx context.Context, op string, rep func() retry.Report, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("anthropic: %s: %w", op, ctx.Err())
	}
	r := rep()
	e := &providers.Error{Provider: "anthropic", Op: op, Attempts: r.Attempts}
	var sdkErr *sdk.Error
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &sdkErr):
		ae := &APIError{StatusCode: sdkErr.StatusCode, RequestID: sdkErr.RequestID}
		var body struct {
			Error struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"error"`
			RequestID string `json:"request_id"`
		}
		raw := sdkErr.RawJSON()
		if json.Unmarshal([]byte(raw), &body) == nil && body.Error.Type != "" {
			ae.Type, ae.Message = body.Error.Type, body.Error.Message
			ae.RequestID = cmp.Or(ae.RequestID, body.RequestID)
		} else {
			ae.Type, ae.Message = "unknown_error", truncate(strings.TrimSpace(raw), 300)
		}
		if ae.StatusCode == http.StatusOK || ae.StatusCode == 0 {
			ae.StatusCode = cmp.Or(statusOfType[ae.Type], 500) // an error event in a stream
		}
		ae.Message = m.redact(truncate(ae.Message, 2000))
		e.StatusCode = ae.StatusCode
		e.Message = ae.Error()
		e.Retryable = retry.RetryableStatus(ae.StatusCode)
		e.Err = ae
	case errors.As(err, &syntaxErr), errors.Is(err, io.ErrUnexpectedEOF), r.LastStatus == http.StatusOK:
		e.StatusCode = r.LastStatus
		e.Message = "malformed response: " + m.redact(truncate(err.Error(), 300))
		e.Retryable = true
		e.Err = err
	default:
		e.Message = m.redact(err.Error())
		e.Retryable = true // transport error or timeout
		e.Err = err
	}
	return e
}

func (m *Model) redact(s string) string {
	s = providers.Redact(s, m.opts.APIKey)
	for _, v := range m.opts.Headers {
		s = providers.Redact(s, v)
	}
	return s
}

func (m *Model) malformed(op string, rep func() retry.Report, msg string) error {
	r := rep()
	return &providers.Error{Provider: "anthropic", Op: op, StatusCode: r.LastStatus, Attempts: r.Attempts,
		Message: "malformed response: " + msg, Retryable: true}
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
