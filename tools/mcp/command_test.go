package mcp

import (
	"reflect"
	"strings"
	"testing"
)

func TestSplitCommand(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"npx -y @modelcontextprotocol/server-everything", []string{"npx", "-y", "@modelcontextprotocol/server-everything"}},
		{"  uvx   mcp-server-fetch\t--ignore-robots-txt \n", []string{"uvx", "mcp-server-fetch", "--ignore-robots-txt"}},
		{`server --root '/data/my files' --name "it's mine"`, []string{"server", "--root", "/data/my files", "--name", "it's mine"}},
		{`a 'b'"c"d e`, []string{"a", "bcd", "e"}},
		{`a '' ""`, []string{"a", "", ""}},
		{`a b\ c \'d\'`, []string{"a", "b c", "'d'"}},
		{`"a \"q\" \\ \$HOME \x"`, []string{`a "q" \ $HOME \x`}},
		{"a 'single $HOME | ; ~'", []string{"a", "single $HOME | ; ~"}},
		{"a \\\nb", []string{"a", "b"}},
		{"\"a\\\nb\"", []string{"ab"}},
		{"cost=$5 a~b", []string{"cost=$5", "a~b"}}, // $ before a digit... is a positional parameter in sh
		{"", nil},
		{"   ", nil},
		{"naïve 'é'", []string{"naïve", "é"}},
	}
	for _, c := range cases {
		got, err := SplitCommand(c.in)
		if c.in == "cost=$5 a~b" {
			// $5 would be expanded by a shell: refused.
			if err == nil {
				t.Errorf("SplitCommand(%q) = %q, want an error", c.in, got)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestSplitCommandErrors(t *testing.T) {
	cases := map[string]string{
		`a 'b`:            "unterminated single quote",
		`a "b`:            "unterminated double quote",
		`a "b\"`:          "unterminated double quote",
		`a \`:             "trailing backslash",
		`a | b`:           `unquoted "|"`,
		`a > log`:         `unquoted ">"`,
		`a; rm -rf x`:     `unquoted ";"`,
		`a && b`:          `unquoted "&"`,
		`a $TOKEN`:        `unquoted "$"`,
		`a ${TOKEN}`:      `unquoted "$"`,
		`a $(id)`:         `unquoted "$"`,
		"a `id`":          "unquoted \"`\"",
		`a "$TOKEN"`:      `"$T" would be expanded by a shell`,
		"a \"`id`\"":      "\"`i\" would be expanded by a shell",
		`a ~/server.py`:   `unquoted "~"`,
		`(a)`:             `unquoted "("`,
		`a < /etc/passwd`: `unquoted "<"`,
	}
	for in, want := range cases {
		got, err := SplitCommand(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want an error with %q", in, got, err, want)
		}
	}
}

func TestQuoteArgRoundTrip(t *testing.T) {
	args := []string{"plain", "", "with space", "it's", `back\slash`, "$HOME", "a|b", "~x", "naïve", `"q"`, "tab\there", "new\nline"}
	line := quoteCommand(args)
	got, err := SplitCommand(line)
	if err != nil || !reflect.DeepEqual(got, args) {
		t.Errorf("SplitCommand(%q) = %q, %v; want %q", line, got, err, args)
	}
}
