package builtins

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

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
			// (sep or ' ').join(map(str.capitalize, s.split(sep)))
			var words []string
			joiner := " "
			if sep == starlark.None {
				words = splitWhitespace(s, -1, false)
			} else {
				sp, ok := sep.(starlark.String)
				if !ok {
					return nil, Errorf("TypeError", "must be str or None, not %s", TypeName(sep))
				}
				if sp == "" {
					return nil, Errorf("ValueError", "empty separator")
				}
				joiner = string(sp)
				words = strings.Split(s, joiner)
			}
			if err := Alloc(th, 3*int64(len(s))); err != nil {
				return nil, err
			}
			for i, w := range words {
				words[i] = pyCapitalize(w)
			}
			return starlark.String(strings.Join(words, joiner)), nil
		}),
		"Template": fn("Template", newTemplate),
	}
}

// oneRune is the one-character argument of a unicodedata function; arg
// is how CPython's message names it ("argument" or "argument 1").
func oneRune(name, arg string, v starlark.Value) (rune, error) {
	s, ok := v.(starlark.String)
	if ok {
		r, size := utf8.DecodeRuneInString(string(s))
		if size > 0 && size == len(s) {
			return r, nil
		}
	}
	return 0, Errorf("TypeError", "%s() %s must be a unicode character, not %s", name, arg, TypeName(v))
}

func unicodedataModule() starlark.StringDict {
	return starlark.StringDict{
		"name": fn("name", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var c, dflt starlark.Value
			if err := starlark.UnpackPositionalArgs("name", args, kwargs, 1, &c, &dflt); err != nil {
				return nil, err
			}
			r, err := oneRune("name", "argument 1", c)
			if err != nil {
				return nil, err
			}
			n := unicodeName(r)
			if n == "" {
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
			r, ok := lookupName(name)
			if !ok {
				return nil, Errorf("KeyError", "undefined character name '%s'", name)
			}
			return starlark.String(string(r)), nil
		}),
		"category": fn("category", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var c starlark.Value
			if err := starlark.UnpackPositionalArgs("category", args, kwargs, 1, &c); err != nil {
				return nil, err
			}
			r, err := oneRune("category", "argument", c)
			if err != nil {
				return nil, err
			}
			return starlark.String(unicodeCategory(r)), nil
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
			r, err := oneRune("combining", "argument", c)
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

// unicodeNumber is unicodedata.numeric, digit or decimal: the character's
// value, or the default, or ValueError.
func unicodeNumber(name string) *starlark.Builtin {
	return fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var c, dflt starlark.Value
		if err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &c, &dflt); err != nil {
			return nil, err
		}
		r, err := oneRune(name, "argument 1", c)
		if err != nil {
			return nil, err
		}
		switch name {
		case "numeric":
			if v, ok := numericValue(r); ok {
				return starlark.Float(v), nil
			}
		case "digit":
			if d, ok := digitValue(r); ok {
				return starlark.MakeInt(d), nil
			}
		case "decimal":
			if isPyDecimal(r) {
				return starlark.MakeInt(decimalValue(r)), nil
			}
		}
		if dflt != nil {
			return dflt, nil
		}
		return nil, Errorf("ValueError", "not a %s", map[string]string{"numeric": "numeric character", "digit": "digit", "decimal": "decimal"}[name])
	})
}

// unicodeName is unicodedata.name(r), or "" for a character without one.
// go's runenames leaves out the names Unicode derives from the code point.
func unicodeName(r rune) string {
	if !assigned(r) {
		return ""
	}
	n := runenames.Name(r)
	if !strings.HasPrefix(n, "<") {
		return n
	}
	switch {
	case strings.HasPrefix(n, "<CJK Ideograph"):
		return fmt.Sprintf("CJK UNIFIED IDEOGRAPH-%04X", r)
	case n == "<Hangul Syllable>":
		s := r - 0xac00
		return "HANGUL SYLLABLE " + jamoL[s/(21*28)] + jamoV[s%(21*28)/28] + jamoT[s%28]
	}
	return ""
}

// The short names of the Hangul jamo that make up a syllable's name.
var (
	jamoL = []string{"G", "GG", "N", "D", "DD", "R", "M", "B", "BB", "S", "SS", "", "J", "JJ", "C", "K", "T", "P", "H"}
	jamoV = []string{"A", "AE", "YA", "YAE", "EO", "E", "YEO", "YE", "O", "WA", "WAE", "OE", "YO", "U", "WEO", "WE", "WI", "YU", "EU", "YI", "I"}
	jamoT = []string{"", "G", "GG", "GS", "N", "NJ", "NH", "D", "L", "LG", "LM", "LB", "LS", "LT", "LP", "LH", "M", "B", "BS", "S", "SS", "NG", "J", "C", "K", "T", "P", "H"}
)

var (
	namesOnce   sync.Once
	runeNames   map[string]rune // stored names, in upper case
	hangulNames map[string]rune
)

// lookupName is unicodedata.lookup and the \N{name} escape: the character
// called name. Like CPython it ignores letter case except in the names
// Unicode derives from code points (Hangul syllables, CJK unified
// ideographs). Name aliases and named sequences are not known.
func lookupName(name string) (rune, bool) {
	if hex, ok := strings.CutPrefix(name, "CJK UNIFIED IDEOGRAPH-"); ok {
		if len(hex) != 4 && len(hex) != 5 || strings.ToUpper(hex) != hex {
			return 0, false
		}
		v, err := strconv.ParseUint(hex, 16, 32)
		if err != nil || !strings.HasPrefix(unicodeName(rune(v)), "CJK UNIFIED IDEOGRAPH-") {
			return 0, false
		}
		return rune(v), true
	}
	namesOnce.Do(func() {
		runeNames = make(map[string]rune, 40000)
		hangulNames = make(map[string]rune, 11172)
		for r := rune(0); r <= unicode.MaxRune; r++ {
			n := runenames.Name(r)
			if n == "" || !assigned(r) {
				continue
			}
			if n == "<Hangul Syllable>" {
				hangulNames[unicodeName(r)] = r
			} else if !strings.HasPrefix(n, "<") {
				runeNames[n] = r
			}
		}
	})
	if strings.HasPrefix(name, "HANGUL SYLLABLE ") {
		r, ok := hangulNames[name]
		return r, ok
	}
	r, ok := runeNames[strings.ToUpper(name)]
	return r, ok
}

func init() {
	register("string", stringModule)
	register("textwrap", textwrapModule)
	register("unicodedata", unicodedataModule)
}

// template is string.Template: $name, ${name} and $$ substitution with
// CPython's pattern (ASCII identifiers, any letter case) and errors.
type template struct {
	text starlark.Value // the template attribute; a str when used
}

var (
	_ starlark.HasAttrs = (*template)(nil)
	_ Representer       = (*template)(nil)
)

func newTemplate(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var text starlark.Value
	if err := starlark.UnpackArgs("Template", args, kwargs, "template", &text); err != nil {
		return nil, err
	}
	return &template{text: text}, nil
}

func (t *template) String() string       { return "<string.Template object>" }
func (t *template) Type() string         { return "Template" }
func (t *template) Freeze()              { t.text.Freeze() }
func (t *template) Truth() starlark.Bool { return true }
func (t *template) Hash() (uint32, error) {
	return 0, Errorf("TypeError", "unhashable type: 'Template'")
}
func (t *template) PyRepr(*starlark.Thread) (string, error) {
	return fmt.Sprintf("<string.Template object at %p>", t), nil
}
func (t *template) PyStr(th *starlark.Thread) (string, error) { return t.PyRepr(th) }

func (t *template) AttrNames() []string {
	return []string{"braceidpattern", "delimiter", "get_identifiers", "idpattern", "is_valid", "safe_substitute", "substitute", "template"}
}

func (t *template) Attr(name string) (starlark.Value, error) {
	switch name {
	case "template":
		return t.text, nil
	case "delimiter":
		return starlark.String("$"), nil
	case "idpattern":
		return starlark.String("(?a:[_a-z][_a-z0-9]*)"), nil
	case "braceidpattern":
		return starlark.None, nil
	case "substitute", "safe_substitute":
		safe := name == "safe_substitute"
		return fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(args) > 1 {
				return nil, Errorf("TypeError", "Template.%s() takes from 1 to 2 positional arguments but %d were given", name, len(args)+1)
			}
			var mapping starlark.Value
			if len(args) == 1 {
				mapping = args[0]
			}
			return t.substitute(th, mapping, kwargs, safe)
		}), nil
	case "is_valid", "get_identifiers":
		return fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 0); err != nil {
				return nil, err
			}
			var ids []starlark.Value
			seen := map[string]bool{}
			valid := true
			err := t.scan(func(m templateMatch) error {
				switch {
				case m.invalid:
					valid = false
				case m.name != "" && !seen[m.name]:
					seen[m.name] = true
					ids = append(ids, starlark.String(m.name))
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
			if name == "is_valid" {
				return starlark.Bool(valid), nil
			}
			return starlark.NewList(ids), nil
		}), nil
	}
	return nil, nil
}

// templateMatch is one match of Template.pattern: $$, $name or ${name},
// or an invalid placeholder.
type templateMatch struct {
	start, end int    // byte offsets of the whole match
	name       string // named or braced
	escaped    bool
	invalid    bool
}

func isTemplateStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isTemplateChar(c byte) bool { return isTemplateStart(c) || c >= '0' && c <= '9' }

// scan calls f for every match in the template, left to right.
func (t *template) scan(f func(templateMatch) error) error {
	s, ok := t.text.(starlark.String)
	if !ok {
		return Errorf("TypeError", "expected string or bytes-like object, got '%s'", TypeName(t.text))
	}
	text := string(s)
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '$')
		if j < 0 {
			break
		}
		p := i + j
		m := templateMatch{start: p}
		switch rest := text[p+1:]; {
		case strings.HasPrefix(rest, "$"):
			m.escaped, m.end = true, p+2
		case len(rest) > 0 && isTemplateStart(rest[0]):
			k := 1
			for k < len(rest) && isTemplateChar(rest[k]) {
				k++
			}
			m.name, m.end = rest[:k], p+1+k
		case len(rest) > 1 && rest[0] == '{' && isTemplateStart(rest[1]):
			k := 2
			for k < len(rest) && isTemplateChar(rest[k]) {
				k++
			}
			if k < len(rest) && rest[k] == '}' {
				m.name, m.end = rest[1:k], p+2+k
				break
			}
			m.invalid, m.end = true, p+1
		default:
			m.invalid, m.end = true, p+1
		}
		if err := f(m); err != nil {
			return err
		}
		i = m.end
	}
	return nil
}

func (t *template) substitute(th *starlark.Thread, mapping starlark.Value, kwargs []starlark.Tuple, safe bool) (starlark.Value, error) {
	text, _ := t.text.(starlark.String)
	lookup := func(name string) (starlark.Value, error) {
		for _, kv := range kwargs {
			if string(kv[0].(starlark.String)) == name {
				return kv[1], nil
			}
		}
		if mapping == nil {
			return nil, Errorf("KeyError", "%s", quoteString(name))
		}
		return subscript(th, mapping, starlark.String(name))
	}
	var b strings.Builder
	last, charged := 0, 0
	err := t.scan(func(m templateMatch) error {
		b.WriteString(string(text[last:m.start]))
		last = m.end
		whole := string(text[m.start:m.end])
		switch {
		case m.escaped:
			b.WriteByte('$')
		case m.invalid:
			if safe {
				b.WriteString(whole)
				return nil
			}
			// CPython's line and column of the character after the $:
			// its index, in code points, less the length of the lines
			// before it.
			before := []rune(string(text[:m.start+1]))
			line, lineStart := 1, 0
			for k := 0; k < len(before); k++ {
				if isLineBreak(before[k]) {
					if before[k] == '\r' && k+1 < len(before) && before[k+1] == '\n' {
						k++
					}
					line, lineStart = line+1, k+1
				}
			}
			col := len(before) - lineStart
			return Errorf("ValueError", "Invalid placeholder in string: line %d, col %d", line, col)
		default:
			v, err := lookup(m.name)
			if err != nil {
				if typ, _ := Classify(err); safe && typ == "KeyError" {
					b.WriteString(whole)
					return nil
				}
				return err
			}
			s, err := StrValue(th, v)
			if err != nil {
				return err
			}
			b.WriteString(s)
		}
		if over := b.Len() - charged; over > 1<<16 {
			if err := Alloc(th, int64(over)); err != nil {
				return err
			}
			charged = b.Len()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	b.WriteString(string(text[last:]))
	return starlark.String(b.String()), nil
}

// LookupCharName is unicodedata.lookup for the front end's \N{name}
// escapes: the character called name, or false.
func LookupCharName(name string) (rune, bool) { return lookupName(name) }
