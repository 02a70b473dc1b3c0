package web

//lint:file-ignore ST1005 error messages start with the service's name, Brave Search

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/tool"
)

// Result is one web search result.
type Result struct {
	Title   string
	URL     string
	Snippet string
}

type searchArgs struct {
	Query string `json:"query" jsonschema:"The search query to perform."`
}

// newWebSearch is web_search: the key-less DuckDuckGo HTML endpoint, or
// Brave's API when a key is set. It returns Markdown, as smolagents' tool
// does: models read it directly as an observation, and its shape is the
// one they have seen most.
func newWebSearch(f *fetcher) (tool.Tool, error) {
	engine := "DuckDuckGo"
	search := f.duckDuckGo
	if f.opts.BraveAPIKey != "" {
		engine, search = "Brave Search", f.brave
	}
	desc := fmt.Sprintf("Performs a web search (%s) for a query and returns the top results formatted as Markdown: a link with the title, then a snippet, for each result.", engine)
	return tool.New("web_search", desc, func(ctx context.Context, a searchArgs) (string, error) {
		q := strings.TrimSpace(a.Query)
		if q == "" {
			return "", errors.New("the query is empty; pass the words to search for")
		}
		results, err := search(ctx, q)
		if err != nil {
			return "", err
		}
		if len(results) == 0 {
			return "", fmt.Errorf("no results for %q; try a shorter or broader query", q)
		}
		if len(results) > f.opts.MaxResults {
			results = results[:f.opts.MaxResults]
		}
		return executors.CapText(FormatResults(results), f.opts.MaxChars), nil
	})
}

// FormatResults writes results as smolagents' web_search does:
// "## Search Results", then "[title](url)\nsnippet" for each.
func FormatResults(results []Result) string {
	var b strings.Builder
	b.WriteString("## Search Results\n")
	for _, r := range results {
		title := strings.NewReplacer("[", `\[`, "]", `\]`).Replace(r.Title)
		link := strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29").Replace(r.URL)
		fmt.Fprintf(&b, "\n[%s](%s)\n%s\n", title, link, r.Snippet)
	}
	return b.String()
}

// duckDuckGo posts the query to DuckDuckGo's HTML endpoint, the form its
// key-less page submits, and reads the results from the page.
func (f *fetcher) duckDuckGo(ctx context.Context, q string) ([]Result, error) {
	form := url.Values{"q": {q}, "b": {""}, "kl": {""}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.opts.Endpoints.DuckDuckGo, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("DuckDuckGo endpoint: %v", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "text/html")
	resp, err := f.do(req)
	if err != nil {
		return nil, err
	}
	// DuckDuckGo answers automated-looking traffic with 202 and a
	// challenge page instead of results.
	if resp.status == http.StatusAccepted || bytes.Contains(resp.body, []byte("anomaly-modal")) {
		return nil, errors.New("DuckDuckGo took the query for automated traffic and answered with a challenge page instead of results; wait a minute before searching again, or use another source (visit_webpage, wikipedia_search)")
	}
	if resp.status != http.StatusOK {
		return nil, fmt.Errorf("DuckDuckGo answered %d %s; try again later", resp.status, http.StatusText(resp.status))
	}
	return ParseDuckDuckGo(resp.body)
}

// ParseDuckDuckGo reads the results of a page of DuckDuckGo's HTML
// endpoint: each organic result is a div of class "result" with an
// a.result__a (title, and a redirect link through duckduckgo.com/l/ whose
// uddg parameter is the target) and an a.result__snippet. Ads (result--ad)
// are skipped.
func ParseDuckDuckGo(page []byte) ([]Result, error) {
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return nil, fmt.Errorf("DuckDuckGo's page cannot be read: %v", err)
	}
	var results []Result
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.DataAtom == atom.Div && hasClass(n, "result") {
			if !hasClass(n, "result--ad") {
				if r, ok := ddgResult(n); ok {
					results = append(results, r)
				}
			}
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return results, nil
}

func ddgResult(n *html.Node) (Result, bool) {
	var r Result
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch {
			case hasClass(n, "result__a") && r.URL == "":
				r.Title = textOf(n)
				r.URL = ddgTarget(attr(n, "href"))
				return
			case hasClass(n, "result__snippet") && r.Snippet == "":
				r.Snippet = textOf(n)
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return r, r.URL != "" && r.Title != ""
}

// ddgTarget decodes DuckDuckGo's redirect links
// (//duckduckgo.com/l/?uddg=https%3A%2F%2F...&rut=...) to their target;
// ad links (duckduckgo.com/y.js) and anything not http(s) give "".
func ddgTarget(href string) string {
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	if strings.HasSuffix(u.Host, "duckduckgo.com") || u.Host == "" {
		if u.Path != "/l/" && u.Path != "/l" {
			return ""
		}
		target := u.Query().Get("uddg")
		if u, err = url.Parse(target); err != nil {
			return ""
		}
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return ""
	}
	return u.String()
}

type braveAnswer struct {
	Web struct {
		Results []struct {
			Title       string `json:"title"`
			URL         string `json:"url"`
			Description string `json:"description"`
		} `json:"results"`
	} `json:"web"`
}

type braveError struct {
	Type  string `json:"type"`
	Error struct {
		Code   string `json:"code"`
		Detail string `json:"detail"`
		Status int    `json:"status"`
	} `json:"error"`
}

// brave asks the Brave Search API's web endpoint.
func (f *fetcher) brave(ctx context.Context, q string) ([]Result, error) {
	u, err := url.Parse(f.opts.Endpoints.Brave)
	if err != nil {
		return nil, fmt.Errorf("Brave endpoint: %v", err)
	}
	query := u.Query()
	query.Set("q", q)
	query.Set("count", strconv.Itoa(min(f.opts.MaxResults, 20))) // the API's maximum
	u.RawQuery = query.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("Brave endpoint: %v", err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Subscription-Token", f.opts.BraveAPIKey)
	resp, err := f.do(req)
	if err != nil {
		return nil, err
	}
	if resp.truncated {
		return nil, fmt.Errorf("Brave Search's answer is larger than %d bytes", f.opts.MaxBytes)
	}
	if resp.status != http.StatusOK {
		var e braveError
		detail := http.StatusText(resp.status)
		if json.Unmarshal(resp.body, &e) == nil && e.Error.Code != "" {
			detail = e.Error.Code + ": " + e.Error.Detail
		}
		switch resp.status {
		case http.StatusUnauthorized, http.StatusForbidden:
			return nil, fmt.Errorf("Brave Search refused the API key (%s); searching will not work until the operator sets a valid BRAVE_API_KEY, so use other sources (visit_webpage, wikipedia_search)", detail)
		case http.StatusTooManyRequests:
			wait := ""
			if reset := strings.TrimSpace(strings.Split(resp.header.Get("X-RateLimit-Reset"), ",")[0]); reset != "" {
				wait = " in " + reset + " s"
			}
			return nil, fmt.Errorf("Brave Search's rate limit is reached (%s); search again%s, or use fewer searches", detail, wait)
		}
		return nil, fmt.Errorf("Brave Search answered %d (%s); try again later", resp.status, detail)
	}
	var a braveAnswer
	if err := json.Unmarshal(resp.body, &a); err != nil {
		return nil, fmt.Errorf("Brave Search's answer is not the JSON expected: %v", err)
	}
	var out []Result
	for _, r := range a.Web.Results {
		out = append(out, Result{Title: stripTags(r.Title), URL: r.URL, Snippet: stripTags(r.Description)})
	}
	return out, nil
}

// stripTags keeps the text of an HTML fragment (Brave marks the query's
// words with <strong>).
func stripTags(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return s
	}
	nodes, err := html.ParseFragment(strings.NewReader(s), &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div})
	if err != nil {
		return s
	}
	var b strings.Builder
	for _, n := range nodes {
		rawText(&b, n)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

func hasClass(n *html.Node, class string) bool {
	for _, a := range n.Attr {
		if a.Key == "class" {
			for _, c := range strings.Fields(a.Val) {
				if c == class {
					return true
				}
			}
		}
	}
	return false
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// textOf is the text of n with runs of white space made one space.
func textOf(n *html.Node) string {
	var b strings.Builder
	rawText(&b, n)
	return strings.Join(strings.Fields(b.String()), " ")
}

func rawText(b *strings.Builder, n *html.Node) {
	if n.Type == html.TextNode {
		b.WriteString(n.Data)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		rawText(b, c)
	}
}
