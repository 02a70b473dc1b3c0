package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/tool"
)

type visitArgs struct {
	URL string `json:"url" jsonschema:"The url of the webpage to visit."`
}

func newVisitWebpage(f *fetcher) (tool.Tool, error) {
	return tool.New("visit_webpage",
		"Visits a webpage at the given url and reads its content as a Markdown string. Use this to browse webpages.",
		func(ctx context.Context, a visitArgs) (string, error) { return f.visit(ctx, a.URL) })
}

func (f *fetcher) visit(ctx context.Context, raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("%q is not a valid URL (%v); pass one like https://example.com/page", raw, errors.Unwrap(err))
	}
	if u.Host == "" && (u.Scheme == "" || u.Scheme == "http" || u.Scheme == "https") {
		return "", fmt.Errorf("%q is not an absolute URL; pass one like https://example.com/page", raw)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5")
	resp, err := f.do(req)
	if err != nil {
		return "", err
	}
	if resp.status >= 400 {
		return "", fmt.Errorf("%s answered %d %s", resp.url.Redacted(), resp.status, http.StatusText(resp.status))
	}
	// Converting is work done for the code in the host: at most
	// MaxConversions at once, each of a capped input.
	select {
	case f.conversions <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	text, cut, err := pageToMarkdown(resp.body, resp.contentType, resp.url)
	<-f.conversions
	if err != nil {
		return "", fmt.Errorf("%s: %w", resp.url.Redacted(), err)
	}
	text = executors.CapText(text, f.opts.MaxChars)
	if cut {
		text += cutNote
	}
	if resp.truncated {
		text += fmt.Sprintf("\n\n... [the page is longer than %d bytes; the rest was not read]", f.opts.MaxBytes)
	}
	return text, nil
}

// ErrNotText is the error of PageToMarkdown for content that is neither
// HTML nor text.
var ErrNotText = errors.New("not a web page or text")

// PageToMarkdown turns a fetched body into what visit_webpage returns:
// HTML (and XHTML) as Markdown, without scripts, styles, navigation,
// forms and frames, its links made absolute against page; other text
// (plain, Markdown, CSV, JSON, XML) as it is. Anything else (images, PDF,
// archives) is refused with an error wrapping ErrNotText. contentType is
// the Content-Type header; when it is missing the body is sniffed.
func PageToMarkdown(body []byte, contentType string, page *url.URL) (string, error) {
	text, cut, err := pageToMarkdown(body, contentType, page)
	if cut {
		text += cutNote
	}
	return text, err
}

// cutNote says that a page was converted only in part (see reduce).
var cutNote = fmt.Sprintf("\n\n... [the page has more than %d elements or %d bytes of content; the rest was not converted]", maxConvertElements, maxConvertBytes)

// pageToMarkdown is PageToMarkdown; cut reports that only the start of
// an HTML page was converted.
func pageToMarkdown(body []byte, contentType string, page *url.URL) (text string, cut bool, err error) {
	if contentType == "" {
		contentType = http.DetectContentType(body)
	}
	media, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		media = strings.ToLower(strings.TrimSpace(strings.Split(contentType, ";")[0]))
	}
	switch {
	case media == "text/html" || media == "application/xhtml+xml":
		return htmlToMarkdown(body, contentType, page)
	case strings.HasPrefix(media, "text/") || media == "application/json" || media == "application/xml" ||
		strings.HasSuffix(media, "+json") || strings.HasSuffix(media, "+xml") || media == "application/javascript":
		r, err := charset.NewReader(bytes.NewReader(body), contentType)
		if err != nil {
			return "", false, fmt.Errorf("cannot decode its %s text: %v", media, err)
		}
		var b bytes.Buffer
		if _, err := b.ReadFrom(r); err != nil {
			return "", false, fmt.Errorf("cannot decode its %s text: %v", media, err)
		}
		return strings.ToValidUTF8(b.String(), "\uFFFD"), false, nil
	}
	return "", false, fmt.Errorf("its content is %s, %w; visit_webpage reads HTML and text only", media, ErrNotText)
}

var mdConverter = sync.OnceValue(func() *converter.Converter {
	return converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(),
		strikethrough.NewStrikethroughPlugin(),
	))
})

var blankLines = regexp.MustCompile(`\n{3,}`)

// Limits of the converter's input. A page's tree and its Markdown take
// hundreds of bytes per element (a 3.5 MB table of one-letter cells took
// 340 MB to convert), and what visit_webpage returns is capped at
// MaxChars (40,000 characters by default) anyway: the page is reduced,
// token by token, to its first maxConvertElements elements and
// maxConvertBytes bytes, what prune drops left out, before the tree is
// built.
const (
	maxConvertElements = 10_000
	maxConvertBytes    = 1 << 20
)

// reduce is page without the elements prune drops, cut after
// maxConvertElements elements or maxConvertBytes bytes; cut reports
// that it was.
func reduce(page []byte) (out []byte, cut bool) {
	z := html.NewTokenizer(bytes.NewReader(page))
	var b bytes.Buffer
	skip := 0 // depth inside elements with text that prune drops
	elements := 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return b.Bytes(), false
		}
		raw := z.Raw()
		switch tt {
		case html.StartTagToken, html.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			if a == atom.Script || a == atom.Style || a == atom.Noscript || a == atom.Template || a == atom.Textarea || a == atom.Svg {
				if tt == html.StartTagToken {
					skip++
				} else if skip > 0 {
					skip--
				}
				continue
			}
			if tt == html.StartTagToken {
				elements++
			}
		case html.SelfClosingTagToken:
			elements++
		case html.CommentToken:
			continue
		}
		if skip > 0 {
			continue
		}
		if elements > maxConvertElements || b.Len()+len(raw) > maxConvertBytes {
			return b.Bytes(), true
		}
		b.Write(raw)
	}
}

func htmlToMarkdown(body []byte, contentType string, page *url.URL) (string, bool, error) {
	r, err := charset.NewReader(bytes.NewReader(body), contentType)
	if err != nil {
		return "", false, fmt.Errorf("cannot decode the page: %v", err)
	}
	var b bytes.Buffer
	if _, err := b.ReadFrom(r); err != nil {
		return "", false, fmt.Errorf("cannot decode the page: %v", err)
	}
	reduced, cut := reduce(b.Bytes())
	md, err := reducedToMarkdown(reduced, page)
	return md, cut, err
}

func reducedToMarkdown(page []byte, base *url.URL) (string, error) {
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		// x/net/html gives up on elements nested more than 512 deep,
		// which broken or hostile pages reach: their text is still read.
		return fmt.Sprintf("(the page cannot be converted to Markdown: %v; its text follows)\n\n%s", err, plainText(page)), nil
	}
	if b := findBase(doc); b != "" && base != nil {
		if bu, err := base.Parse(b); err == nil && (bu.Scheme == "http" || bu.Scheme == "https") {
			base = bu
		}
	}
	prune(doc, false)
	var opts []converter.ConvertOptionFunc
	if base != nil {
		opts = append(opts, converter.WithDomain(base.String()))
	}
	md, err := mdConverter().ConvertNode(doc, opts...)
	if err != nil {
		return "", fmt.Errorf("cannot convert the page to Markdown: %v", err)
	}
	out := blankLines.ReplaceAllString(string(md), "\n\n")
	if !utf8.ValidString(out) {
		out = strings.ToValidUTF8(out, "\uFFFD")
	}
	return strings.TrimSpace(out), nil
}

func findBase(n *html.Node) string {
	if n.Type == html.ElementNode && n.DataAtom == atom.Base {
		return attr(n, "href")
	}
	if n.Type == html.ElementNode && n.DataAtom == atom.Body {
		return ""
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if b := findBase(c); b != "" {
			return b
		}
	}
	return ""
}

// dropped are the elements that are not a page's content: code, styling,
// navigation, forms, embedded frames and media without text.
var dropped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Nav: true, atom.Aside: true, atom.Menu: true,
	atom.Form: true, atom.Button: true, atom.Select: true, atom.Input: true, atom.Textarea: true,
	atom.Iframe: true, atom.Frame: true, atom.Frameset: true, atom.Object: true, atom.Embed: true,
	atom.Svg: true, atom.Canvas: true, atom.Video: true, atom.Audio: true, atom.Dialog: true,
}

// droppedRoles are ARIA landmarks of the same kinds.
var droppedRoles = map[string]bool{
	"navigation": true, "banner": true, "contentinfo": true, "search": true,
	"complementary": true, "menu": true, "menubar": true, "dialog": true,
}

// prune removes what is not content. A header or footer is the page's
// banner or footer, and dropped, unless it sits inside an article,
// section or main element, where it holds the article's title or notes.
func prune(n *html.Node, inContent bool) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.CommentNode {
			n.RemoveChild(c)
		} else if c.Type == html.ElementNode {
			drop := dropped[c.DataAtom] || droppedRoles[strings.ToLower(attr(c, "role"))] ||
				attr(c, "aria-hidden") == "true" || hasAttr(c, "hidden") ||
				(!inContent && (c.DataAtom == atom.Header || c.DataAtom == atom.Footer))
			if drop {
				n.RemoveChild(c)
			} else {
				prune(c, inContent || c.DataAtom == atom.Article || c.DataAtom == atom.Section || c.DataAtom == atom.Main)
				if c.DataAtom == atom.A && scriptLink(c) {
					// A link that runs code leads nowhere: keep its text.
					for gc := c.FirstChild; gc != nil; gc = c.FirstChild {
						c.RemoveChild(gc)
						n.InsertBefore(gc, c)
					}
					n.RemoveChild(c)
				}
			}
		}
		c = next
	}
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

func scriptLink(n *html.Node) bool {
	h := strings.ToLower(strings.TrimSpace(attr(n, "href")))
	return strings.HasPrefix(h, "javascript:") || strings.HasPrefix(h, "vbscript:") || strings.HasPrefix(h, "data:")
}

// plainText is the text of an HTML page read token by token, without
// building a tree: what is in scripts, styles and the other dropped
// elements is skipped, and block elements start new lines.
func plainText(page []byte) string {
	z := html.NewTokenizer(bytes.NewReader(page))
	var b strings.Builder
	skip := 0 // depth inside dropped elements with text (script, style...)
	for {
		switch tt := z.Next(); tt {
		case html.ErrorToken:
			return strings.TrimSpace(blankLines.ReplaceAllString(b.String(), "\n\n"))
		case html.TextToken:
			if skip == 0 {
				b.WriteString(strings.Join(strings.Fields(string(z.Text())), " "))
				b.WriteByte(' ')
			}
		case html.StartTagToken, html.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			if a == atom.Script || a == atom.Style || a == atom.Noscript || a == atom.Template || a == atom.Textarea || a == atom.Svg {
				if tt == html.StartTagToken {
					skip++
				} else if skip > 0 {
					skip--
				}
			}
			switch a {
			case atom.P, atom.Div, atom.Br, atom.Li, atom.Tr, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Blockquote, atom.Pre, atom.Section, atom.Article:
				b.WriteByte('\n')
			}
		}
	}
}
