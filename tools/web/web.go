// Package web holds star-agent's default tools, given to an agent by name:
// web_search (DuckDuckGo's HTML endpoint, or the Brave Search API when a
// key is set), visit_webpage (a page as Markdown), wikipedia_search (the
// MediaWiki API) and user_input (a question to the person at the terminal).
//
// Every request of these tools goes through one HTTP client that reaches
// public addresses only: loopback, private, link-local (with the cloud
// metadata address), shared, multicast, broadcast and reserved addresses
// are refused, whether written in the URL, reached through a redirect or
// returned by DNS, because the check is made on the address actually
// dialed. A model that can be talked into fetching a URL must not become a
// way into the network of the machine it runs on (smolagents'
// CVE-2026-2654). Options.AllowPrivate lifts the rule for an operator who
// wants it. Requests are bounded in time, size and redirects.
package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/star-agent/star-agent/tool"
)

// Names returns the names of the tools this package provides.
func Names() []string {
	return []string{"web_search", "visit_webpage", "wikipedia_search", "user_input"}
}

// Defaults of Options' zero values.
const (
	DefaultTimeout        = 20 * time.Second
	DefaultConnectTimeout = 10 * time.Second
	DefaultMaxBytes       = 5 << 20
	DefaultMaxChars       = 40000
	DefaultMaxResults     = 10
	DefaultMaxConversions = 8
	DefaultMaxRedirects   = 5
	DefaultUserAgent      = "Mozilla/5.0 (compatible; star-agent/1; +https://github.com/star-agent/star-agent)"
)

// Options configure the default tools. The zero value is ready to use:
// public addresses only, DuckDuckGo for search, English Wikipedia.
type Options struct {
	// AllowPrivate lets the tools reach loopback, private, link-local and
	// metadata addresses (--allow-private-urls). Off by default.
	AllowPrivate bool
	// AllowAddrs are exact addresses (IP and port) reached even though they
	// are not public: a search proxy on the local network, or a test's own
	// server. Everything else stays refused.
	AllowAddrs []netip.AddrPort

	// Timeout bounds a whole request, redirects and body included
	// (default 20s); ConnectTimeout bounds a connection and its TLS
	// handshake (default 10s).
	Timeout, ConnectTimeout time.Duration
	// MaxBytes caps the bytes read of a response body (default 5 MiB): a
	// longer page is cut, a longer API answer is an error.
	MaxBytes int64
	// MaxChars caps the text a tool returns (default 40000 characters);
	// what is cut is marked "... [N characters cut]".
	MaxChars int
	// MaxResults caps the results of web_search (default 10).
	MaxResults int
	// MaxConversions caps the pages visit_webpage converts to Markdown
	// at once (default 8, parallel()'s default max_workers): converting
	// is work done for the code in the host, bounded per page and in
	// number.
	MaxConversions int
	// MaxRedirects caps the redirects followed (default 5).
	MaxRedirects int
	// UserAgent is sent with every request.
	UserAgent string

	// BraveAPIKey, when set, makes web_search use the Brave Search API
	// instead of DuckDuckGo.
	BraveAPIKey string
	// WikipediaLanguage is the language edition wikipedia_search searches
	// ("en" by default, "fr", "de", "pt-br"...).
	WikipediaLanguage string
	// WikipediaFullText makes wikipedia_search return the whole article
	// rather than its introduction.
	WikipediaFullText bool

	// Stdin and Stdout are the terminal user_input asks on; user_input
	// cannot be built without Stdin.
	Stdin  io.Reader
	Stdout io.Writer

	// Logger receives a warning for every refused request (default: none).
	Logger *slog.Logger

	// Resolver looks up host names (default net.DefaultResolver); Dial
	// connects to an address the guard has already checked, given as
	// IP:port (default a net.Dialer that checks it once more). For tests.
	Resolver Resolver
	Dial     func(ctx context.Context, network, address string) (net.Conn, error)
	// Endpoints replace the services' URLs; for tests and proxies. The
	// guard applies to them as to any URL.
	Endpoints Endpoints
}

// Endpoints are the URLs of the services the tools call.
type Endpoints struct {
	DuckDuckGo string // default https://html.duckduckgo.com/html/
	Brave      string // default https://api.search.brave.com/res/v1/web/search
	Wikipedia  string // default https://LANG.wikipedia.org/w/api.php
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxConversions <= 0 {
		o.MaxConversions = DefaultMaxConversions
	}
	if o.MaxChars <= 0 {
		o.MaxChars = DefaultMaxChars
	}
	if o.MaxResults <= 0 {
		o.MaxResults = DefaultMaxResults
	}
	if o.MaxRedirects <= 0 {
		o.MaxRedirects = DefaultMaxRedirects
	}
	if o.UserAgent == "" {
		o.UserAgent = DefaultUserAgent
	}
	if o.WikipediaLanguage == "" {
		o.WikipediaLanguage = "en"
	}
	if o.Endpoints.DuckDuckGo == "" {
		o.Endpoints.DuckDuckGo = "https://html.duckduckgo.com/html/"
	}
	if o.Endpoints.Brave == "" {
		o.Endpoints.Brave = "https://api.search.brave.com/res/v1/web/search"
	}
	if o.Endpoints.Wikipedia == "" {
		o.Endpoints.Wikipedia = "https://" + o.WikipediaLanguage + ".wikipedia.org/w/api.php"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Tools builds the tools named (from Names), sharing one guarded client.
// An unknown name, a repeated one or a tool that cannot work with opts
// (user_input without Stdin) is an error.
func Tools(names []string, opts Options) ([]tool.Tool, error) {
	opts = opts.withDefaults()
	if !validLanguage(opts.WikipediaLanguage) {
		return nil, fmt.Errorf("wikipedia language %q is not a language code like en, fr or pt-br", opts.WikipediaLanguage)
	}
	client, g := newClient(&opts)
	f := &fetcher{client: client, guard: g, opts: &opts, conversions: make(chan struct{}, opts.MaxConversions)}
	var out []tool.Tool
	seen := map[string]bool{}
	for _, name := range names {
		name = strings.TrimSpace(name)
		if seen[name] {
			return nil, fmt.Errorf("tool %s is named twice", name)
		}
		seen[name] = true
		var t tool.Tool
		var err error
		switch name {
		case "web_search":
			t, err = newWebSearch(f)
		case "visit_webpage":
			t, err = newVisitWebpage(f)
		case "wikipedia_search":
			t, err = newWikipediaSearch(f)
		case "user_input":
			t, err = newUserInput(&opts)
		default:
			return nil, fmt.Errorf("unknown tool %q: the default tools are %s", name, strings.Join(Names(), ", "))
		}
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// Client returns the guarded HTTP client the tools built with opts use,
// for programs that write tools of their own under the same rules.
func Client(opts Options) *http.Client {
	opts = opts.withDefaults()
	client, _ := newClient(&opts)
	return client
}

// fetcher makes the tools' requests with the guarded client.
type fetcher struct {
	client      *http.Client
	guard       *guard
	opts        *Options
	conversions chan struct{} // a slot per page being converted (MaxConversions)
}

// response is a body read within the size cap.
type response struct {
	status      int
	header      http.Header
	url         *url.URL // after redirects
	body        []byte
	truncated   bool // the body was longer than MaxBytes
	contentType string
}

// do sends req and reads at most MaxBytes of its body. Refusals come back
// as *RefusedError naming the URL that was refused (a redirect's, if so).
func (f *fetcher) do(req *http.Request) (*response, error) {
	if err := f.guard.checkURL(req.URL); err != nil {
		return nil, f.refused(err)
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, f.explain(req.Context(), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.opts.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", resp.Request.URL.Redacted(), f.explain(req.Context(), err))
	}
	r := &response{status: resp.StatusCode, header: resp.Header, url: resp.Request.URL, body: body, contentType: resp.Header.Get("Content-Type")}
	if int64(len(body)) > f.opts.MaxBytes {
		r.body, r.truncated = body[:f.opts.MaxBytes], true
	}
	return r, nil
}

// refused logs a refusal for the operator and returns it for the model.
func (f *fetcher) refused(err error) error {
	var re *RefusedError
	if errors.As(err, &re) && re.byAddress() {
		f.opts.Logger.Warn("web: request refused", "url", re.URL, "host", re.Host, "addr", re.Addr, "reason", re.Reason,
			"hint", "pass --allow-private-urls (Options.AllowPrivate) to let the web tools reach private addresses")
	}
	return err
}

// explain turns a client error into one the model can act on.
func (f *fetcher) explain(ctx context.Context, err error) error {
	var ue *url.Error
	var re *RefusedError
	if errors.As(err, &re) {
		cp := *re
		if errors.As(err, &ue) {
			cp.URL = ue.URL
		}
		return f.refused(&cp)
	}
	if errors.As(err, &ue) {
		switch {
		case ctx.Err() != nil: // the caller's deadline (the step's), not ours
			return fmt.Errorf("request to %s abandoned: %w", ue.URL, context.Cause(ctx))
		case ue.Timeout():
			return fmt.Errorf("%s did not answer within %s; try again later or another source", ue.URL, f.opts.Timeout)
		}
		return fmt.Errorf("cannot fetch %s: %v", ue.URL, ue.Err)
	}
	return err
}

// visibleURL is a URL shown in an error: the endpoint's, which may carry
// a key in its query, is cut to scheme, host and path.
func visibleURL(u *url.URL) string {
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
}

func validLanguage(s string) bool {
	if s == "" || len(s) > 20 {
		return false
	}
	for i, part := range strings.Split(s, "-") {
		if part == "" || (i == 0 && len(part) < 2) {
			return false
		}
		for _, c := range part {
			if c < 'a' || c > 'z' {
				return false
			}
		}
	}
	return true
}
