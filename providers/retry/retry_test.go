package retry

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"120", 120 * time.Second, true},
		{" 0 ", 0, true},
		{"Sun, 01 Mar 2026 12:00:30 GMT", 30 * time.Second, true},
		{"Sun, 01 Mar 2026 11:00:00 GMT", 0, true}, // in the past
		{"", 0, false},
		{"-5", 0, false},
		{"soon", 0, false},
		{"1.5", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseRetryAfter(tt.in, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestBackoffGrowsWithinBounds(t *testing.T) {
	p := Policy{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}
	for n, ceil := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 400 * time.Millisecond, 5: time.Second, 30: time.Second} {
		for range 100 {
			d := p.Backoff(n)
			if d < ceil/2 || d > ceil {
				t.Fatalf("Backoff(%d) = %v, want in [%v, %v]", n, d, ceil/2, ceil)
			}
		}
	}
	seen := map[time.Duration]bool{}
	for range 50 {
		seen[p.Backoff(3)] = true
	}
	if len(seen) < 10 {
		t.Fatalf("Backoff has no jitter: %d distinct values in 50", len(seen))
	}
}

func TestRetryableStatus(t *testing.T) {
	for code, want := range map[int]bool{200: false, 400: false, 401: false, 403: false, 404: false, 408: true, 429: true, 500: true, 501: false, 502: true, 503: true, 504: true, 529: true} {
		if RetryableStatus(code) != want {
			t.Errorf("RetryableStatus(%d) = %v", code, !want)
		}
	}
}

// statusServer answers with the given statuses in turn, then 200.
func statusServer(t *testing.T, header http.Header, statuses ...int) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		i := int(n.Add(1)) - 1
		if i < len(statuses) {
			for k, v := range header {
				w.Header()[k] = v
			}
			w.WriteHeader(statuses[i])
			return
		}
		io.WriteString(w, "ok:"+string(b))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestTransportRetriesAndReports(t *testing.T) {
	srv, n := statusServer(t, http.Header{"Retry-After": {"7"}}, 429, 503)
	var waits []time.Duration
	tr := &Transport{Policy: Policy{BaseDelay: time.Millisecond}, Sleep: func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	}}
	ctx, rep := WithReport(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL, strings.NewReader("payload"))
	resp, err := Client(nil, tr).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "ok:payload" || n.Load() != 3 {
		t.Fatalf("body %q after %d requests", body, n.Load())
	}
	if len(waits) != 2 || waits[0] != 7*time.Second || waits[1] != 7*time.Second {
		t.Fatalf("waits = %v, want Retry-After's 7s twice", waits)
	}
	r := rep()
	if r.Attempts != 3 || r.LastStatus != 200 || r.GaveUp {
		t.Fatalf("report = %+v", r)
	}
}

func TestTransportDoesNotRetryClientErrors(t *testing.T) {
	for _, code := range []int{400, 401, 403, 404} {
		srv, n := statusServer(t, nil, code)
		tr := &Transport{Sleep: func(context.Context, time.Duration) error { return nil }}
		resp, err := Client(nil, tr).Post(srv.URL, "text/plain", strings.NewReader("x"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != code || n.Load() != 1 {
			t.Errorf("status %d: got %d after %d requests", code, resp.StatusCode, n.Load())
		}
	}
}

func TestTransportGivesUpAfterMaxAttempts(t *testing.T) {
	srv, n := statusServer(t, nil, 500, 500, 500, 500, 500)
	tr := &Transport{Policy: Policy{MaxAttempts: 3}, Sleep: func(context.Context, time.Duration) error { return nil }}
	ctx, rep := WithReport(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL, nil)
	resp, err := Client(nil, tr).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 500 || n.Load() != 3 || !rep().GaveUp {
		t.Fatalf("status %d after %d requests, report %+v", resp.StatusCode, n.Load(), rep())
	}
}

func TestTransportRetriesTransportErrors(t *testing.T) {
	srv, _ := statusServer(t, nil)
	url := srv.URL
	srv.Close() // connection refused from now on
	tr := &Transport{Policy: Policy{MaxAttempts: 3, AttemptTimeout: time.Minute}, Sleep: func(context.Context, time.Duration) error { return nil }}
	ctx, rep := WithReport(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	_, err := Client(nil, tr).Do(req)
	if err == nil || rep().Attempts != 3 || !rep().GaveUp {
		t.Fatalf("err = %v, report %+v", err, rep())
	}
	// A refused connection is not a timeout.
	if errors.Is(err, ErrTimeout) || strings.Contains(err.Error(), "timed out") || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("err = %v, want the refused connection, not a timeout", err)
	}
}

func TestTransportSleepHonoursContext(t *testing.T) {
	// A wait of an hour: only a sleep that ignores the context reaches
	// the bound, which a slow machine does not.
	srv, n := statusServer(t, http.Header{"Retry-After": {"3600"}}, 503, 503)
	tr := &Transport{Policy: Policy{MaxRetryAfter: 2 * time.Hour}}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL, nil)
	start := time.Now()
	_, err := Client(nil, tr).Do(req)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > time.Minute || n.Load() != 1 {
		t.Fatalf("err = %v after %v, %d requests", err, time.Since(start), n.Load())
	}
}

func TestTransportDoesNotResendUnrewindableBody(t *testing.T) {
	srv, n := statusServer(t, nil, 503)
	tr := &Transport{Sleep: func(context.Context, time.Duration) error { return nil }}
	req, _ := http.NewRequest("POST", srv.URL, io.MultiReader(strings.NewReader("x"))) // no GetBody
	resp, err := Client(nil, tr).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 || n.Load() != 1 {
		t.Fatalf("status %d after %d requests", resp.StatusCode, n.Load())
	}
}

func TestLimiter(t *testing.T) {
	if Limiter(0) != nil {
		t.Fatal("Limiter(0) should be nil")
	}
	l := Limiter(600) // one per 100ms
	start := time.Now()
	for range 3 {
		if err := l.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d < 180*time.Millisecond {
		t.Fatalf("3 requests in %v at 600/min", d)
	}
}
