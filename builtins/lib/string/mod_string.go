package string

import (
	"fmt"
	"strings"

	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

var (
	_ starlark.HasAttrs = (*template)(nil)
	_ core.Representer  = (*template)(nil)
)

func members() starlark.StringDict {
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
		"capwords": core.Fn("capwords", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var s string
			var sep starlark.Value = starlark.None
			if err := starlark.UnpackPositionalArgs("capwords", args, kwargs, 1, &s, &sep); err != nil {
				return nil, err
			}
			// (sep or ' ').join(map(str.capitalize, s.split(sep)))
			var words []string
			joiner := " "
			if sep == starlark.None {
				words = core.SplitWhitespace(s, -1, false)
			} else {
				sp, ok := sep.(starlark.String)
				if !ok {
					return nil, core.Errorf(pyexc.TypeError, "must be str or None, not %s", core.TypeName(sep))
				}
				if sp == "" {
					return nil, core.Errorf(pyexc.ValueError, "empty separator")
				}
				joiner = string(sp)
				words = strings.Split(s, joiner)
			}
			if err := core.Alloc(th, 3*int64(len(s))); err != nil {
				return nil, err
			}
			for i, w := range words {
				words[i] = core.PyCapitalize(w)
			}
			return starlark.String(strings.Join(words, joiner)), nil
		}),
		"Template": core.Fn("Template", newTemplate),
	}
}

// template is string.Template: $name, ${name} and $$ substitution with
// CPython's pattern (ASCII identifiers, any letter case) and errors.
type template struct {
	text starlark.Value // the template attribute; a str when used
}

func newTemplate(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var text starlark.Value
	if err := starlark.UnpackArgs("Template", args, kwargs, "template", &text); err != nil {
		return nil, err
	}
	return &template{text: text}, nil
}

func (t *template) String() string { return "<string.Template object>" }

func (t *template) Type() string { return "Template" }

func (t *template) Freeze() { t.text.Freeze() }

func (t *template) Truth() starlark.Bool { return true }

func (t *template) Hash() (uint32, error) {
	return 0, core.Errorf(pyexc.TypeError, "unhashable type: 'Template'")
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
		return core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(args) > 1 {
				return nil, core.Errorf(pyexc.TypeError, "Template.%s() takes from 1 to 2 positional arguments but %d were given", name, len(args)+1)
			}
			var mapping starlark.Value
			if len(args) == 1 {
				mapping = args[0]
			}
			return t.substitute(th, mapping, kwargs, safe)
		}), nil
	case "is_valid", "get_identifiers":
		return core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
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
		return core.Errorf(pyexc.TypeError, "expected string or bytes-like object, got '%s'", core.TypeName(t.text))
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
			return nil, core.Errorf(pyexc.KeyError, "%s", core.QuoteString(name))
		}
		return core.GetItem(th, mapping, starlark.String(name))
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
				if core.IsLineBreak(before[k]) {
					if before[k] == '\r' && k+1 < len(before) && before[k+1] == '\n' {
						k++
					}
					line, lineStart = line+1, k+1
				}
			}
			col := len(before) - lineStart
			return core.Errorf(pyexc.ValueError, "Invalid placeholder in string: line %d, col %d", line, col)
		default:
			v, err := lookup(m.name)
			if err != nil {
				if typ, _ := core.Classify(err); safe && typ == pyexc.KeyError.Name() {
					b.WriteString(whole)
					return nil
				}
				return err
			}
			s, err := core.StrValue(th, v)
			if err != nil {
				return err
			}
			b.WriteString(s)
		}
		if over := b.Len() - charged; over > 1<<16 {
			if err := core.Alloc(th, int64(over)); err != nil {
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

// Module returns a new string module.
func Module() *core.PyModule { return core.NewModule("string", members()) }
