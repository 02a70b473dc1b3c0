package providers

import (
	"errors"
	"testing"
)

func TestErrorText(t *testing.T) {
	inner := errors.New("inner")
	tests := []struct {
		e    *Error
		want string
	}{
		{&Error{Provider: "openai", Op: "chat completion", StatusCode: 429, Attempts: 4, Retryable: true, Message: "Rate limit reached", Err: inner},
			"openai: chat completion: 429 Too Many Requests after 4 attempts (retryable): Rate limit reached"},
		{&Error{Provider: "openai", Op: "chat completion", StatusCode: 401, Attempts: 1, Message: "Incorrect API key provided: [REDACTED]"},
			"openai: chat completion: 401 Unauthorized (not retryable; check the API key): Incorrect API key provided: [REDACTED]"},
		{&Error{Provider: "gemini", Op: "generate content", Retryable: true, Err: inner},
			"gemini: generate content: failed (retryable): inner"},
		{&Error{Provider: "gemini", Op: "generate content", StatusCode: 404, Message: "models/x is not found"},
			"gemini: generate content: 404 Not Found (not retryable; check the model name and base URL): models/x is not found"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("got  %q\nwant %q", got, tt.want)
		}
	}
	if !errors.Is(tests[0].e, inner) {
		t.Error("Unwrap does not reach the inner error")
	}
}

func TestRedact(t *testing.T) {
	if got := Redact("key sk-abc123 and sk-abc123, tok", "sk-abc123", "", "ab"); got != "key [REDACTED] and [REDACTED], tok" {
		t.Fatalf("Redact = %q", got)
	}
}
