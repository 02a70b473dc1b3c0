package web

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestArticleMarkdown converts the article and compares its Markdown
// with testdata/article.md byte for byte (go test -run
// TestArticleMarkdown -update rewrites it).
func TestArticleMarkdown(t *testing.T) {
	page, _ := url.Parse("https://fieldnotes.example/birds/falcons/")
	got, err := PageToMarkdown(testdata(t, "article.html"), "text/html; charset=utf-8", page)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "article.md")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if want := string(testdata(t, "article.md")); got != want {
		t.Errorf("Markdown differs from %s (run with -update to accept):\n%s", golden, got)
	}
	// What must be gone, whatever the golden file says.
	for _, gone := range []string{"gtag", "dataLayer", "font-family", "schema.org", "Skip to content",
		"About us", "Search field notes", "Advertisement", "loadAd", "Related articles", "Owls at dusk",
		"Post", "youtube", "pixel.gif", "Privacy", "Sitemap", "We use cookies", "app.js", "javascript:"} {
		if strings.Contains(got, gone) {
			t.Errorf("the Markdown still holds %q", gone)
		}
	}
	// What must be there: the article's header, links made absolute, the
	// table, the code, the article's own footer, the comments' text.
	for _, kept := range []string{"# Falcons of the Northern Coast", "Inès Moreau", "320\u00a0km/h",
		"[coastal map](https://fieldnotes.example/birds/maps/coast.html)", "(https://www.rspb.org.uk/birds-and-wildlife/peregrine)",
		"| Year | Pairs | Fledglings | Notes                    |", "| 2024 | 5     | 12         |", "FR-PER-0117", "~~rarely~~",
		"Filed under", "No comments yet.", "Found a nest? Report it to"} {
		if !strings.Contains(got, kept) {
			t.Errorf("the Markdown lacks %q", kept)
		}
	}
}

// TestVisitArticle: visit_webpage fetches the article through the guarded
// client and returns what PageToMarkdown makes of it, links resolved
// against the URL it was fetched from.
func TestVisitArticle(t *testing.T) {
	n := newTestNet(t)
	visit := n.tool("visit_webpage", n.options())
	got, err := call(t, visit, map[string]any{"url": n.url("pages.test", "/article")})
	if err != nil {
		t.Fatal(err)
	}
	page, _ := url.Parse(n.url("pages.test", "/article"))
	want, _ := PageToMarkdown(testdata(t, "article.html"), "text/html; charset=utf-8", page)
	if got != want || !strings.Contains(got, "("+n.url("pages.test", "/maps/coast.html")+")") {
		t.Errorf("visit_webpage:\n%s\nwant:\n%s", got, want)
	}
}

func TestVisitContentTypes(t *testing.T) {
	n := newTestNet(t)
	visit := n.tool("visit_webpage", n.options())
	for _, c := range []struct{ path, want, err string }{
		{"/latin1", "Café crème, 3 €? no: £ 5", ""},
		{"/plain", "# not a heading\n<b>kept as written</b>\n", ""},
		{"/json", `{"ok":true}`, ""},
		{"/image.png", "", "its content is image/png, not a web page or text; visit_webpage reads HTML and text only"},
		{"/sniffed", "", "its content is application/pdf, not a web page or text"},
		{"/missing", "", "answered 404 Not Found"},
	} {
		got, err := call(t, visit, map[string]any{"url": n.url("pages.test", c.path)})
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: %q, %v; want an error saying %q", c.path, got, err, c.err)
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("%s: %q, %v; want %q", c.path, got, err, c.want)
		}
	}
	for _, bad := range []string{"http://%31%32%37.0.0.1/", "http://localhost%00.test/", "http://[::1/"} {
		_, err := call(t, visit, map[string]any{"url": bad})
		if err == nil || !strings.Contains(err.Error(), "is not a valid URL (") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	for _, bad := range []string{"example.com/page", "/article", "", "http://"} {
		_, err := call(t, visit, map[string]any{"url": bad})
		if err == nil || !strings.Contains(err.Error(), "is not an absolute URL; pass one like https://example.com/page") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestVisitLimits: a page over MaxBytes is cut where reading stopped and
// says so; text over MaxChars is cut with CapText's marker; a server that
// does not answer is abandoned at Timeout.
func TestVisitLimits(t *testing.T) {
	n := newTestNet(t)
	opts := n.options()
	opts.MaxBytes = 4096
	got, err := call(t, n.tool("visit_webpage", opts), map[string]any{"url": n.url("pages.test", "/big")})
	if err != nil || strings.Contains(got, "THE END") || !strings.HasSuffix(got, "... [the page is longer than 4096 bytes; the rest was not read]") {
		t.Errorf("MaxBytes: %v\n%s", err, got[max(0, len(got)-300):])
	}
	opts = n.options()
	opts.MaxChars = 1000
	got, err = call(t, n.tool("visit_webpage", opts), map[string]any{"url": n.url("pages.test", "/big")})
	if err != nil || !strings.HasPrefix(got, "lorem ipsum") || !strings.Contains(got, " characters cut]") || len(got) > 1100+len(cutNote) {
		t.Errorf("MaxChars: %v\n%s", err, got)
	}
	// A compressed body is capped after decompression.
	opts = n.options()
	got, err = call(t, n.tool("visit_webpage", opts), map[string]any{"url": n.url("pages.test", "/gzipbomb")})
	if err != nil || !strings.HasSuffix(got, " characters cut]\n\n... [the page is longer than 5242880 bytes; the rest was not read]") || len(got) > DefaultMaxChars+200 {
		t.Errorf("gzip bomb: %v, %d bytes, ends %q", err, len(got), got[max(0, len(got)-120):])
	}
	// Response headers are capped too.
	_, err = call(t, n.tool("visit_webpage", opts), map[string]any{"url": n.url("pages.test", "/bigheader")})
	if err == nil || !strings.Contains(err.Error(), "server response headers exceeded") {
		t.Errorf("100 KiB header: %v", err)
	}
	opts = n.options()
	opts.Timeout = 100 * time.Millisecond
	_, err = call(t, n.tool("visit_webpage", opts), map[string]any{"url": n.url("pages.test", "/slow")})
	if err == nil || !strings.Contains(err.Error(), "did not answer within 100ms; try again later or another source") {
		t.Errorf("Timeout: %v", err)
	}
	// The caller's deadline (the step's) is reported as such.
	ctx, cancel := context.WithTimeoutCause(context.Background(), 50*time.Millisecond, errors.New("the step's deadline"))
	defer cancel()
	_, err = n.tool("visit_webpage", n.options()).Call(ctx, map[string]any{"url": n.url("pages.test", "/slow")})
	if err == nil || !strings.HasSuffix(err.Error(), "/slow abandoned: the step's deadline") {
		t.Errorf("caller's deadline: %v", err)
	}
}

func TestPageToMarkdown(t *testing.T) {
	page, _ := url.Parse("https://example.org/a/b.html")
	for _, c := range []struct{ html, want string }{
		{`<base href="https://cdn.example.net/docs/"><a href="x.html">x</a>`, "[x](https://cdn.example.net/docs/x.html)"},
		{`<base href="javascript:alert(1)"><a href="x.html">x</a>`, "[x](https://example.org/a/x.html)"},
		{`<header><h1>Site</h1></header><article><header><h1>Title</h1></header><p>Body</p></article>`, "# Title\n\nBody"},
		{`<p>a</p><div hidden>secret</div><p role="navigation">nav</p><svg><text>svg</text></svg><p>b</p>`, "a\n\nb"},
		{`<p>one</p><!-- comment --><p>two</p>`, "one\n\ntwo"},
	} {
		got, err := PageToMarkdown([]byte(c.html), "text/html; charset=utf-8", page)
		if err != nil || got != c.want {
			t.Errorf("%s:\n got %q, %v\nwant %q", c.html, got, err, c.want)
		}
	}
	// Nesting past x/net/html's 512 open elements: the text, said so.
	deep := "<style>p{}</style>" + strings.Repeat("<div>level ", 1000) + "<script>var x = 1;</script>bottom"
	got, err := PageToMarkdown([]byte(deep), "text/html", page)
	if err != nil || !strings.HasPrefix(got, "(the page cannot be converted to Markdown: html: open stack of elements exceeds 512 nodes; its text follows)\n\nlevel \nlevel") ||
		!strings.HasSuffix(got, "level bottom") || strings.Contains(got, "var x") || strings.Contains(got, "p{}") {
		t.Errorf("deep nesting: %v\n%.300s ... %s", err, got, got[max(0, len(got)-40):])
	}
	if _, err := PageToMarkdown([]byte("\x00\x01"), "application/octet-stream", page); !errors.Is(err, ErrNotText) {
		t.Errorf("octet-stream: %v", err)
	}
}

// BenchmarkArticleToMarkdown measures the conversion of the article page
// (about 6 KB of HTML) to Markdown, pruning included.
func BenchmarkArticleToMarkdown(b *testing.B) {
	page := testdata(b, "article.html")
	u, _ := url.Parse("https://fieldnotes.example/birds/falcons")
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := PageToMarkdown(page, "text/html; charset=utf-8", u); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLargePageToMarkdown converts a 1 MB page.
func BenchmarkLargePageToMarkdown(b *testing.B) {
	var page bytes.Buffer
	page.WriteString("<html><body><main>")
	for page.Len() < 1<<20 {
		page.WriteString(`<h2>Section</h2><p>Some <a href="/x">linked</a> text with <b>bold</b> words.</p><table><tr><td>1</td><td>2</td></tr></table>`)
	}
	page.WriteString("</main></body></html>")
	u, _ := url.Parse("https://fieldnotes.example/")
	b.SetBytes(int64(page.Len()))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := PageToMarkdown(page.Bytes(), "text/html", u); err != nil {
			b.Fatal(err)
		}
	}
}

// TestVisitConcurrent: the tools are called from parallel tool calls; one
// client and one converter serve them all.
func TestVisitConcurrent(t *testing.T) {
	n := newTestNet(t)
	visit := n.tool("visit_webpage", n.options())
	page, _ := url.Parse(n.url("pages.test", "/article"))
	want, _ := PageToMarkdown(testdata(t, "article.html"), "text/html; charset=utf-8", page)
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			out, err := visit.Call(t.Context(), map[string]any{"url": page.String()})
			if err == nil && out != want {
				err = errors.New("a parallel visit returned other Markdown")
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// BenchmarkVisitArticle is a whole visit_webpage call on loopback: the
// resolution through the test resolver, the guard, the request on a kept
// connection, the conversion.
func BenchmarkVisitArticle(b *testing.B) {
	n := newTestNet(b)
	ts, err := Tools([]string{"visit_webpage"}, n.options())
	if err != nil {
		b.Fatal(err)
	}
	args := map[string]any{"url": n.url("pages.test", "/article")}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ts[0].Call(b.Context(), args); err != nil {
			b.Fatal(err)
		}
	}
}

// TestVisitWideTableBounded: converting a page is work done for the code
// in the host: a 3.5 MB page of a wide table took 340 MB per call, 1.6 GB
// with five at once. The converter's input is capped before it is built,
// and five visits at once allocate a bounded amount between them.
func TestVisitWideTableBounded(t *testing.T) {
	n := newTestNet(t)
	opts := n.options()
	opts.MaxConversions = 2
	visit := n.tool("visit_webpage", opts)
	page := n.url("pages.test", "/wide-table")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	// The peak of the live heap while the visits run, sampled.
	stop, peak := make(chan struct{}), make(chan uint64)
	go func() {
		var top uint64
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			top = max(top, m.HeapAlloc)
			select {
			case <-stop:
				peak <- top
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	errs := make(chan error, 5)
	for range 5 {
		go func() {
			out, err := visit.Call(t.Context(), map[string]any{"url": page})
			if err == nil && (!strings.HasPrefix(out.(string), "|") || !strings.HasSuffix(out.(string), "the rest was not converted]")) {
				s := out.(string)
				err = fmt.Errorf("the table is not there, or the cut is not said: %q", s[len(s)-400:])
			}
			errs <- err
		}()
	}
	for range 5 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	close(stop)
	top := <-peak
	runtime.ReadMemStats(&after)
	t.Logf("five visits: %d MiB allocated, live heap peaked %d MiB above the start", (after.TotalAlloc-before.TotalAlloc)>>20, (top-before.HeapAlloc)>>20)
	if got := after.TotalAlloc - before.TotalAlloc; got > 200<<20 && !raceEnabled {
		t.Errorf("five visits allocated %d MiB", got>>20)
	}
	if top-before.HeapAlloc > 100<<20 {
		t.Errorf("the live heap grew by %d MiB", (top-before.HeapAlloc)>>20)
	}
}

// FuzzPageToMarkdown: any page converts without a panic, and the reduced
// input of the converter stays within its caps.
func FuzzPageToMarkdown(f *testing.F) {
	f.Add([]byte("<html><body><table><tr><td>x</td></tr></table></body></html>"))
	f.Add([]byte("<p>a<script>b</script><style>c</style><svg><p>d</svg>"))
	f.Add([]byte("<td>x</td><td>y" + strings.Repeat("<b>", 100)))
	page, _ := url.Parse("https://example.com/a/")
	f.Fuzz(func(t *testing.T, body []byte) {
		reduced, _ := reduce(body)
		if len(reduced) > maxConvertBytes {
			t.Fatalf("reduced to %d bytes", len(reduced))
		}
		if _, err := PageToMarkdown(body, "text/html; charset=utf-8", page); err != nil && !strings.Contains(err.Error(), "cannot") {
			t.Fatal(err)
		}
	})
}
