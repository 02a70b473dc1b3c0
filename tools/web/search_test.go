package web

import (
	"context"
	"net/url"
	"strings"
	"testing"
)

func call(t *testing.T, tl interface {
	Call(context.Context, map[string]any) (any, error)
}, args map[string]any) (string, error) {
	t.Helper()
	out, err := tl.Call(context.Background(), args)
	if err != nil {
		return "", err
	}
	s, ok := out.(string)
	if !ok {
		t.Fatalf("result %T, want a string", out)
	}
	return s, nil
}

func TestDuckDuckGo(t *testing.T) {
	n := newTestNet(t)
	search := n.tool("web_search", n.options())
	out, err := call(t, search, map[string]any{"query": "golang generics tutorial"})
	if err != nil {
		t.Fatal(err)
	}
	// The ad is skipped, the redirect links decoded, the javascript:
	// target dropped, markup and entities turned to text.
	want := `## Search Results

[Tutorial: Getting started with generics - The Go Programming Language](https://go.dev/doc/tutorial/generics)
This tutorial introduces the basics of generics in Go. With generics, you can declare and use functions or types that are written to work with any of a set of types provided by calling code.

[Go by Example: Generics](https://gobyexample.com/generics)
Starting with version 1.18, Go has added support for generics, also known as type parameters. As an example of a generic function, SlicesIndex takes a slice of any comparable type and an element of that type.

[Generic programming - Wikipedia \[Go section\]](https://en.wikipedia.org/wiki/Generic_programming#Go)
Generic programming is a style of computer programming in which algorithms are written in terms of data types to-be-specified-later & instantiated when needed.
`
	if out != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}

	opts := n.options()
	opts.MaxResults = 2
	out, err = call(t, n.tool("web_search", opts), map[string]any{"query": "golang generics tutorial"})
	if err != nil || strings.Count(out, "\n[") != 2 {
		t.Errorf("MaxResults 2: %v\n%s", err, out)
	}

	_, err = call(t, search, map[string]any{"query": "zzqxv flurbnok"})
	if err == nil || err.Error() != `no results for "zzqxv flurbnok"; try a shorter or broader query` {
		t.Errorf("no results: %v", err)
	}
	_, err = call(t, search, map[string]any{"query": "bot"})
	if err == nil || !strings.Contains(err.Error(), "DuckDuckGo took the query for automated traffic") {
		t.Errorf("challenge page: %v", err)
	}
	_, err = call(t, search, map[string]any{"query": "  "})
	if err == nil || !strings.Contains(err.Error(), "the query is empty") {
		t.Errorf("empty query: %v", err)
	}
	_, err = call(t, search, map[string]any{"query": 3})
	if err == nil || !strings.Contains(err.Error(), "invalid arguments") {
		t.Errorf("query of the wrong type: %v", err)
	}
}

func TestDDGTarget(t *testing.T) {
	for _, c := range []struct{ href, want string }{
		{"//duckduckgo.com/l/?uddg=https%3A%2F%2Fgo.dev%2F&rut=abc", "https://go.dev/"},
		{"https://duckduckgo.com/l/?uddg=http%3A%2F%2Fexample.com%2Fa%3Fb%3Dc%26d%3De", "http://example.com/a?b=c&d=e"},
		{"/l/?uddg=https%3A%2F%2Fexample.org", "https://example.org"},
		{"https://example.net/direct", "https://example.net/direct"},
		{"https://duckduckgo.com/y.js?ad_domain=x", ""},
		{"//duckduckgo.com/l/?uddg=javascript%3Aalert(1)", ""},
		{"//duckduckgo.com/l/?uddg=file%3A%2F%2F%2Fetc%2Fpasswd", ""},
		{"//duckduckgo.com/l/?rut=abc", ""},
		{"%zz", ""},
	} {
		if got := ddgTarget(c.href); got != c.want {
			t.Errorf("ddgTarget(%q) = %q, want %q", c.href, got, c.want)
		}
	}
}

func TestBrave(t *testing.T) {
	n := newTestNet(t)
	opts := n.options()
	opts.BraveAPIKey = braveKey
	search := n.tool("web_search", opts)
	if d := search.Spec().Description; !strings.Contains(d, "Brave Search") {
		t.Errorf("description does not name the engine: %s", d)
	}
	out, err := call(t, search, map[string]any{"query": "golang generics tutorial"})
	if err != nil {
		t.Fatal(err)
	}
	want := `## Search Results

[Tutorial: Getting started with generics - The Go Programming Language](https://go.dev/doc/tutorial/generics)
This tutorial introduces the basics of generics in Go. With generics, you can declare and use functions or types that are written to work with any of a set of types provided by calling code.

[Go by Example: Generics](https://gobyexample.com/generics)
Starting with version 1.18, Go has added support for generics, also known as type parameters.
`
	if out != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
	_, err = call(t, search, map[string]any{"query": "zzqxv flurbnok"})
	if err == nil || !strings.Contains(err.Error(), `no results for "zzqxv flurbnok"; try a shorter or broader query`) {
		t.Errorf("no results: %v", err)
	}
	_, err = call(t, search, map[string]any{"query": "ratelimit"})
	if err == nil || err.Error() != "Brave Search's rate limit is reached (RATE_LIMITED: Request rate limit exceeded for plan.); search again in 1 s, or use fewer searches" {
		t.Errorf("429: %v", err)
	}

	opts.BraveAPIKey = "BSA-wrong-key"
	_, err = call(t, n.tool("web_search", opts), map[string]any{"query": "golang generics tutorial"})
	if err == nil || !strings.Contains(err.Error(), "Brave Search refused the API key (SUBSCRIPTION_TOKEN_INVALID: The provided subscription token is invalid.)") {
		t.Errorf("401: %v", err)
	}
	if err != nil && strings.Contains(err.Error(), "BSA-wrong-key") {
		t.Errorf("the key leaks into the error: %v", err)
	}

	opts.BraveAPIKey = braveKey
	opts.MaxBytes = 512
	_, err = call(t, n.tool("web_search", opts), map[string]any{"query": "golang generics tutorial"})
	if err == nil || !strings.Contains(err.Error(), "larger than 512 bytes") {
		t.Errorf("answer over MaxBytes: %v", err)
	}
}

// TestBraveKeyStaysWithBrave: the key is not sent on to another host a
// redirect points at.
func TestBraveKeyStaysWithBrave(t *testing.T) {
	n := newTestNet(t)
	opts := n.options()
	opts.BraveAPIKey = braveKey
	for _, c := range []struct {
		target string
		sent   bool
	}{
		{n.url("pages.test", "/headers"), false},
		{n.url("api.test", "/headers"), true},
	} {
		opts.Endpoints.Brave = n.url("api.test", "/redirect?to="+url.QueryEscape(c.target))
		if _, err := call(t, n.tool("web_search", opts), map[string]any{"query": "q"}); err != nil {
			t.Fatal(err)
		}
		n.mu.Lock()
		got := n.seen.Get("X-Subscription-Token")
		n.mu.Unlock()
		if (got == braveKey) != c.sent {
			t.Errorf("redirect to %s: X-Subscription-Token %q, want sent=%v", c.target, got, c.sent)
		}
	}
}
