// Package providers defines the Model interface through which an agent asks
// a language model for its next action, and the messages it exchanges.
//
// Implementations live in subpackages: openai (any OpenAI-compatible
// server), gemini, and replay (recorded sessions, for demos and tests).
package providers

import (
	"context"
	"encoding/json"
	"iter"
)

// Role says who wrote a message.
type Role string

// The roles of a conversation.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	// RoleTool carries the result of one tool call (ToolCallID) back to a
	// model that called tools natively.
	RoleTool Role = "tool"
)

// Message is one turn of a conversation.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content"`
	// Images go with the text to a model that can see them (the task's
	// images, images an action produced).
	Images []Image `json:"images,omitempty"`
	// ToolCalls are the native tool calls of an assistant message.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID is the call a RoleTool message answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Usage is set on messages returned by a model.
	Usage *Usage `json:"usage,omitempty"`
}

// Image is an image in a message. Data is the encoded file (PNG, JPEG,
// GIF or WebP); in JSON it is base64.
type Image struct {
	MIMEType string `json:"mime_type"`
	Data     []byte `json:"data"`
}

// ToolCall is one native tool call a model made.
type ToolCall struct {
	// ID pairs the call with its RoleTool answer.
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments is the JSON object of arguments, as the model wrote it.
	Arguments json.RawMessage `json:"arguments"`
	// Signature is an opaque token some providers attach to a call and
	// require back with it in later turns (Gemini's thought signature);
	// keep it with the call in memory and send it back unchanged.
	Signature []byte `json:"signature,omitempty"`
}

// ToolDefinition offers a tool to a model for native tool calls.
type ToolDefinition struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Parameters is the JSON schema of the arguments (an object schema).
	Parameters map[string]any `json:"parameters"`
}

// ResponseSchema asks for an answer that is JSON matching Schema
// (structured outputs), where the provider supports it.
type ResponseSchema struct {
	Name   string         `json:"name"`
	Schema map[string]any `json:"schema"`
}

// Usage counts the tokens of one model call.
type Usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// Add returns the sum of two usages.
func (u Usage) Add(v Usage) Usage {
	return Usage{InputTokens: u.InputTokens + v.InputTokens, OutputTokens: u.OutputTokens + v.OutputTokens}
}

// GenerateOptions tune one model call. Zero values mean the provider's default.
type GenerateOptions struct {
	StopSequences []string
	MaxTokens     int
	Temperature   *float64
	// Tools are offered for native tool calls; the answer may then carry
	// Message.ToolCalls. ToolChoice is "" or "auto" (the model decides),
	// "required", "none", or the name of the one tool to call.
	Tools      []ToolDefinition
	ToolChoice string
	// ResponseSchema asks for structured output; providers that cannot
	// enforce it ignore it (the caller still parses the text).
	ResponseSchema *ResponseSchema
	// ReasoningEffort is passed to reasoning models ("low", "medium",
	// "high"); others ignore it.
	ReasoningEffort string
	// ExtraBody is merged into the provider's request body, for
	// provider-specific fields.
	ExtraBody map[string]any
}

// Model generates the next message of a conversation.
type Model interface {
	Generate(ctx context.Context, msgs []Message, opts GenerateOptions) (*Message, error)
	// ModelID names the model, e.g. "gpt-4o-mini"; used in traces and logs.
	ModelID() string
}

// Delta is a piece of a streamed response. The last delta carries Usage,
// and the complete ToolCalls of the response, if any.
type Delta struct {
	Content   string
	ToolCalls []ToolCall
	Usage     *Usage
}

// StreamingModel is a Model that can stream its response.
type StreamingModel interface {
	Model
	GenerateStream(ctx context.Context, msgs []Message, opts GenerateOptions) iter.Seq2[Delta, error]
}
