package starlarkagent

import (
	"regexp"
	"strings"
)

// DefaultCodeBlockTags delimit code blocks unless Options.CodeBlockTags says
// otherwise.
var DefaultCodeBlockTags = [2]string{"<code>", "</code>"}

// MarkdownCodeBlockTags makes the model write markdown fences instead.
var MarkdownCodeBlockTags = [2]string{"```python", "```"}

// fence matches a markdown code block (```py, ```python or bare ```).
var fence = regexp.MustCompile("(?s)```(?:python|py|Python|py3)?[ \\t]*\\n(.*?)\\n?```")

// codeParser finds the code of a model output.
type codeParser struct {
	open, close string
	tagged      *regexp.Regexp // nil when the tags are markdown fences
	// checkSyntax is the executor's (executors.SyntaxChecker); nil when it
	// has none, and then an output without a code block is never code.
	checkSyntax func(code string) error
}

func newCodeParser(tags [2]string, checkSyntax func(code string) error) codeParser {
	p := codeParser{open: tags[0], close: tags[1], checkSyntax: checkSyntax}
	if !strings.HasPrefix(p.open, "```") {
		p.tagged = regexp.MustCompile("(?s)" + regexp.QuoteMeta(p.open) + "(.*?)" + regexp.QuoteMeta(p.close))
	}
	return p
}

// complete appends the closing tag when the output opened a code block and
// stopped before closing it, which is what the closing tag as a stop
// sequence makes a server do.
func (p codeParser) complete(out string) string {
	if p.tagged == nil {
		if strings.Count(out, "```")%2 == 1 {
			return strings.TrimRight(out, " \t\n") + "\n```"
		}
		return out
	}
	if strings.Count(out, p.open) > strings.Count(out, p.close) {
		return out + p.close
	}
	return out
}

// parse returns the code of all code blocks of out, joined. It tries the
// configured tags first, then the other style, since models trained on
// either slip into the other, and last the whole output if it is a Python
// program (see isBareCode).
func (p codeParser) parse(out string) (string, bool) {
	var blocks []string
	if p.tagged != nil {
		for _, m := range p.tagged.FindAllStringSubmatch(out, -1) {
			blocks = append(blocks, unfence(m[1]))
		}
	}
	if len(blocks) == 0 {
		for _, m := range fence.FindAllStringSubmatch(out, -1) {
			blocks = append(blocks, m[1])
		}
	}
	if len(blocks) == 0 && p.tagged == nil {
		if code, ok := newCodeParser(DefaultCodeBlockTags, p.checkSyntax).parse(out); ok {
			return code, true
		}
	}
	if len(blocks) == 0 && p.isBareCode(out) {
		return strings.TrimSpace(out), true
	}
	code := strings.TrimSpace(strings.Join(blocks, "\n\n"))
	return code, code != ""
}

// isBareCode reports whether a model output without any code block is
// itself a Python program, as the reference agent accepts: it must parse as
// Python by the executor's check (Python the executor cannot run still
// counts, since another engine may run it) and do something, a call, an
// assignment or an import, so that a one-word reply such as "Done." stays a
// format error.
func (p codeParser) isBareCode(out string) bool {
	t := strings.TrimSpace(out)
	if p.checkSyntax == nil || t == "" || !strings.ContainsAny(t, "(=") && !strings.Contains(t, "import ") {
		return false
	}
	return p.checkSyntax(t) == nil
}

// unfence removes a markdown fence a model put inside the tags.
func unfence(s string) string {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "```") {
		if m := fence.FindStringSubmatch(t); m != nil {
			return m[1]
		}
		t = strings.TrimPrefix(t, "```")
		if i := strings.IndexByte(t, '\n'); i >= 0 && !strings.Contains(t[:i], " ") {
			t = t[i+1:]
		}
	}
	return strings.TrimSuffix(strings.TrimSpace(t), "<end_code>")
}
