package mcp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"regexp"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func dialHTTP(ctx context.Context, url string, header http.Header, opts Options) (*conn, error) {
	base := http.DefaultTransport
	if opts.HTTPClient != nil && opts.HTTPClient.Transport != nil {
		base = opts.HTTPClient.Transport
	}
	u, err := neturl.Parse(url)
	if err != nil {
		return nil, fmt.Errorf("MCP server %s: bad URL: %v", url, err)
	}
	hc := &http.Client{Transport: &capTransport{base: base, header: header, scheme: u.Scheme, host: u.Host, max: int64(opts.maxMessage())}}
	if opts.HTTPClient != nil {
		hc.CheckRedirect, hc.Jar = opts.HTTPClient.CheckRedirect, opts.HTTPClient.Jar
	}
	transport := &sdk.StreamableClientTransport{
		Endpoint:   url,
		HTTPClient: hc,
		// Tools only: no server-initiated messages to wait for.
		DisableStandaloneSSE: true,
		MaxEventSize:         opts.maxMessage(),
	}
	cs, err := opts.client().Connect(ctx, transport, nil)
	if err != nil {
		return nil, fmt.Errorf("MCP server %s: cannot connect: %v (%s)", url, err, connectHint(ctx, err, url, u.Host))
	}
	return &conn{cs: cs}, nil
}

// connectHint says what to check when connecting to the server at url
// (host: its host and port) failed with err. It reads the HTTP status in
// err, not a port or path that holds its digits: a dial error to
// 127.0.0.1:40191 is no 401.
func connectHint(ctx context.Context, err error, url, host string) string {
	msg := strings.ReplaceAll(strings.ReplaceAll(err.Error(), url, ""), host, "")
	switch {
	case refusedStatus.MatchString(msg):
		return "the server refused the credentials: check --mcp-header (e.g. 'Authorization: Bearer TOKEN')"
	case notFoundStatus.MatchString(msg):
		return "no MCP endpoint at that path: check the URL (often it ends in /mcp)"
	case ctx.Err() != nil:
		return "it did not answer in time"
	}
	return "check that the server is running and the URL is its MCP endpoint"
}

// The statuses in the SDK's connection errors that call for another hint.
var (
	refusedStatus  = regexp.MustCompile(`\b40[13]\b|Unauthorized|Forbidden`)
	notFoundStatus = regexp.MustCompile(`\b404\b|Not Found`)
)

// capTransport adds the user's headers to the requests for the server's
// origin (not to another host a redirect leads to: they are credentials)
// and caps
// response bodies other than event streams (whose events the SDK caps
// itself), since the SDK reads JSON responses whole.
type capTransport struct {
	base         http.RoundTripper
	header       http.Header
	scheme, host string // the server's origin
	max          int64
}

func (t *capTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.header) > 0 && req.URL.Scheme == t.scheme && req.URL.Host == t.host {
		req = req.Clone(req.Context())
		for k, vs := range t.header {
			req.Header.Del(k)
			for _, v := range vs {
				req.Header.Add(k, v)
			}
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil || strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return resp, err
	}
	resp.Body = &cappedBody{rc: resp.Body, left: t.max, max: t.max}
	return resp, nil
}

type cappedBody struct {
	rc   io.ReadCloser
	left int64
	max  int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	// Read at most one byte past the cap, to tell a body of exactly max
	// bytes from a longer one.
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return 0, fmt.Errorf("MCP response larger than %d bytes", b.max)
	}
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }
