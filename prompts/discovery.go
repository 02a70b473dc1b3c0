package prompts

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/star-agent/star-agent/tool"
)

// Discovery at scale: when an agent has more tools than its system prompt
// can show as stubs, the prompt lists them by group (ListTools) and the
// code finds the stubs it needs with search_tools(query) (Search) and
// help(tool) (Stub).

// DefaultToolListBudget is the size in bytes of the tool listing of a
// system prompt in discovery mode, about 500 tokens at four bytes a
// token: with the stubs of search_tools and help and the text that
// explains them, it keeps the first prompt of an agent with hundreds of
// tools within twice the size of one with a single tool (whose prompt
// is about 4,100 bytes).
const DefaultToolListBudget = 2000

// Detail levels of a tool listing, richest first.
const (
	// ListSummaries lists every tool with the first sentence of its
	// description.
	ListSummaries = "summaries"
	// ListNames lists every tool's name.
	ListNames = "names"
	// ListCounts lists each group with its number of tools and the words
	// their names are made of, most common first, as many as fit.
	ListCounts = "counts"
)

// ownGroup names the tools that have no Group.
const ownGroup = "this agent's tools"

// ListTools renders the tools grouped by Spec.Group (the agent's own tools
// first, then the groups by name; tools by name within a group) at the
// richest detail whose text fits in budget bytes (DefaultToolListBudget
// when budget <= 0). It returns the text and the detail level used.
func ListTools(specs []tool.Spec, budget int) (text, detail string) {
	if budget <= 0 {
		budget = DefaultToolListBudget
	}
	groups := groupTools(specs)
	if s := listSummaries(groups); len(s) <= budget {
		return s, ListSummaries
	}
	if s := listNames(groups); len(s) <= budget {
		return s, ListNames
	}
	return listCounts(groups, budget), ListCounts
}

type toolGroup struct {
	name  string
	tools []tool.Spec
}

func groupTools(specs []tool.Spec) []toolGroup {
	by := map[string][]tool.Spec{}
	for _, s := range specs {
		by[s.Group] = append(by[s.Group], s)
	}
	var names []string
	for g := range by {
		if g != "" {
			names = append(names, g)
		}
	}
	slices.Sort(names)
	if _, ok := by[""]; ok {
		names = append([]string{""}, names...)
	}
	out := make([]toolGroup, 0, len(names))
	for _, g := range names {
		tools := slices.Clone(by[g])
		slices.SortFunc(tools, func(a, b tool.Spec) int { return strings.Compare(a.Name, b.Name) })
		label := g
		if label == "" {
			label = ownGroup
		}
		out = append(out, toolGroup{name: label, tools: tools})
	}
	return out
}

func groupHeader(g toolGroup) string {
	if len(g.tools) == 1 {
		return g.name + " (1 tool)"
	}
	return fmt.Sprintf("%s (%d tools)", g.name, len(g.tools))
}

func listSummaries(groups []toolGroup) string {
	var b strings.Builder
	for i, g := range groups {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(groupHeader(g))
		b.WriteString(":\n")
		for _, t := range g.tools {
			b.WriteString("- ")
			b.WriteString(t.Name)
			if s := Summary(t.Description); s != "" {
				b.WriteString(": ")
				b.WriteString(s)
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func listNames(groups []toolGroup) string {
	var b strings.Builder
	for _, g := range groups {
		b.WriteString(groupHeader(g))
		b.WriteString(": ")
		for i, t := range g.tools {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(t.Name)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// listCounts shows each group's number of tools and the words their
// names are made of, most common first (what a search_tools query can
// use), each group taking an equal share of the budget.
func listCounts(groups []toolGroup, budget int) string {
	var b strings.Builder
	const lead = "; words in their names: "
	headers := 0
	for _, g := range groups {
		headers += len(groupHeader(g)) + len(lead) + len(", ...\n")
	}
	share := max((budget-headers)/max(len(groups), 1), 0)
	for _, g := range groups {
		b.WriteString(groupHeader(g))
		count := map[string]int{}
		for _, t := range g.tools {
			for _, w := range uniqueWords(t.Name) {
				count[w]++
			}
		}
		ws := make([]string, 0, len(count))
		for w := range count {
			ws = append(ws, w)
		}
		slices.SortFunc(ws, func(a, b string) int {
			if count[a] != count[b] {
				return count[b] - count[a]
			}
			return strings.Compare(a, b)
		})
		used, shown := 0, 0
		for _, w := range ws {
			if used+len(w)+2 > share {
				break
			}
			if shown == 0 {
				b.WriteString(lead)
			} else {
				b.WriteString(", ")
			}
			b.WriteString(w)
			used += len(w) + 2
			shown++
		}
		if shown > 0 && shown < len(ws) {
			b.WriteString(", ...")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// Summary is the first sentence of a description, at most 100 characters:
// what a tool listing shows of a tool.
func Summary(description string) string {
	s := strings.TrimSpace(description)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > 100 {
		s = strings.TrimSpace(string(r[:97])) + "..."
	}
	return s
}

// DefaultSearchLimit is how many tools Search returns when asked for no
// particular number.
const DefaultSearchLimit = 5

// Match is a tool Search found, with its score.
type Match struct {
	Spec  tool.Spec
	Score int
}

// Search ranks tools against a query and returns the best limit of them
// (DefaultSearchLimit when limit <= 0), best first, ties by name. Tools
// that share no word with the query are left out.
//
// The score is simple enough to explain to a model. The query and each
// tool are cut into lowercase words (at spaces, punctuation, underscores
// and lower-to-upper case changes), and a trailing "s" is dropped from
// words of more than three letters so that plurals match. Each distinct
// word of the query adds 3 when it is a word of the tool's name, else 1
// when it is a word of the tool's description, group, or inputs' names and
// descriptions. Common English words ("the", "for", ...) count for
// nothing. A query that is a tool's exact name adds 10 more.
func Search(specs []tool.Spec, query string, limit int) []Match {
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	q := uniqueWords(query)
	exact := strings.ToLower(strings.TrimSpace(query))
	var out []Match
	for _, s := range specs {
		name := wordSet(s.Name)
		var other strings.Builder
		other.WriteString(s.Description)
		other.WriteByte(' ')
		other.WriteString(s.Group)
		for _, in := range s.Inputs {
			other.WriteByte(' ')
			other.WriteString(in.Name)
			other.WriteByte(' ')
			other.WriteString(in.Description)
		}
		desc := wordSet(other.String())
		score := 0
		for _, w := range q {
			switch {
			case stopWords[w]:
			case name[w]:
				score += 3
			case desc[w]:
				score++
			}
		}
		if strings.ToLower(s.Name) == exact {
			score += 10
		}
		if score > 0 {
			out = append(out, Match{Spec: s, Score: score})
		}
	}
	slices.SortStableFunc(out, func(a, b Match) int {
		if a.Score != b.Score {
			return b.Score - a.Score
		}
		return strings.Compare(a.Spec.Name, b.Spec.Name)
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// SearchText is what search_tools returns to the code: the stubs of the
// matches, best first, or what to do when nothing matched.
func SearchText(query string, matches []Match, total int) string {
	if len(matches) == 0 {
		return fmt.Sprintf("No tool matches %s among the %d tools. Try other words (a tool's name, or what it does), or read the tool list in the system prompt.", reprish(query), total)
	}
	var b strings.Builder
	if len(matches) == 1 {
		fmt.Fprintf(&b, "1 tool matches %s:\n", reprish(query))
	} else {
		fmt.Fprintf(&b, "%d tools match %s, best first:\n", len(matches), reprish(query))
	}
	for _, m := range matches {
		b.WriteByte('\n')
		if m.Spec.Group != "" {
			fmt.Fprintf(&b, "# from %s\n", m.Spec.Group)
		}
		b.WriteString(Stub(m.Spec))
		b.WriteByte('\n')
	}
	return b.String()
}

// words cuts s into lowercase words: at anything that is not a letter or
// a digit, and where a lowercase letter is followed by an uppercase one.
func words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			w := strings.ToLower(string(cur))
			if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
				w = w[:len(w)-1]
			}
			out = append(out, w)
			cur = cur[:0]
		}
	}
	var prev rune
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && unicode.IsLower(prev) {
				flush()
			}
			cur = append(cur, r)
		default:
			flush()
		}
		prev = r
	}
	flush()
	return out
}

// stopWords are words too common to tell tools apart.
var stopWords = wordList("a an the of for to in on at by and or with from into is are be it its this that these me my i you your we our what which how do does can all any some")

func wordList(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range words(s) {
		m[w] = true
	}
	return m
}

func uniqueWords(s string) []string {
	var out []string
	for _, w := range words(s) {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}
