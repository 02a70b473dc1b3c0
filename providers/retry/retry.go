// Package retry makes the HTTP calls of model providers resilient: an
// http.RoundTripper that retries 408, 429 and 5xx responses and transport
// errors with exponential backoff and jitter, honours Retry-After, bounds
// each attempt with a timeout, and paces requests with a requests-per-minute
// limiter.
//
// Retrying at the transport, below the vendor SDKs, is deliberate: only
// there are the status code and the Retry-After header visible (go-openai's
// errors do not carry headers), and one implementation serves every
// provider. The SDKs' own retries must be off (go-openai has none; genai
// retries only when HTTPOptions.RetryOptions is set).
//
// It is not a general retry library: it knows HTTP and nothing else, and it
// never retries a request whose body cannot be replayed.
package retry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Policy says how often and how long to retry. The zero value is a
// sensible default.
type Policy struct {
	// MaxAttempts is the number of attempts including the first; 0 means
	// 4, 1 means no retries.
	MaxAttempts int
	// BaseDelay is the backoff before the first retry, doubled for each
	// further one; 0 means 1s.
	BaseDelay time.Duration
	// MaxDelay caps the backoff; 0 means 30s.
	MaxDelay time.Duration
	// MaxRetryAfter is the longest Retry-After the transport will wait; a
	// server asking for longer gets its response returned at once, since
	// an agent step should not silently stall for minutes. 0 means 60s.
	MaxRetryAfter time.Duration
	// AttemptTimeout bounds one attempt, from sending the request to
	// closing the response body; an attempt that runs out is retried. 0
	// means no bound beyond the request's context.
	AttemptTimeout time.Duration
}

// WithRetries returns p with MaxAttempts set from a retry count as the
// providers' MaxRetries options give it: negative means no retry, 0 the
// default of 4 attempts, n > 0 n retries after the first attempt.
func (p Policy) WithRetries(n int) Policy {
	switch {
	case n < 0:
		p.MaxAttempts = 1
	case n == 0:
		p.MaxAttempts = 4
	default:
		p.MaxAttempts = n + 1
	}
	return p
}

func (p Policy) attempts() int {
	if p.MaxAttempts <= 0 {
		return 4
	}
	return p.MaxAttempts
}

func (p Policy) maxRetryAfter() time.Duration {
	if p.MaxRetryAfter <= 0 {
		return 60 * time.Second
	}
	return p.MaxRetryAfter
}

// Backoff returns the wait before retry number n (1 for the first retry):
// BaseDelay·2^(n-1), capped at MaxDelay, of which the upper half is random
// ("equal jitter"), so that clients that failed together do not retry
// together.
func (p Policy) Backoff(n int) time.Duration {
	base, maxd := p.BaseDelay, p.MaxDelay
	if base <= 0 {
		base = time.Second
	}
	if maxd <= 0 {
		maxd = 30 * time.Second
	}
	d := base
	for i := 1; i < n && d < maxd; i++ {
		d *= 2
	}
	d = min(d, maxd)
	half := d / 2
	return half + rand.N(d-half+1)
}

// RetryableStatus reports whether a response with this status may succeed
// if sent again: 408, 429 and 5xx other than 501 and 505.
func RetryableStatus(code int) bool {
	switch {
	case code == http.StatusRequestTimeout, code == http.StatusTooManyRequests:
		return true
	case code == http.StatusNotImplemented, code == http.StatusHTTPVersionNotSupported:
		return false
	}
	return code >= 500 && code <= 599
}

// ParseRetryAfter parses a Retry-After header value, either delay-seconds
// or an HTTP-date (relative to now). It reports false for an empty or
// malformed value; a date in the past is a zero wait.
func ParseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s < 0 {
			return 0, false
		}
		return time.Duration(min(s, 1<<32)) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(t.Sub(now), 0), true
}

// Limiter returns a limiter allowing rpm requests per minute, with a burst
// of one so that requests are spread evenly; nil (no limit) when rpm <= 0.
func Limiter(rpm int) *rate.Limiter {
	if rpm <= 0 {
		return nil
	}
	return rate.NewLimiter(rate.Limit(float64(rpm)/60), 1)
}

// Report describes what the transport did for one call. Use WithReport to
// learn it.
type Report struct {
	// Attempts is the number of attempts made.
	Attempts int
	// LastStatus is the status of the last response, 0 if none came.
	LastStatus int
	// RetryAfter is the wait the server last asked for, if any.
	RetryAfter time.Duration
	// GaveUp is set when a retryable failure was returned because the
	// attempts ran out or the server asked to wait longer than allowed.
	GaveUp bool
}

// reportBox is the shared, locked Report of one call.
type reportBox struct {
	mu sync.Mutex
	r  Report
}

type reportKey struct{}

// WithReport returns a context for the requests of one call, and a
// function returning what the Transport did with them so far.
func WithReport(ctx context.Context) (context.Context, func() Report) {
	b := &reportBox{}
	return context.WithValue(ctx, reportKey{}, b), func() Report {
		b.mu.Lock()
		defer b.mu.Unlock()
		return b.r
	}
}

func reportFrom(ctx context.Context) *reportBox {
	if b, ok := ctx.Value(reportKey{}).(*reportBox); ok {
		return b
	}
	return &reportBox{}
}

// Transport is an http.RoundTripper that retries according to Policy and
// waits for Limiter before every attempt.
type Transport struct {
	// Base sends the requests; nil means http.DefaultTransport.
	Base http.RoundTripper
	// Policy says when to retry.
	Policy Policy
	// Limiter, when not nil, paces attempts (see Limiter).
	Limiter *rate.Limiter
	// RetryAfter, when set, reads the wait a retryable response asks for,
	// for servers that say it in the body rather than in a Retry-After
	// header; it may consume the body only if it restores it. It is
	// consulted only when the header is absent.
	RetryAfter func(resp *http.Response) (time.Duration, bool)
	// Sleep waits d or until ctx is done; nil means a timer. Tests replace
	// it to avoid real waits.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now returns the current time for Retry-After dates; nil means
	// time.Now.
	Now func() time.Time
}

// RoundTrip implements http.RoundTripper. It returns the last response
// (whatever its status) or the last transport error; the caller decodes
// the response as usual.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	rep := reportFrom(ctx)
	attempts := t.Policy.attempts()
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		attempts = 1 // the body cannot be sent twice
	}
	for n := 1; ; n++ {
		if t.Limiter != nil {
			if err := t.Limiter.Wait(ctx); err != nil {
				return nil, fmt.Errorf("rate limit wait: %w", err)
			}
		}
		resp, err := t.attempt(req, n)
		rep.mu.Lock()
		rep.r.Attempts = n
		wait, retryable := time.Duration(0), false
		if err != nil {
			rep.r.LastStatus = 0
			retryable = ctx.Err() == nil
		} else {
			rep.r.LastStatus = resp.StatusCode
			retryable = RetryableStatus(resp.StatusCode)
			if retryable {
				ra, ok := ParseRetryAfter(resp.Header.Get("Retry-After"), t.now())
				if !ok && t.RetryAfter != nil {
					ra, ok = t.RetryAfter(resp)
				}
				if ok {
					rep.r.RetryAfter = ra
					wait = ra
				}
			}
		}
		giveUp := retryable && (n >= attempts || wait > t.Policy.maxRetryAfter())
		rep.r.GaveUp = giveUp
		rep.mu.Unlock()
		if !retryable || giveUp {
			return resp, err
		}
		if wait == 0 {
			wait = t.Policy.Backoff(n)
		}
		if resp != nil {
			// Drain a little so the connection can be reused.
			io.CopyN(io.Discard, resp.Body, 64<<10)
			resp.Body.Close()
		}
		if err := t.sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("waiting to retry after attempt %d: %w", n, err)
		}
	}
}

// attempt sends one copy of req, bounded by AttemptTimeout.
func (t *Transport) attempt(req *http.Request, n int) (*http.Response, error) {
	ctx := req.Context()
	cancel := context.CancelFunc(func() {})
	if t.Policy.AttemptTimeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, t.Policy.AttemptTimeout)
	}
	r := req.Clone(ctx)
	if n > 1 && req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			cancel()
			return nil, fmt.Errorf("rewind request body: %w", err)
		}
		r.Body = body
	}
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(r)
	if err != nil {
		// Read whether the attempt's own deadline expired before cancel
		// marks its context as done whatever the cause.
		timedOut := errors.Is(ctx.Err(), context.DeadlineExceeded) && req.Context().Err() == nil
		cancel()
		if timedOut {
			err = fmt.Errorf("attempt %d: %w after %v: %w", n, ErrTimeout, t.Policy.AttemptTimeout, err)
		}
		return nil, err
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

func (t *Transport) now() time.Time {
	if t.Now != nil {
		return t.Now()
	}
	return time.Now()
}

func (t *Transport) sleep(ctx context.Context, d time.Duration) error {
	if t.Sleep != nil {
		return t.Sleep(ctx, d)
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// cancelBody releases an attempt's timeout when its body is closed.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// ErrTimeout is matched by errors of attempts that ran out of
// Policy.AttemptTimeout. (Errors of the caller's own context are the
// context's errors.)
var ErrTimeout = errors.New("attempt timed out")

// Client returns a copy of base (a new client if nil) whose transport is
// t, with t.Base set to base's transport when t.Base is nil.
func Client(base *http.Client, t *Transport) *http.Client {
	c := &http.Client{}
	if base != nil {
		*c = *base
	}
	if t.Base == nil {
		t.Base = c.Transport
	}
	c.Transport = t
	return c
}
