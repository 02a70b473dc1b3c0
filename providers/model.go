// Package providers defines the Model interface through which an agent asks
// a language model for its next action, and the messages it exchanges.
//
// Implementations live in subpackages: openai (any OpenAI-compatible
// server), gemini, and replay (recorded sessions, for demos and tests).
package providers

import (
	"context"
	"iter"
)

// Role says who wrote a message.
type Role string

// The roles of a conversation.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Message is one turn of a conversation.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content"`
	// Usage is set on messages returned by a model.
	Usage *Usage `json:"usage,omitempty"`
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
}

// Model generates the next message of a conversation.
type Model interface {
	Generate(ctx context.Context, msgs []Message, opts GenerateOptions) (*Message, error)
	// ModelID names the model, e.g. "gpt-4o-mini"; used in traces and logs.
	ModelID() string
}

// Delta is a piece of a streamed response. The last delta carries Usage.
type Delta struct {
	Content string
	Usage   *Usage
}

// StreamingModel is a Model that can stream its response.
type StreamingModel interface {
	Model
	GenerateStream(ctx context.Context, msgs []Message, opts GenerateOptions) iter.Seq2[Delta, error]
}
