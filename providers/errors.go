package providers

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// ErrNoAPIKey is matched (with errors.Is) by the error of a provider's
// constructor given no API key for a service that requires one: without
// it, every call would fail, slowly (after retries) and obscurely.
var ErrNoAPIKey = errors.New("no API key given")

// Error is a failed model call as the providers report it: what failed,
// the server's answer, and whether sending the same call again later may
// succeed. Providers have already retried what was worth retrying by the
// time they return one. It never holds API keys or request headers.
type Error struct {
	// Provider names the provider, e.g. "openai" or "gemini".
	Provider string
	// Op is the operation, e.g. "chat completion".
	Op string
	// StatusCode is the HTTP status of the last response, 0 if none came
	// (a transport error or a timeout) or the body was unusable.
	StatusCode int
	// Message is the server's error message, or a description of what was
	// wrong with its response.
	Message string
	// Retryable reports whether the same call may succeed later: rate
	// limits, server errors, timeouts, transport errors and malformed
	// responses. Bad keys (401), forbidden (403) and bad requests (400) are
	// not retryable.
	Retryable bool
	// Attempts is the number of attempts made, retries included.
	Attempts int
	// Err is the underlying error, if any.
	Err error
}

// Error implements error, e.g.
// "openai: chat completion: 429 Too Many Requests after 4 attempts (retryable): Rate limit reached".
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s: ", e.Provider, e.Op)
	if e.StatusCode != 0 {
		fmt.Fprintf(&b, "%d %s", e.StatusCode, http.StatusText(e.StatusCode))
	} else {
		b.WriteString("failed")
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " after %d attempts", e.Attempts)
	}
	b.WriteString(" (")
	if e.Retryable {
		b.WriteString("retryable")
	} else {
		b.WriteString("not retryable")
	}
	switch e.StatusCode {
	case http.StatusUnauthorized:
		b.WriteString("; check the API key")
	case http.StatusForbidden:
		b.WriteString("; check the API key's permissions")
	case http.StatusNotFound:
		b.WriteString("; check the model name and base URL")
	}
	b.WriteString(")")
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	} else if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Redact returns s with every occurrence of each non-empty secret replaced
// by "[REDACTED]". Providers pass server messages through it, since some
// servers echo the key they were sent.
func Redact(s string, secrets ...string) string {
	for _, k := range secrets {
		if len(k) >= 4 {
			s = strings.ReplaceAll(s, k, "[REDACTED]")
		}
	}
	return s
}
