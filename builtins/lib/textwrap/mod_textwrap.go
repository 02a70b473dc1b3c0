package textwrap

import (
	"fmt"
	"strings"

	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// textwrap, ported from CPython 3.11's Lib/textwrap.py: TextWrapper's
// chunking regular expressions are matched by hand (with Python's \w and
// \d), then its line-filling loop runs unchanged.

// textWrapper is textwrap.TextWrapper; its options are attributes that
// can be read and set.
type textWrapper struct {
	width                              int
	initialIndent, subsequentIndent    string
	expandTabs, replaceWhitespace      bool
	fixSentenceEndings, breakLongWords bool
	dropWhitespace, breakOnHyphens     bool
	tabsize                            int
	maxLines                           int
	hasMaxLines                        bool // max_lines is not None
	placeholder                        string
}

func newTextWrapper() *textWrapper {
	return &textWrapper{width: 70, expandTabs: true, replaceWhitespace: true, breakLongWords: true,
		dropWhitespace: true, breakOnHyphens: true, tabsize: 8, placeholder: " [...]"}
}

var textWrapperOptions = []string{"width", "initial_indent", "subsequent_indent", "expand_tabs",
	"replace_whitespace", "fix_sentence_endings", "break_long_words", "drop_whitespace",
	"break_on_hyphens", "tabsize", "max_lines", "placeholder"}

// set assigns option name, as TextWrapper's constructor and attributes do
// (CPython checks the types only when it uses them; here they are checked
// at once).
func (w *textWrapper) set(name string, v starlark.Value) error {
	str := func(p *string) error {
		s, ok := v.(starlark.String)
		if !ok {
			return core.Errorf(pyexc.TypeError, "textwrap: %s must be a str, not %s", name, core.TypeName(v))
		}
		*p = string(s)
		return nil
	}
	integer := func(p *int) error {
		n, err := core.IndexInt(v)
		if err != nil {
			return core.Errorf(pyexc.TypeError, "textwrap: %s must be an int, not %s", name, core.TypeName(v))
		}
		*p = n
		return nil
	}
	flag := func(p *bool) error { *p = bool(v.Truth()); return nil }
	switch name {
	case "width":
		return integer(&w.width)
	case "initial_indent":
		return str(&w.initialIndent)
	case "subsequent_indent":
		return str(&w.subsequentIndent)
	case "expand_tabs":
		return flag(&w.expandTabs)
	case "replace_whitespace":
		return flag(&w.replaceWhitespace)
	case "fix_sentence_endings":
		return flag(&w.fixSentenceEndings)
	case "break_long_words":
		return flag(&w.breakLongWords)
	case "drop_whitespace":
		return flag(&w.dropWhitespace)
	case "break_on_hyphens":
		return flag(&w.breakOnHyphens)
	case "tabsize":
		return integer(&w.tabsize)
	case "max_lines":
		w.hasMaxLines = v != starlark.None
		if !w.hasMaxLines {
			return nil
		}
		return integer(&w.maxLines)
	case "placeholder":
		return str(&w.placeholder)
	}
	return core.Errorf(pyexc.TypeError, "TextWrapper.__init__() got an unexpected keyword argument '%s'", name)
}

func (w *textWrapper) get(name string) starlark.Value {
	switch name {
	case "width":
		return starlark.MakeInt(w.width)
	case "initial_indent":
		return starlark.String(w.initialIndent)
	case "subsequent_indent":
		return starlark.String(w.subsequentIndent)
	case "expand_tabs":
		return starlark.Bool(w.expandTabs)
	case "replace_whitespace":
		return starlark.Bool(w.replaceWhitespace)
	case "fix_sentence_endings":
		return starlark.Bool(w.fixSentenceEndings)
	case "break_long_words":
		return starlark.Bool(w.breakLongWords)
	case "drop_whitespace":
		return starlark.Bool(w.dropWhitespace)
	case "break_on_hyphens":
		return starlark.Bool(w.breakOnHyphens)
	case "tabsize":
		return starlark.MakeInt(w.tabsize)
	case "max_lines":
		if !w.hasMaxLines {
			return starlark.None
		}
		return starlark.MakeInt(w.maxLines)
	case "placeholder":
		return starlark.String(w.placeholder)
	}
	return nil
}

func (w *textWrapper) String() string        { return "<textwrap.TextWrapper object>" }
func (w *textWrapper) Type() string          { return "TextWrapper" }
func (w *textWrapper) Freeze()               {}
func (w *textWrapper) Truth() starlark.Bool  { return true }
func (w *textWrapper) Hash() (uint32, error) { return 0, nil }
func (w *textWrapper) PyRepr(*starlark.Thread) (string, error) {
	return fmt.Sprintf("<textwrap.TextWrapper object at %p>", w), nil
}
func (w *textWrapper) PyStr(th *starlark.Thread) (string, error) { return w.PyRepr(th) }

func (w *textWrapper) AttrNames() []string {
	return append([]string{"fill", "wrap"}, textWrapperOptions...)
}

func (w *textWrapper) Attr(name string) (starlark.Value, error) {
	switch name {
	case "wrap", "fill":
		return core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var text string
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &text); err != nil {
				return nil, err
			}
			lines, err := w.wrap(th, text)
			if err != nil {
				return nil, err
			}
			if name == "fill" {
				return starlark.String(strings.Join(lines, "\n")), nil
			}
			return core.StringList(th, lines)
		}), nil
	}
	return w.get(name), nil
}

func (w *textWrapper) SetField(name string, v starlark.Value) error {
	if w.get(name) == nil {
		return core.Errorf(pyexc.AttributeError, "'TextWrapper' object has no attribute '%s'", name)
	}
	return w.set(name, v)
}

// textwrapWhitespace is TextWrapper's whitespace: string.whitespace.
func textwrapWhitespace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ':
		return true
	}
	return false
}

// isWordChar and isLetter are Python's \w and [^\d\W] on str patterns.
func isWordChar(r rune) bool { return r == '_' || core.IsPyAlnum(r) }
func isLetter(r rune) bool   { return isWordChar(r) && !core.IsPyDecimal(r) }

// isWordPunct is TextWrapper's word_punct: [\w!"'&.,?].
func isWordPunct(r rune) bool { return isWordChar(r) || strings.ContainsRune("!\"'&.,?", r) }

// split is TextWrapper._split: the chunks of wordsep_re (or, without
// break_on_hyphens, of wordsep_simple_re), empty ones left out.
func (w *textWrapper) split(rs []rune) []string {
	at := func(i int) rune {
		if i < 0 || i >= len(rs) {
			return -1
		}
		return rs[i]
	}
	letter := func(i int) bool { return i >= 0 && i < len(rs) && isLetter(rs[i]) }
	// emDashAt reports -{2,} followed by \w at i.
	emDashAt := func(i int) (int, bool) {
		j := i
		for at(j) == '-' {
			j++
		}
		return j, j-i >= 2 && j < len(rs) && isWordChar(rs[j])
	}
	var chunks []string
	for i := 0; i < len(rs); {
		if textwrapWhitespace(rs[i]) {
			j := i + 1
			for j < len(rs) && textwrapWhitespace(rs[j]) {
				j++
			}
			chunks = append(chunks, string(rs[i:j]))
			i = j
			continue
		}
		if !w.breakOnHyphens {
			j := i + 1
			for j < len(rs) && !textwrapWhitespace(rs[j]) {
				j++
			}
			chunks = append(chunks, string(rs[i:j]))
			i = j
			continue
		}
		// An em-dash between words.
		if i > 0 && isWordPunct(rs[i-1]) {
			if j, ok := emDashAt(i); ok {
				chunks = append(chunks, string(rs[i:j]))
				i = j
				continue
			}
		}
		// A word, possibly hyphenated: the shortest run of non-space
		// followed by one of the three endings.
		j := i + 1
		for {
			if at(j) == '-' && (letter(j-2) && letter(j-1) || letter(j-3) && at(j-2) == '-' && letter(j-1)) &&
				letter(j+1) && (letter(j+2) || at(j+2) == '-' && letter(j+3)) {
				j++
				break
			}
			if j == len(rs) || textwrapWhitespace(rs[j]) {
				break
			}
			if isWordPunct(rs[j-1]) {
				if _, ok := emDashAt(j); ok {
					break
				}
			}
			j++
		}
		chunks = append(chunks, string(rs[i:j]))
		i = j
	}
	return chunks
}

// sentenceEnd is TextWrapper.sentence_end_re: [a-z][.!?]["']?\Z.
func sentenceEnd(chunk string) bool {
	if strings.HasSuffix(chunk, "\"") || strings.HasSuffix(chunk, "'") {
		chunk = chunk[:len(chunk)-1]
	}
	n := len(chunk)
	return n >= 2 && strings.IndexByte(".!?", chunk[n-1]) >= 0 && chunk[n-2] >= 'a' && chunk[n-2] <= 'z'
}

func isBlank(s string) bool { return strings.TrimFunc(s, core.IsPySpace) == "" }

// wrap is TextWrapper.wrap.
func (w *textWrapper) wrap(th *starlark.Thread, text string) ([]string, error) {
	if w.expandTabs {
		if err := core.Alloc(th, int64(len(text))+int64(strings.Count(text, "\t"))*int64(max(w.tabsize, 0))); err != nil {
			return nil, err
		}
		text = core.ExpandTabs(text, w.tabsize)
	}
	rs := []rune(text)
	if w.replaceWhitespace {
		for i, r := range rs {
			if textwrapWhitespace(r) {
				rs[i] = ' '
			}
		}
	}
	chunks := w.split(rs)
	if w.fixSentenceEndings {
		for i := 0; i < len(chunks)-1; {
			if chunks[i+1] == " " && sentenceEnd(chunks[i]) {
				chunks[i+1] = "  "
				i += 2
			} else {
				i++
			}
		}
	}
	return w.wrapChunks(th, chunks)
}

// wrapChunks is TextWrapper._wrap_chunks.
func (w *textWrapper) wrapChunks(th *starlark.Thread, chunks []string) ([]string, error) {
	var lines []string
	if w.width <= 0 {
		return nil, core.Errorf(pyexc.ValueError, "invalid width %d (must be > 0)", w.width)
	}
	if w.hasMaxLines {
		indent := w.initialIndent
		if w.maxLines > 1 {
			indent = w.subsequentIndent
		}
		if core.PyLen(indent)+core.PyLen(strings.TrimLeftFunc(w.placeholder, core.IsPySpace)) > w.width {
			return nil, core.Errorf(pyexc.ValueError, "placeholder too large for max width")
		}
	}
	// chunks is used as a stack: reverse it.
	for i, j := 0, len(chunks)-1; i < j; i, j = i+1, j-1 {
		chunks[i], chunks[j] = chunks[j], chunks[i]
	}
	top := func() string { return chunks[len(chunks)-1] }
	pop := func() string {
		c := top()
		chunks = chunks[:len(chunks)-1]
		return c
	}
	size := int64(0)
	for n := 0; len(chunks) > 0; n++ {
		if n%core.CheckEvery == core.CheckEvery-1 {
			if err := core.Interrupted(th); err != nil {
				return nil, err
			}
		}
		var cur []string
		curLen := 0
		indent := w.initialIndent
		if len(lines) > 0 {
			indent = w.subsequentIndent
		}
		width := w.width - core.PyLen(indent)
		if w.dropWhitespace && isBlank(top()) && len(lines) > 0 {
			pop()
		}
		for len(chunks) > 0 {
			l := core.PyLen(top())
			if curLen+l > width {
				break
			}
			cur = append(cur, pop())
			curLen += l
		}
		if len(chunks) > 0 && core.PyLen(top()) > width {
			w.handleLongWord(&chunks, &cur, curLen, width)
			curLen = 0
			for _, c := range cur {
				curLen += core.PyLen(c)
			}
		}
		if w.dropWhitespace && len(cur) > 0 && isBlank(cur[len(cur)-1]) {
			curLen -= core.PyLen(cur[len(cur)-1])
			cur = cur[:len(cur)-1]
		}
		if len(cur) == 0 {
			continue
		}
		line := ""
		if !w.hasMaxLines || len(lines)+1 < w.maxLines ||
			(len(chunks) == 0 || w.dropWhitespace && len(chunks) == 1 && isBlank(chunks[0])) && curLen <= width {
			line = indent + strings.Join(cur, "")
			lines = append(lines, line)
		} else {
			done := false
			for len(cur) > 0 {
				last := cur[len(cur)-1]
				if !isBlank(last) && curLen+core.PyLen(w.placeholder) <= width {
					cur = append(cur, w.placeholder)
					lines = append(lines, indent+strings.Join(cur, ""))
					done = true
					break
				}
				curLen -= core.PyLen(last)
				cur = cur[:len(cur)-1]
			}
			if !done {
				if len(lines) > 0 {
					prev := strings.TrimRightFunc(lines[len(lines)-1], core.IsPySpace)
					if core.PyLen(prev)+core.PyLen(w.placeholder) <= w.width {
						lines[len(lines)-1] = prev + w.placeholder
						break
					}
				}
				lines = append(lines, indent+strings.TrimLeftFunc(w.placeholder, core.IsPySpace))
			}
			break
		}
		if size += int64(len(line)) + 16; size > 1<<16 {
			if err := core.Alloc(th, size); err != nil {
				return nil, err
			}
			size = 0
		}
	}
	return lines, nil
}

// handleLongWord is TextWrapper._handle_long_word: a chunk too long for
// any line is cut, after its last hyphen if it has one in reach.
func (w *textWrapper) handleLongWord(chunks *[]string, cur *[]string, curLen, width int) {
	spaceLeft := 1
	if width >= 1 {
		spaceLeft = width - curLen
	}
	stack := *chunks
	switch {
	case w.breakLongWords:
		chunk := []rune(stack[len(stack)-1])
		end := spaceLeft
		if w.breakOnHyphens && len(chunk) > spaceLeft {
			hyphen := -1
			for i := min(spaceLeft, len(chunk)) - 1; i >= 0; i-- {
				if chunk[i] == '-' {
					hyphen = i
					break
				}
			}
			if hyphen > 0 && strings.Trim(string(chunk[:hyphen]), "-") != "" {
				end = hyphen + 1
			}
		}
		end = max(0, min(end, len(chunk)))
		*cur = append(*cur, string(chunk[:end]))
		stack[len(stack)-1] = string(chunk[end:])
	case len(*cur) == 0:
		*cur = append(*cur, stack[len(stack)-1])
		*chunks = stack[:len(stack)-1]
	}
}

// textwrapCall reads the arguments of wrap, fill and shorten: text,
// width (required by shorten), then TextWrapper's options by keyword.
func textwrapCall(name string, args starlark.Tuple, kwargs []starlark.Tuple) (string, *textWrapper, error) {
	var text, width starlark.Value
	var opts []starlark.Tuple
	for _, kv := range kwargs {
		switch kv[0].(starlark.String) {
		case "text":
			if text != nil || len(args) > 0 {
				return "", nil, core.Errorf(pyexc.TypeError, "%s() got multiple values for argument 'text'", name)
			}
			text = kv[1]
		case "width":
			if width != nil || len(args) > 1 {
				return "", nil, core.Errorf(pyexc.TypeError, "%s() got multiple values for argument 'width'", name)
			}
			width = kv[1]
		default:
			opts = append(opts, kv)
		}
	}
	if len(args) > 2 {
		return "", nil, core.Errorf(pyexc.TypeError, "%s() takes from 1 to 2 positional arguments but %d were given", name, len(args))
	}
	if len(args) > 0 {
		text = args[0]
	}
	if len(args) > 1 {
		width = args[1]
	}
	if text == nil {
		return "", nil, core.Errorf(pyexc.TypeError, "%s() missing 1 required positional argument: 'text'", name)
	}
	w := newTextWrapper()
	if width == nil && name == "shorten" {
		return "", nil, core.Errorf(pyexc.TypeError, "shorten() missing 1 required positional argument: 'width'")
	}
	if width != nil {
		if err := w.set("width", width); err != nil {
			return "", nil, err
		}
	}
	if err := textwrapKwargs(w, opts); err != nil {
		return "", nil, err
	}
	s, ok := text.(starlark.String)
	if !ok {
		return "", nil, core.Errorf(pyexc.AttributeError, "'%s' object has no attribute 'expandtabs'", core.TypeName(text))
	}
	return string(s), w, nil
}

func textwrapKwargs(w *textWrapper, kwargs []starlark.Tuple) error {
	for _, kv := range kwargs {
		name := string(kv[0].(starlark.String))
		if w.get(name) == nil {
			return core.Errorf(pyexc.TypeError, "TextWrapper.__init__() got an unexpected keyword argument '%s'", name)
		}
		if err := w.set(name, kv[1]); err != nil {
			return err
		}
	}
	return nil
}

// dedent is textwrap.dedent: the longest common leading run of spaces
// and tabs is removed from every line, and lines of only spaces and tabs
// are emptied.
func dedent(text string) string {
	lines := strings.Split(text, "\n")
	margin, have := "", false
	for i, l := range lines {
		if l != "" && strings.Trim(l, " \t") == "" {
			lines[i] = ""
			continue
		}
		indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if indent == l {
			continue // empty line
		}
		switch {
		case !have:
			margin, have = indent, true
		case strings.HasPrefix(indent, margin):
		case strings.HasPrefix(margin, indent):
			margin = indent
		default:
			j := 0
			for j < len(margin) && j < len(indent) && margin[j] == indent[j] {
				j++
			}
			margin = margin[:j]
		}
	}
	if margin != "" {
		for i, l := range lines {
			lines[i] = strings.TrimPrefix(l, margin)
		}
	}
	return strings.Join(lines, "\n")
}

// splitLinesKeep is str.splitlines(True).
func splitLinesKeep(s string) []string {
	var out []string
	rs := []rune(s)
	start := 0
	for i := 0; i < len(rs); i++ {
		if core.IsLineBreak(rs[i]) {
			if rs[i] == '\r' && i+1 < len(rs) && rs[i+1] == '\n' {
				i++
			}
			out = append(out, string(rs[start:i+1]))
			start = i + 1
		}
	}
	if start < len(rs) {
		out = append(out, string(rs[start:]))
	}
	return out
}

func members() starlark.StringDict {
	// wrap and fill are TextWrapper(width=width, **kwargs).wrap(text).
	wrapFn := func(name string) *starlark.Builtin {
		return core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			text, w, err := textwrapCall(name, args, kwargs)
			if err != nil {
				return nil, err
			}
			lines, err := w.wrap(th, text)
			if err != nil {
				return nil, err
			}
			if name == "fill" {
				return starlark.String(strings.Join(lines, "\n")), nil
			}
			return core.StringList(th, lines)
		})
	}
	return starlark.StringDict{
		"wrap": wrapFn("wrap"),
		"fill": wrapFn("fill"),
		"TextWrapper": core.Fn("TextWrapper", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			w := newTextWrapper()
			if len(args) > len(textWrapperOptions)-2 {
				return nil, core.Errorf(pyexc.TypeError, "TextWrapper.__init__() takes from 1 to %d positional arguments but %d were given", len(textWrapperOptions)-1, len(args)+1)
			}
			for i, a := range args {
				if err := w.set(textWrapperOptions[i], a); err != nil {
					return nil, err
				}
			}
			if err := textwrapKwargs(w, kwargs); err != nil {
				return nil, err
			}
			return w, nil
		}),
		"shorten": core.Fn("shorten", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			// TextWrapper(width=width, max_lines=1, **kwargs).fill(
			// ' '.join(text.strip().split()))
			text, w, err := textwrapCall("shorten", args, append([]starlark.Tuple{{starlark.String("max_lines"), starlark.MakeInt(1)}}, kwargs...))
			if err != nil {
				return nil, err
			}
			lines, err := w.wrap(th, strings.Join(core.SplitWhitespace(text, -1, false), " "))
			if err != nil {
				return nil, err
			}
			return starlark.String(strings.Join(lines, "\n")), nil
		}),
		"dedent": core.Fn("dedent", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var s string
			if err := starlark.UnpackPositionalArgs("dedent", args, kwargs, 1, &s); err != nil {
				return nil, err
			}
			return starlark.String(dedent(s)), nil
		}),
		"indent": core.Fn("indent", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var s, prefix string
			var pred starlark.Value = starlark.None
			if err := starlark.UnpackArgs("indent", args, kwargs, "text", &s, "prefix", &prefix, "predicate?", &pred); err != nil {
				return nil, err
			}
			var b strings.Builder
			lines := splitLinesKeep(s)
			if err := core.Alloc(th, int64(len(s))+int64(len(lines))*int64(len(prefix))); err != nil {
				return nil, err
			}
			for i, line := range lines {
				if i%core.CheckEvery == core.CheckEvery-1 {
					if err := core.Interrupted(th); err != nil {
						return nil, err
					}
				}
				add := !isBlank(line)
				if pred != starlark.None {
					r, err := starlark.Call(th, pred, starlark.Tuple{starlark.String(line)}, nil)
					if err != nil {
						return nil, err
					}
					add = bool(r.Truth())
				}
				if add {
					b.WriteString(prefix)
				}
				b.WriteString(line)
			}
			return starlark.String(b.String()), nil
		}),
	}
}

// Module returns a new textwrap module.
func Module() *core.PyModule { return core.NewModule("textwrap", members()) }
