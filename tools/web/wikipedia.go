package web

//lint:file-ignore ST1005 error messages start with the service's name, Wikipedia

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/tool"
)

type wikipediaArgs struct {
	Query string `json:"query" jsonschema:"The topic to search on Wikipedia."`
}

func newWikipediaSearch(f *fetcher) (tool.Tool, error) {
	what := "the introduction"
	if f.opts.WikipediaFullText {
		what = "the full text"
	}
	desc := fmt.Sprintf("Searches Wikipedia (%s) and returns %s of the best matching article as plain text, with its title and URL.", f.opts.WikipediaLanguage, what)
	return tool.New("wikipedia_search", desc, func(ctx context.Context, a wikipediaArgs) (string, error) {
		q := strings.TrimSpace(a.Query)
		if q == "" {
			return "", errors.New("the query is empty; pass the topic to look up")
		}
		return f.wikipedia(ctx, q)
	})
}

// mediaWikiError is the error member of a MediaWiki API answer.
type mediaWikiError struct {
	Error *struct {
		Code string `json:"code"`
		Info string `json:"info"`
	} `json:"error"`
}

type mwSearch struct {
	mediaWikiError
	Query struct {
		SearchInfo struct {
			TotalHits  int    `json:"totalhits"`
			Suggestion string `json:"suggestion"`
		} `json:"searchinfo"`
		Search []struct {
			Title string `json:"title"`
		} `json:"search"`
	} `json:"query"`
}

type mwPages struct {
	mediaWikiError
	Query struct {
		Pages []struct {
			Title   string `json:"title"`
			Missing bool   `json:"missing"`
			Extract string `json:"extract"`
			FullURL string `json:"fullurl"`
		} `json:"pages"`
	} `json:"query"`
}

// wikipedia searches (list=search), then fetches the top article's plain
// text extract (prop=extracts, with its URL from prop=info).
func (f *fetcher) wikipedia(ctx context.Context, q string) (string, error) {
	var s mwSearch
	if err := f.mediaWiki(ctx, url.Values{
		"action": {"query"}, "list": {"search"}, "srsearch": {q}, "srlimit": {"1"},
		"srinfo": {"totalhits|suggestion"}, "srprop": {""},
	}, &s); err != nil {
		return "", err
	}
	if len(s.Query.Search) == 0 {
		msg := fmt.Sprintf("no %s Wikipedia article found for %q", f.opts.WikipediaLanguage, q)
		if sug := s.Query.SearchInfo.Suggestion; sug != "" {
			msg += fmt.Sprintf("; did you mean %q?", sug)
		} else {
			msg += "; try other words, a shorter query, or web_search"
		}
		return "", errors.New(msg)
	}
	title := s.Query.Search[0].Title
	params := url.Values{
		"action": {"query"}, "prop": {"extracts|info"}, "inprop": {"url"}, "titles": {title},
		"explaintext": {"1"}, "redirects": {"1"},
	}
	if !f.opts.WikipediaFullText {
		params.Set("exintro", "1")
	}
	var p mwPages
	if err := f.mediaWiki(ctx, params, &p); err != nil {
		return "", err
	}
	if len(p.Query.Pages) == 0 || p.Query.Pages[0].Missing {
		return "", fmt.Errorf("no %s Wikipedia article found for %q (the search named %q, which does not exist any more); try other words", f.opts.WikipediaLanguage, q, title)
	}
	page := p.Query.Pages[0]
	text := strings.TrimSpace(page.Extract)
	if text == "" {
		text = "(the article has no text in this form)"
	}
	out := fmt.Sprintf("## %s\n\n%s\n\nSource: %s", page.Title, text, page.FullURL)
	return executors.CapText(out, f.opts.MaxChars), nil
}

// mediaWiki calls the API with params (as JSON, format version 2) and
// decodes its answer into v, turning API errors into errors.
func (f *fetcher) mediaWiki(ctx context.Context, params url.Values, v any) error {
	u, err := url.Parse(f.opts.Endpoints.Wikipedia)
	if err != nil {
		return fmt.Errorf("endpoint: %v", err)
	}
	params.Set("format", "json")
	params.Set("formatversion", "2")
	u.RawQuery = params.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := f.do(req)
	if err != nil {
		return err
	}
	if resp.status != http.StatusOK {
		return fmt.Errorf("%s answered %d %s; try again later", visibleURL(u), resp.status, http.StatusText(resp.status))
	}
	if resp.truncated {
		return fmt.Errorf("the answer is larger than %d bytes", f.opts.MaxBytes)
	}
	var e mediaWikiError
	if err := json.Unmarshal(resp.body, &e); err != nil {
		return fmt.Errorf("%s's answer is not JSON: %v", visibleURL(u), err)
	}
	if e.Error != nil {
		return fmt.Errorf("Wikipedia refused the query (%s: %s)", e.Error.Code, e.Error.Info)
	}
	if err := json.Unmarshal(resp.body, v); err != nil {
		return fmt.Errorf("%s's answer is not the JSON expected: %v", visibleURL(u), err)
	}
	return nil
}
