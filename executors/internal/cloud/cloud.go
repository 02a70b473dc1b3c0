// Package cloud is what the executors whose sandboxes run in someone
// else's cloud (executors/e2b, executors/modal) share and the local ones
// (wasm, docker) do not: a sandbox that ends when a remote service says so
// (Life), the set of sandboxes an executor must delete on Close
// (Sandboxes), and the checks and helpers of their options. It is not a
// client of any service; each executor keeps its own.
package cloud

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"time"
)

// FirstOf returns the first of s that is not "", or "".
func FirstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// CapString cuts s to n bytes, marking the cut with "...", so that a
// message from a service (which may be anything) stays readable in an
// error.
func CapString(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// CheckURL refuses a URL that would send credentials (an API key, a token)
// in clear text to another machine: it must be https, or plain http to
// loopback (for tests). name prefixes the error ("e2b") and what names the
// URL ("E2B API URL").
func CheckURL(name, what, s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%s: %s %q is not a URL", name, what, s)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if ip := net.ParseIP(u.Hostname()); u.Hostname() == "localhost" || ip != nil && ip.IsLoopback() {
			return nil
		}
	}
	return fmt.Errorf("%s: %s %q must be https (plain http only to loopback, for tests)", name, what, s)
}

// errClosed is the error of a start that Close cut off.
var errClosed = errors.New("executor closed")

// MaxLifetime is the longest sandbox lifetime E2B and Modal allow.
const MaxLifetime = 24 * time.Hour

// Lifetime checks a sandbox's lifetime d (0 means def): between 1 s and
// MaxLifetime. name prefixes the error ("e2b") and service names the
// service in it ("E2B").
func Lifetime(name, service string, d, def time.Duration) (time.Duration, error) {
	if d == 0 {
		d = def
	}
	if d < time.Second || d > MaxLifetime {
		return 0, fmt.Errorf("%s: sandbox timeout %s: want between 1s and 24h (%s's longest lifetime)", name, d, service)
	}
	return d, nil
}
