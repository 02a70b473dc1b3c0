package mcp

import (
	"fmt"
	"strings"
)

// SplitCommand splits a command line into words the way a POSIX shell
// does, without running one: words are separated by blanks; single quotes
// keep everything literally; double quotes keep everything but \", \\, \$
// and \` (and a backslash-newline, which disappears); outside quotes a
// backslash keeps the next character. Nothing is expanded, so what a
// shell would expand or interpret (an unquoted or double-quoted $VAR or
// $(...), a backquote, an unquoted |, &, ;, <, >, (, ) or a leading ~) is
// an error that says so, rather than a word the server gets by surprise.
func SplitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case r == '\'':
			inWord = true
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			if j == len(rs) {
				return nil, fmt.Errorf("unterminated single quote in %q", s)
			}
			cur.WriteString(string(rs[i+1 : j]))
			i = j
		case r == '"':
			inWord = true
			j := i + 1
			for ; j < len(rs) && rs[j] != '"'; j++ {
				switch c := rs[j]; {
				case c == '\\' && j+1 < len(rs) && strings.ContainsRune("\"\\$`\n", rs[j+1]):
					if rs[j+1] != '\n' {
						cur.WriteRune(rs[j+1])
					}
					j++
				case c == '`' || (c == '$' && j+1 < len(rs) && isExpansionStart(rs[j+1])):
					return nil, fmt.Errorf("%q would be expanded by a shell, but the command is not run by one: write the value itself, or run a shell explicitly (sh -c '...')", string(rs[j:min(j+2, len(rs))]))
				default:
					cur.WriteRune(c)
				}
			}
			if j == len(rs) {
				return nil, fmt.Errorf("unterminated double quote in %q", s)
			}
			i = j
		case r == '\\':
			if i+1 == len(rs) {
				return nil, fmt.Errorf("trailing backslash in %q", s)
			}
			i++
			if rs[i] != '\n' {
				inWord = true
				cur.WriteRune(rs[i])
			}
		case strings.ContainsRune("|&;<>()`", r) || (r == '$' && i+1 < len(rs) && isExpansionStart(rs[i+1])) || (r == '~' && !inWord):
			return nil, fmt.Errorf("unquoted %q in %q: the command is not run by a shell, so pipes, redirections, variables and ~ mean nothing; quote it to pass it literally, or run a shell explicitly (sh -c '...')", string(r), s)
		default:
			inWord = true
			cur.WriteRune(r)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

func isExpansionStart(r rune) bool {
	return r == '{' || r == '(' || r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') ||
		strings.ContainsRune("@*#?$!-", r)
}

// QuoteArg quotes a word for a POSIX shell if it needs quoting, so that
// SplitCommand gives it back.
func QuoteArg(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
