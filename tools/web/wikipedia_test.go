package web

import (
	"strings"
	"testing"
)

func TestWikipedia(t *testing.T) {
	n := newTestNet(t)
	wiki := n.tool("wikipedia_search", n.options())
	out, err := call(t, wiki, map[string]any{"query": "gopher language"})
	if err != nil {
		t.Fatal(err)
	}
	want := `## Go (programming language)

Go is a high-level general purpose programming language that is statically typed and compiled. It is known for the simplicity of its syntax and the efficiency of development that it enables by the inclusion of a large standard library supplying many needs for common projects. It was designed at Google in 2007 by Robert Griesemer, Rob Pike, and Ken Thompson, and publicly announced in November of 2009.

Source: https://en.wikipedia.org/wiki/Go_(programming_language)`
	if out != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}

	_, err = call(t, wiki, map[string]any{"query": "golang programing langauge"})
	if err == nil || err.Error() != `no en Wikipedia article found for "golang programing langauge"; did you mean "golang programming language"?` {
		t.Errorf("no article: %v", err)
	}
	_, err = call(t, wiki, map[string]any{"query": "maxlag"})
	if err == nil || err.Error() != "Wikipedia refused the query (maxlag: Waiting for 10.64.48.12: 6 seconds lagged.)" {
		t.Errorf("API error: %v", err)
	}
	_, err = call(t, wiki, map[string]any{"query": ""})
	if err == nil || !strings.Contains(err.Error(), "the query is empty") {
		t.Errorf("empty query: %v", err)
	}

	opts := n.options()
	opts.WikipediaFullText = true
	out, err = call(t, n.tool("wikipedia_search", opts), map[string]any{"query": "gopher language"})
	if err != nil || !strings.Contains(out, "\n\nFULL TEXT\n\n") {
		t.Errorf("full text: %v\n%s", err, out)
	}
	opts = n.options()
	opts.MaxChars = 100
	out, err = call(t, n.tool("wikipedia_search", opts), map[string]any{"query": "gopher language"})
	if err != nil || !strings.HasSuffix(out, " characters cut]") {
		t.Errorf("MaxChars: %v\n%s", err, out)
	}
}

func TestWikipediaLanguage(t *testing.T) {
	for _, lang := range []string{"en", "fr", "pt-br", "zh-min-nan", "simple"} {
		if _, err := Tools([]string{"wikipedia_search"}, Options{WikipediaLanguage: lang}); err != nil {
			t.Errorf("%s: %v", lang, err)
		}
	}
	// The language becomes part of a host name: nothing else may.
	for _, lang := range []string{"evil.com/", "en.evil", "EN", "e", "x@10.0.0.1", "en:80", "-en", "en-"} {
		if _, err := Tools([]string{"wikipedia_search"}, Options{WikipediaLanguage: lang}); err == nil || !strings.Contains(err.Error(), "is not a language code") {
			t.Errorf("%q: %v", lang, err)
		}
	}
	ts, _ := Tools([]string{"wikipedia_search"}, Options{WikipediaLanguage: "fr"})
	if d := ts[0].Spec().Description; !strings.Contains(d, "Searches Wikipedia (fr)") {
		t.Errorf("description: %s", d)
	}
}
