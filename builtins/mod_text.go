package builtins

import (
	"strings"
	"unicode"

	"go.starlark.net/starlark"
	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/unicode/runenames"
)

// string, textwrap and unicodedata.

func stringModule() starlark.StringDict {
	lower := "abcdefghijklmnopqrstuvwxyz"
	upper := strings.ToUpper(lower)
	punct := "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
	ws := " \t\n\r\x0b\x0c"
	return starlark.StringDict{
		"ascii_lowercase": starlark.String(lower),
		"ascii_uppercase": starlark.String(upper),
		"ascii_letters":   starlark.String(lower + upper),
		"digits":          starlark.String("0123456789"),
		"hexdigits":       starlark.String("0123456789abcdefABCDEF"),
		"octdigits":       starlark.String("01234567"),
		"punctuation":     starlark.String(punct),
		"whitespace":      starlark.String(ws),
		"printable":       starlark.String("0123456789" + lower + upper + punct + ws),
		"capwords": fn("capwords", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var s string
			var sep starlark.Value = starlark.None
			if err := starlark.UnpackPositionalArgs("capwords", args, kwargs, 1, &s, &sep); err != nil {
				return nil, err
			}
			var words []string
			joiner := " "
			if sep == starlark.None {
				words = strings.Fields(s)
			} else {
				joiner = string(sep.(starlark.String))
				words = strings.Split(s, joiner)
			}
			for i, w := range words {
				if w != "" {
					r := []rune(strings.ToLower(w))
					r[0] = unicode.ToUpper(r[0])
					words[i] = string(r)
				}
			}
			return starlark.String(strings.Join(words, joiner)), nil
		}),
	}
}

// wrapText is textwrap.wrap with TextWrapper's defaults: tabs expanded,
// whitespace collapsed to spaces, words broken on hyphens and, when longer
// than the width, anywhere.
func wrapText(text string, width int, initial, subsequent string, breakLong, breakHyphens bool, maxLines int, placeholder string) ([]string, error) {
	if width <= 0 {
		return nil, Errorf("ValueError", "invalid width %d (must be > 0)", width)
	}
	text = strings.ReplaceAll(text, "\t", "        ")
	text = strings.Map(func(r rune) rune {
		if isPySpace(r) {
			return ' '
		}
		return r
	}, text)
	// Chunks alternate words and runs of spaces, as TextWrapper splits.
	var chunks []string
	for _, f := range splitKeepSpaces(text) {
		if breakHyphens && !strings.HasPrefix(f, " ") {
			chunks = append(chunks, splitHyphens(f)...)
		} else {
			chunks = append(chunks, f)
		}
	}
	// Reverse for popping from the end, as CPython does.
	for i, j := 0, len(chunks)-1; i < j; i, j = i+1, j-1 {
		chunks[i], chunks[j] = chunks[j], chunks[i]
	}
	var lines []string
	for len(chunks) > 0 {
		var cur []string
		curLen := 0
		indent := subsequent
		if len(lines) == 0 {
			indent = initial
		}
		w := width - pyLen(indent)
		if len(lines) > 0 && strings.TrimSpace(chunks[len(chunks)-1]) == "" {
			chunks = chunks[:len(chunks)-1]
		}
		for len(chunks) > 0 {
			l := pyLen(chunks[len(chunks)-1])
			if curLen+l <= w {
				cur = append(cur, chunks[len(chunks)-1])
				chunks = chunks[:len(chunks)-1]
				curLen += l
			} else {
				break
			}
		}
		if len(chunks) > 0 && pyLen(chunks[len(chunks)-1]) > w {
			// A chunk longer than a line.
			space := max(w-curLen, 1)
			if breakLong {
				last := []rune(chunks[len(chunks)-1])
				if curLen == 0 || space > 0 {
					cut := min(space, len(last))
					cur = append(cur, string(last[:cut]))
					curLen += cut
					chunks[len(chunks)-1] = string(last[cut:])
				}
			} else if len(cur) == 0 {
				cur = append(cur, chunks[len(chunks)-1])
				curLen += pyLen(chunks[len(chunks)-1])
				chunks = chunks[:len(chunks)-1]
			}
		}
		if len(cur) > 0 && strings.TrimSpace(cur[len(cur)-1]) == "" {
			curLen -= pyLen(cur[len(cur)-1])
			cur = cur[:len(cur)-1]
		}
		if len(cur) == 0 {
			continue
		}
		if maxLines > 0 && len(lines)+1 >= maxLines && len(chunks) > 0 && !(len(lines)+1 == maxLines && allSpace(chunks)) {
			// Last allowed line: fit the placeholder.
			for len(cur) > 0 {
				if strings.TrimSpace(cur[len(cur)-1]) != "" && curLen+pyLen(placeholder) <= w {
					lines = append(lines, indent+strings.Join(cur, "")+placeholder)
					return lines, nil
				}
				curLen -= pyLen(cur[len(cur)-1])
				cur = cur[:len(cur)-1]
			}
			if len(lines) > 0 {
				prev := strings.TrimRight(lines[len(lines)-1], " ")
				if pyLen(prev)+pyLen(placeholder) <= width {
					lines[len(lines)-1] = prev + placeholder
					return lines, nil
				}
			}
			lines = append(lines, indent+strings.TrimLeft(placeholder, " "))
			return lines, nil
		}
		lines = append(lines, indent+strings.Join(cur, ""))
	}
	return lines, nil
}

func allSpace(chunks []string) bool {
	for _, c := range chunks {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

func splitKeepSpaces(s string) []string {
	var out []string
	for s != "" {
		i := 0
		sp := s[0] == ' '
		for i < len(s) && (s[i] == ' ') == sp {
			i++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// splitHyphens splits "well-known" into "well-", "known" as TextWrapper's
// word-punctuation rule does (a hyphen between letters).
func splitHyphens(w string) []string {
	r := []rune(w)
	var out []string
	start := 0
	for i := 1; i+1 < len(r); i++ {
		if r[i] == '-' && unicode.IsLetter(r[i-1]) && unicode.IsLetter(r[i+1]) {
			out = append(out, string(r[start:i+1]))
			start = i + 1
		}
	}
	return append(out, string(r[start:]))
}

func textwrapArgs(name string, args starlark.Tuple, kwargs []starlark.Tuple) ([]string, error) {
	var text string
	width := 70
	initial, subsequent := "", ""
	breakLong, breakHyphens := true, true
	var maxLines starlark.Value = starlark.None
	placeholder := " [...]"
	if err := starlark.UnpackArgs(name, args, kwargs, "text", &text, "width?", &width, "initial_indent?", &initial,
		"subsequent_indent?", &subsequent, "break_long_words?", &breakLong, "break_on_hyphens?", &breakHyphens,
		"max_lines?", &maxLines, "placeholder?", &placeholder); err != nil {
		return nil, err
	}
	ml := 0
	if maxLines != starlark.None {
		ml, _ = toInt(maxLines)
	}
	return wrapText(text, width, initial, subsequent, breakLong, breakHyphens, ml, placeholder)
}

func dedent(s string) string {
	lines := strings.Split(s, "\n")
	margin := ""
	first := true
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			lines[i] = ""
			continue
		}
		ind := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		switch {
		case first:
			margin, first = ind, false
		case strings.HasPrefix(ind, margin):
		case strings.HasPrefix(margin, ind):
			margin = ind
		default:
			j := 0
			for j < len(margin) && j < len(ind) && margin[j] == ind[j] {
				j++
			}
			margin = margin[:j]
		}
	}
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, margin)
	}
	return strings.Join(lines, "\n")
}

func textwrapModule() starlark.StringDict {
	return starlark.StringDict{
		"wrap": fn("wrap", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			lines, err := textwrapArgs("wrap", args, kwargs)
			if err != nil {
				return nil, err
			}
			return stringList(th, lines)
		}),
		"fill": fn("fill", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			lines, err := textwrapArgs("fill", args, kwargs)
			if err != nil {
				return nil, err
			}
			return starlark.String(strings.Join(lines, "\n")), nil
		}),
		"shorten": fn("shorten", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var text string
			var width int
			placeholder := " [...]"
			if err := starlark.UnpackArgs("shorten", args, kwargs, "text", &text, "width", &width, "placeholder?", &placeholder); err != nil {
				return nil, err
			}
			text = strings.Join(strings.Fields(text), " ")
			if pyLen(text) <= width {
				return starlark.String(text), nil
			}
			if pyLen(strings.TrimLeft(placeholder, " ")) > width {
				return nil, Errorf("ValueError", "placeholder too large for max width")
			}
			lines, err := wrapText(text, width, "", "", true, true, 1, placeholder)
			if err != nil {
				return nil, err
			}
			return starlark.String(strings.Join(lines, "\n")), nil
		}),
		"dedent": fn("dedent", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var s string
			if err := starlark.UnpackPositionalArgs("dedent", args, kwargs, 1, &s); err != nil {
				return nil, err
			}
			return starlark.String(dedent(s)), nil
		}),
		"indent": fn("indent", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var s, prefix string
			var pred starlark.Value = starlark.None
			if err := starlark.UnpackArgs("indent", args, kwargs, "text", &s, "prefix", &prefix, "predicate?", &pred); err != nil {
				return nil, err
			}
			var b strings.Builder
			for _, line := range strings.SplitAfter(s, "\n") {
				if line == "" {
					continue
				}
				add := strings.TrimSpace(line) != ""
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

func oneRune(name string, v starlark.Value) (rune, error) {
	s, ok := v.(starlark.String)
	r := []rune(string(s))
	if !ok || len(r) != 1 {
		return 0, Errorf("TypeError", "%s() argument must be a unicode character, not %s", name, TypeName(v))
	}
	return r[0], nil
}

var categories = []string{"Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co"}

func unicodedataModule() starlark.StringDict {
	return starlark.StringDict{
		"name": fn("name", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var c, dflt starlark.Value
			if err := starlark.UnpackPositionalArgs("name", args, kwargs, 1, &c, &dflt); err != nil {
				return nil, err
			}
			r, err := oneRune("name", c)
			if err != nil {
				return nil, err
			}
			n := runenames.Name(r)
			if n == "" || strings.HasPrefix(n, "<") {
				if dflt != nil {
					return dflt, nil
				}
				return nil, Errorf("ValueError", "no such name")
			}
			return starlark.String(n), nil
		}),
		"lookup": fn("lookup", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var name string
			if err := starlark.UnpackPositionalArgs("lookup", args, kwargs, 1, &name); err != nil {
				return nil, err
			}
			want := strings.ToUpper(name)
			for r := rune(0); r <= 0x3134F; r++ {
				if r%checkEvery == 0 {
					if err := Interrupted(th); err != nil {
						return nil, err
					}
				}
				if runenames.Name(r) == want {
					return starlark.String(string(r)), nil
				}
			}
			return nil, Errorf("KeyError", "\"undefined character name '%s'\"", name)
		}),
		"category": fn("category", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var c starlark.Value
			if err := starlark.UnpackPositionalArgs("category", args, kwargs, 1, &c); err != nil {
				return nil, err
			}
			r, err := oneRune("category", c)
			if err != nil {
				return nil, err
			}
			for _, cat := range categories {
				if t, ok := unicode.Categories[cat]; ok && unicode.Is(t, r) {
					return starlark.String(cat), nil
				}
			}
			return starlark.String("Cn"), nil
		}),
		"normalize": fn("normalize", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var form, s string
			if err := starlark.UnpackPositionalArgs("normalize", args, kwargs, 2, &form, &s); err != nil {
				return nil, err
			}
			forms := map[string]norm.Form{"NFC": norm.NFC, "NFD": norm.NFD, "NFKC": norm.NFKC, "NFKD": norm.NFKD}
			f, ok := forms[form]
			if !ok {
				return nil, Errorf("ValueError", "invalid normalization form")
			}
			if err := Alloc(th, int64(len(s))*3); err != nil {
				return nil, err
			}
			return starlark.String(f.String(s)), nil
		}),
		"combining": fn("combining", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var c starlark.Value
			if err := starlark.UnpackPositionalArgs("combining", args, kwargs, 1, &c); err != nil {
				return nil, err
			}
			r, err := oneRune("combining", c)
			if err != nil {
				return nil, err
			}
			return starlark.MakeInt(int(norm.NFD.PropertiesString(string(r)).CCC())), nil
		}),
		"numeric": unicodeNumber("numeric"),
		"digit":   unicodeNumber("digit"),
		"decimal": unicodeNumber("decimal"),
	}
}

// unicodeNumber covers the decimal digits of every script; other numeric
// characters (fractions, Roman numerals) raise ValueError unless a
// default is given.
func unicodeNumber(name string) *starlark.Builtin {
	return fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var c, dflt starlark.Value
		if err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &c, &dflt); err != nil {
			return nil, err
		}
		r, err := oneRune(name, c)
		if err != nil {
			return nil, err
		}
		if unicode.Is(unicode.Nd, r) {
			// Decimal digits come in contiguous runs of ten starting at 0.
			d := 0
			for unicode.Is(unicode.Nd, r-rune(d)-1) && d < 9 {
				d++
			}
			if name == "numeric" {
				return starlark.Float(d), nil
			}
			return starlark.MakeInt(d), nil
		}
		if dflt != nil {
			return dflt, nil
		}
		return nil, Errorf("ValueError", "not a %s", map[string]string{"numeric": "numeric character", "digit": "digit", "decimal": "decimal"}[name])
	})
}

func init() {
	register("string", stringModule)
	register("textwrap", textwrapModule)
	register("unicodedata", unicodedataModule)
}
