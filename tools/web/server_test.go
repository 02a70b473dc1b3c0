package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/star-agent/star-agent/tool"
)

// The tests reach one local server, under public-looking names that a
// test resolver maps to it (no real DNS is asked). The server is on
// loopback, which the guard refuses: Options.AllowAddrs lets exactly its
// address and port through, so every request still goes through the
// guard, and the dial function fails the test if anything else is dialed.
// Nothing is ever sent to a non-loopback address.

const braveKey = "BSA-test-key-0123456789"

type testNet struct {
	t     testing.TB
	srv   *httptest.Server
	addr  netip.AddrPort
	mu    sync.Mutex
	names map[string][]netip.Addr
	dials []string
	seen  http.Header // the headers of the last request to /headers

	bombOnce sync.Once
	bomb     []byte
}

// newTestNet starts the server. Its names: search.test, api.test,
// wiki.test and pages.test are the server; intranet.test resolves to
// 10.0.0.5, meta.test to 169.254.169.254, mixed.test to a private and a
// loopback address, v6.test to fd12::1, mapped.test to ::ffff:10.0.0.1.
func newTestNet(t testing.TB) *testNet {
	n := &testNet{t: t}
	mux := http.NewServeMux()
	mux.HandleFunc("/html/", n.duckDuckGo)
	mux.HandleFunc("/res/v1/web/search", n.brave)
	mux.HandleFunc("/w/api.php", n.mediaWiki)
	mux.HandleFunc("/", n.pages)
	n.srv = httptest.NewServer(mux)
	t.Cleanup(n.srv.Close)
	n.addr = netip.MustParseAddrPort(n.srv.Listener.Addr().String())
	self := []netip.Addr{n.addr.Addr()}
	n.names = map[string][]netip.Addr{
		"search.test": self, "api.test": self, "wiki.test": self, "pages.test": self,
		"intranet.test": {netip.MustParseAddr("10.0.0.5")},
		"meta.test":     {netip.MustParseAddr("169.254.169.254")},
		"mixed.test":    {netip.MustParseAddr("192.168.1.20"), netip.MustParseAddr("127.0.0.2")},
		"v6.test":       {netip.MustParseAddr("fd12::1")},
		"mapped.test":   {netip.MustParseAddr("::ffff:10.0.0.1")},
	}
	return n
}

// url is a URL of the server under one of its names.
func (n *testNet) url(name, path string) string {
	return fmt.Sprintf("http://%s:%d%s", name, n.addr.Port(), path)
}

func (n *testNet) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if a, ok := n.names[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (n *testNet) setName(host string, addrs ...netip.Addr) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.names[host] = addrs
}

// dial connects to the test server only: any other address is a failure
// of the guard, reported without dialing.
func (n *testNet) dial(ctx context.Context, network, address string) (net.Conn, error) {
	n.mu.Lock()
	n.dials = append(n.dials, address)
	n.mu.Unlock()
	if address != n.addr.String() {
		n.t.Errorf("the guard let %s be dialed; only the test server %s may be", address, n.addr)
		return nil, errors.New("test: dial blocked")
	}
	var d net.Dialer
	return d.DialContext(ctx, network, address)
}

func (n *testNet) options() Options {
	return Options{
		AllowAddrs: []netip.AddrPort{n.addr},
		Resolver:   n,
		Dial:       n.dial,
		Endpoints: Endpoints{
			DuckDuckGo: n.url("search.test", "/html/"),
			Brave:      n.url("api.test", "/res/v1/web/search"),
			Wikipedia:  n.url("wiki.test", "/w/api.php"),
		},
	}
}

// tool builds one tool with opts.
func (n *testNet) tool(name string, opts Options) tool.Tool {
	n.t.Helper()
	ts, err := Tools([]string{name}, opts)
	if err != nil {
		n.t.Fatal(err)
	}
	return ts[0]
}

func testdata(t testing.TB, name string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// duckDuckGo answers as html.duckduckgo.com/html/ does: a POSTed form
// with q; the query "bot" gets the 202 challenge page.
func (n *testNet) duckDuckGo(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		http.Error(w, "expected a POSTed form", http.StatusMethodNotAllowed)
		return
	}
	if r.Header.Get("User-Agent") == "" {
		http.Error(w, "no user agent", http.StatusForbidden)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=UTF-8")
	switch q := r.PostFormValue("q"); q {
	case "golang generics tutorial":
		w.Write(testdata(n.t, "ddg_results.html"))
	case "bot":
		w.WriteHeader(http.StatusAccepted)
		w.Write(testdata(n.t, "ddg_challenge.html"))
	default:
		w.Write(testdata(n.t, "ddg_noresults.html"))
	}
}

// brave answers as api.search.brave.com does: the key in
// X-Subscription-Token, 401 without the right one, 429 for "ratelimit".
func (n *testNet) brave(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("X-Subscription-Token") != braveKey {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write(testdata(n.t, "brave_401.json"))
		return
	}
	q := r.URL.Query()
	if q.Get("count") == "" {
		http.Error(w, `{"type":"ErrorResponse","error":{"status":422,"code":"VALIDATION","detail":"count missing"}}`, http.StatusUnprocessableEntity)
		return
	}
	w.Header().Set("X-RateLimit-Limit", "1, 2000")
	switch q.Get("q") {
	case "ratelimit":
		w.Header().Set("X-RateLimit-Remaining", "0, 1943")
		w.Header().Set("X-RateLimit-Reset", "1, 1419704")
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write(testdata(n.t, "brave_429.json"))
	case "golang generics tutorial":
		w.Write(testdata(n.t, "brave.json"))
	default:
		w.Write([]byte(`{"query":{"original":"` + q.Get("q") + `"},"type":"search","web":{"type":"search","results":[]}}`))
	}
}

// mediaWiki answers as /w/api.php does with format=json&formatversion=2.
func (n *testNet) mediaWiki(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if q.Get("format") != "json" || q.Get("formatversion") != "2" || q.Get("action") != "query" {
		w.Write([]byte(`{"error":{"code":"badvalue","info":"Unrecognized value for parameter \"format\"."}}`))
		return
	}
	switch {
	case q.Get("list") == "search" && q.Get("srsearch") == "maxlag":
		w.Write(testdata(n.t, "wiki_error.json"))
	case q.Get("list") == "search" && q.Get("srsearch") == "gopher language":
		w.Write(testdata(n.t, "wiki_search.json"))
	case q.Get("list") == "search":
		w.Write(testdata(n.t, "wiki_search_none.json"))
	case strings.Contains(q.Get("prop"), "extracts") && q.Get("titles") == "Go (programming language)":
		if q.Get("explaintext") == "" || q.Get("exintro") == "" {
			w.Write([]byte(`{"batchcomplete":true,"query":{"pages":[{"pageid":25039021,"ns":0,"title":"Go (programming language)","extract":"FULL TEXT","fullurl":"https://en.wikipedia.org/wiki/Go_(programming_language)"}]}}`))
			return
		}
		w.Write(testdata(n.t, "wiki_extract.json"))
	default:
		w.Write([]byte(`{"batchcomplete":true,"query":{"pages":[{"ns":0,"title":"` + q.Get("titles") + `","missing":true}]}}`))
	}
}

// pages serves the pages visit_webpage reads.
func (n *testNet) pages(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/article":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(testdata(n.t, "article.html"))
	case "/latin1":
		w.Header().Set("Content-Type", "text/html; charset=ISO-8859-1")
		w.Write([]byte("<html><body><p>Caf\xe9 cr\xe8me, 3 \x80? no: \xa3 5</p></body></html>"))
	case "/plain":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("# not a heading\n<b>kept as written</b>\n"))
	case "/json":
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"ok":true}`))
	case "/image.png":
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
	case "/sniffed":
		w.Header()["Content-Type"] = nil // no header at all: the body is sniffed
		w.Write([]byte("%PDF-1.7\n1 0 obj\n"))
	case "/wide-table":
		// 3.5 MB: a table of 350,000 one-letter cells, which a DOM and a
		// Markdown converter take hundreds of megabytes to hold.
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body><table><tr>"))
		w.Write([]byte(strings.Repeat("<td>x</td>", 350_000)))
		w.Write([]byte("</tr></table></body></html>"))
	case "/big":
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body>"))
		for range 20000 {
			w.Write([]byte("<p>lorem ipsum dolor sit amet</p>\n"))
		}
		w.Write([]byte("<p>THE END</p></body></html>"))
	case "/headers":
		n.mu.Lock()
		n.seen = r.Header.Clone()
		n.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"type":"search","web":{"results":[{"title":"t","url":"https://example.com/","description":"d"}]}}`))
	case "/bigheader":
		w.Header().Set("X-Padding", strings.Repeat("a", 100<<10))
		w.Write([]byte("never read"))
	case "/gzipbomb":
		// 64 MiB of zeros, 64 KiB on the wire.
		n.bombOnce.Do(func() {
			var b bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
			zeros := make([]byte, 1<<20)
			for range 64 {
				zw.Write(zeros)
			}
			zw.Close()
			n.bomb = b.Bytes()
		})
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(n.bomb)
	case "/redirect":
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	case "/loop":
		http.Redirect(w, r, "/loop", http.StatusFound)
	case "/close":
		// Connection: close makes the next request dial again, and so
		// resolve the name again.
		w.Header().Set("Connection", "close")
		w.Write([]byte("first answer"))
	case "/slow":
		<-r.Context().Done()
	default:
		http.NotFound(w, r)
	}
}
