package e2b

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/star-agent/star-agent/executors/internal/cloud"
	"github.com/star-agent/star-agent/providers/retry"
)

// This file is the client of E2B's REST control plane: create a sandbox,
// kill it, extend its lifetime, read its state. Requests carry X-API-Key;
// errors are JSON {code, message}. Retries (429, 5xx, transport errors,
// Retry-After honoured) happen below it, in a providers/retry Transport.

// APIError is an error response of the control plane or of envd.
type APIError struct {
	// Status is the HTTP status (401, 404, 429, 503, ...).
	Status int
	// Code and Message are the service's JSON error, when it sent one.
	Code    int
	Message string
	// Op says what was being done ("create sandbox").
	Op string
}

func (e *APIError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Status)
	}
	hint := ""
	switch e.Status {
	case http.StatusUnauthorized, http.StatusForbidden:
		hint = " (check E2B_API_KEY: it is missing, wrong or revoked)"
	case http.StatusTooManyRequests:
		hint = " (an E2B quota was reached: too many concurrent sandboxes or creations per second; wait, or close other sandboxes)"
	case http.StatusServiceUnavailable, http.StatusBadGateway, http.StatusGatewayTimeout:
		hint = " (E2B has no capacity or is unavailable right now; try again later)"
	case http.StatusNotFound:
		hint = " (the sandbox does not exist: it expired or was killed)"
		if e.Op == "create sandbox" {
			hint = " (check the template name, --e2b-template)"
		}
	}
	return fmt.Sprintf("%s: E2B answered %d: %s%s", e.Op, e.Status, msg, hint)
}

// NotFound reports whether err is a 404 of the control plane.
func isNotFound(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Status == http.StatusNotFound
}

// api is a control-plane client.
type api struct {
	base   string // https://api.e2b.app
	key    string
	client *http.Client
}

// createRequest is the body of POST /sandboxes.
type createRequest struct {
	TemplateID string            `json:"templateID"`
	Timeout    int               `json:"timeout"`
	Metadata   map[string]string `json:"metadata,omitempty"`
	EnvVars    map[string]string `json:"envVars,omitempty"`
	Secure     bool              `json:"secure"`
}

// sandboxInfo is the answer of POST /sandboxes (201) and GET /sandboxes/{id}.
type sandboxInfo struct {
	SandboxID       string `json:"sandboxID"`
	TemplateID      string `json:"templateID"`
	ClientID        string `json:"clientID,omitempty"`
	EnvdVersion     string `json:"envdVersion"`
	EnvdAccessToken string `json:"envdAccessToken"`
	Domain          string `json:"domain"`
	State           string `json:"state,omitempty"`
	EndAt           string `json:"endAt,omitempty"`
}

// maxAPIBody bounds what is read of a control-plane answer.
const maxAPIBody = 1 << 20

func newAPI(base, key string, client *http.Client) *api {
	return &api{base: strings.TrimRight(base, "/"), key: key, client: client}
}

// do sends one request and decodes a 2xx JSON answer into out (if not nil).
func (a *api) do(ctx context.Context, op, method, path string, body, out any) error {
	var rd io.Reader
	var data []byte
	if body != nil {
		var err error
		if data, err = json.Marshal(body); err != nil {
			return err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, rd)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if data != nil {
		req.Header.Set("Content-Type", "application/json")
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-API-Key", a.key)
	resp, err := a.client.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAPIBody))
	if err != nil {
		return fmt.Errorf("%s: read answer: %w", op, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		ae := &APIError{Status: resp.StatusCode, Op: op}
		var e struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		if json.Unmarshal(raw, &e) == nil && e.Message != "" {
			ae.Code, ae.Message = e.Code, cloud.CapString(e.Message, 500)
		} else {
			ae.Message = cloud.CapString(strings.TrimSpace(string(raw)), 500)
		}
		return ae
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s: a bad answer from E2B: %w", op, err)
	}
	return nil
}

func (a *api) create(ctx context.Context, r createRequest) (*sandboxInfo, error) {
	var info sandboxInfo
	if err := a.do(ctx, "create sandbox", http.MethodPost, "/sandboxes", r, &info); err != nil {
		return nil, err
	}
	// Both name the host the access token is sent to.
	if !hostLabel(info.SandboxID, false) {
		return nil, fmt.Errorf("create sandbox: E2B answered with a bad sandbox id %q", cloud.CapString(info.SandboxID, 80))
	}
	if info.Domain != "" && !hostLabel(info.Domain, true) {
		return nil, fmt.Errorf("create sandbox: E2B answered with a bad domain %q", cloud.CapString(info.Domain, 80))
	}
	return &info, nil
}

func (a *api) kill(ctx context.Context, id string) error {
	return a.do(ctx, "kill sandbox "+id, http.MethodDelete, "/sandboxes/"+url.PathEscape(id), nil, nil)
}

func (a *api) setTimeout(ctx context.Context, id string, d time.Duration) error {
	return a.do(ctx, "extend sandbox "+id, http.MethodPost, "/sandboxes/"+url.PathEscape(id)+"/timeout", map[string]int{"timeout": seconds(d)}, nil)
}

func (a *api) info(ctx context.Context, id string) (*sandboxInfo, error) {
	var info sandboxInfo
	if err := a.do(ctx, "sandbox info "+id, http.MethodGet, "/sandboxes/"+url.PathEscape(id), nil, &info); err != nil {
		return nil, err
	}
	return &info, nil
}

// hostLabel reports whether s is made of letters, digits and hyphens (and
// dots, if dots), as a DNS name is.
func hostLabel(s string, dots bool) bool {
	if s == "" || len(s) > 200 {
		return false
	}
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-':
		case c == '.' && dots:
		default:
			return false
		}
	}
	return true
}

// seconds rounds d up to whole seconds, at least 1.
func seconds(d time.Duration) int {
	return max(1, int((d+time.Second-1)/time.Second))
}

// controlTransport is the retrying transport of control-plane calls.
func controlTransport(base http.RoundTripper, sleep func(context.Context, time.Duration) error) *retry.Transport {
	return &retry.Transport{
		Base: base,
		Policy: retry.Policy{
			MaxAttempts:    4,
			BaseDelay:      500 * time.Millisecond,
			MaxDelay:       5 * time.Second,
			MaxRetryAfter:  30 * time.Second,
			AttemptTimeout: 30 * time.Second,
		},
		Sleep: sleep,
	}
}
