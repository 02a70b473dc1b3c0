package builtins

import (
	"strconv"
	"strings"
	"time"

	"github.com/dlclark/regexp2"
	"go.starlark.net/starlark"
)

// re: Python regular expressions on github.com/dlclark/regexp2, a
// backtracking engine with Python's features (lookaround, backreferences)
// whose positions are code-point indices, as Python's are. Patterns are
// translated from Python's dialect (named groups (?P<n>...), (?P=n), \Z)
// and all groups are numbered left to right as Python numbers them.

// DeadlineKey is the thread-local key under which the engine may store
// the execution's deadline (a time.Time). Regular-expression matching
// cannot be interrupted from outside, so each match gets the time left
// until the deadline as its timeout; without it a match may run for
// defaultMatchTimeout.
const DeadlineKey = "star-agent.deadline"

const defaultMatchTimeout = 10 * time.Second

const (
	reI = 2
	reL = 4
	reM = 8
	reS = 16
	reU = 32
	reX = 64
	reA = 256
)

// rePattern is a compiled Python pattern (re.Pattern).
type rePattern struct {
	pattern string
	flags   int
	search  *regexp2.Regexp
	anchor  *regexp2.Regexp // \G(?:pattern): match at a position
	full    *regexp2.Regexp // \G(?:pattern)\z: fullmatch
	groups  int
	names   map[string]int
	order   []string // group names by number (index 0 unused)
}

// translatePattern rewrites Python syntax that .NET syntax spells
// differently and turns named groups into numbered ones so numbering is
// Python's.
func translatePattern(p string, verbose bool) (string, int, map[string]int, error) {
	var b strings.Builder
	names := map[string]int{}
	n := 0
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			d := p[i+1]
			if d == 'Z' && !inClass {
				b.WriteString(`\z`)
			} else {
				b.WriteByte(c)
				b.WriteByte(d)
			}
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
			b.WriteByte(c)
		case c == '[':
			inClass = true
			b.WriteByte(c)
			// A ']' right after '[' or '[^' is literal.
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				b.WriteString(`\]`)
				i++
			}
		case verbose && c == '#':
			for i < len(p) && p[i] != '\n' {
				i++
			}
			b.WriteByte('\n')
		case c == '(':
			rest := p[i+1:]
			switch {
			case strings.HasPrefix(rest, "?P<") || (strings.HasPrefix(rest, "?<") && !strings.HasPrefix(rest, "?<=") && !strings.HasPrefix(rest, "?<!")):
				start := strings.IndexByte(rest, '<') + 1
				end := strings.IndexByte(rest, '>')
				if end < 0 {
					return "", 0, nil, Errorf("error", "missing >, unterminated name at position %d", i)
				}
				name := rest[start:end]
				if _, dup := names[name]; dup {
					return "", 0, nil, Errorf("error", "redefinition of group name %s as group %d; was group %d at position %d", quoteString(name), n+1, names[name], i)
				}
				n++
				names[name] = n
				b.WriteByte('(')
				i += end + 1
			case strings.HasPrefix(rest, "?P="):
				end := strings.IndexByte(rest, ')')
				if end < 0 {
					return "", 0, nil, Errorf("error", "missing ), unterminated name at position %d", i)
				}
				name := rest[3:end]
				num, ok := names[name]
				if !ok {
					return "", 0, nil, Errorf("error", "unknown group name '%s' at position %d", name, i)
				}
				b.WriteString(`(?:\` + strconv.Itoa(num) + `)`)
				i += end + 1
			case strings.HasPrefix(rest, "?"):
				b.WriteByte(c)
			default:
				n++
				b.WriteByte(c)
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), n, names, nil
}

func compilePattern(th *starlark.Thread, pattern string, flags int) (*rePattern, error) {
	src, n, names, err := translatePattern(pattern, flags&reX != 0)
	if err != nil {
		return nil, err
	}
	opts := regexp2.RegexOptions(regexp2.ExplicitCapture)
	if flags&reI != 0 {
		opts |= regexp2.IgnoreCase
	}
	if flags&reM != 0 {
		opts |= regexp2.Multiline
	}
	if flags&reS != 0 {
		opts |= regexp2.Singleline
	}
	if flags&reX != 0 {
		opts |= regexp2.IgnorePatternWhitespace
	}
	// ExplicitCapture makes unnamed "(" non-capturing, so put back the
	// groups: every group the translator counted becomes an explicit
	// numbered group (?<N>...).
	src = numberGroups(src)
	compile := func(s string) (*regexp2.Regexp, error) {
		re, err := regexp2.Compile(s, opts)
		if err != nil {
			msg := err.Error()
			msg = strings.TrimPrefix(msg, "error parsing regexp: ")
			return nil, Errorf("error", "%s", msg)
		}
		return re, nil
	}
	p := &rePattern{pattern: pattern, flags: flags | reU, groups: n, names: names}
	if p.search, err = compile(src); err != nil {
		return nil, err
	}
	if p.anchor, err = compile(`\G(?:` + src + `)`); err != nil {
		return nil, err
	}
	if p.full, err = compile(`\G(?:` + src + `)\z`); err != nil {
		return nil, err
	}
	p.order = make([]string, n+1)
	for name, i := range names {
		p.order[i] = name
	}
	return p, nil
}

// numberGroups turns each capturing "(" of a translated pattern into
// "(?<N>" so that, with ExplicitCapture, groups keep Python's numbers.
func numberGroups(p string) string {
	var b strings.Builder
	n := 0
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			b.WriteByte(c)
			b.WriteByte(p[i+1])
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
			b.WriteByte(c)
		case c == '[':
			inClass = true
			b.WriteByte(c)
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				b.WriteString(`\]`)
				i++
			}
		case c == '(' && (i+1 >= len(p) || p[i+1] != '?'):
			n++
			b.WriteString("(?<" + strconv.Itoa(n) + ">")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func setTimeout(th *starlark.Thread, re *regexp2.Regexp) {
	re.MatchTimeout = defaultMatchTimeout
	if d, ok := th.Local(DeadlineKey).(time.Time); ok {
		left := time.Until(d) + 10*time.Millisecond
		if left < time.Millisecond {
			left = time.Millisecond
		}
		re.MatchTimeout = left
	}
}

func matchErr(th *starlark.Thread, err error) error {
	if e := Interrupted(th); e != nil {
		return e
	}
	if strings.Contains(err.Error(), "timeout") {
		return Errorf("TimeoutError", "regular expression match timed out")
	}
	return err
}

func (p *rePattern) String() string {
	r := "re.compile(" + quoteString(p.pattern)
	if f := p.flags &^ reU; f != 0 {
		r += ", " + flagNames(f)
	}
	return r + ")"
}

func flagNames(f int) string {
	var parts []string
	for _, x := range []struct {
		bit  int
		name string
	}{{reI, "re.IGNORECASE"}, {reM, "re.MULTILINE"}, {reS, "re.DOTALL"}, {reX, "re.VERBOSE"}, {reA, "re.ASCII"}} {
		if f&x.bit != 0 {
			parts = append(parts, x.name)
		}
	}
	return strings.Join(parts, "|")
}

func (p *rePattern) Type() string           { return "re.Pattern" }
func (p *rePattern) Freeze()                {}
func (p *rePattern) Truth() starlark.Bool   { return true }
func (p *rePattern) Hash() (uint32, error)  { return starlark.String(p.pattern).Hash() }
func (p *rePattern) PyType() starlark.Value { return iterType("re.Pattern") }
func (p *rePattern) AttrNames() []string {
	return []string{"findall", "finditer", "flags", "fullmatch", "groupindex", "groups", "match", "pattern", "search", "split", "sub", "subn"}
}

func (p *rePattern) Attr(name string) (starlark.Value, error) {
	switch name {
	case "pattern":
		return starlark.String(p.pattern), nil
	case "flags":
		return starlark.MakeInt(p.flags), nil
	case "groups":
		return starlark.MakeInt(p.groups), nil
	case "groupindex":
		d := starlark.NewDict(len(p.names))
		for i, n := range p.order {
			if n != "" {
				d.SetKey(starlark.String(n), starlark.MakeInt(i))
			}
		}
		return d, nil
	}
	op, ok := reOps[name]
	if !ok {
		return nil, Errorf("AttributeError", "'re.Pattern' object has no attribute '%s'", name)
	}
	return fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return op(th, p, args, kwargs, true)
	}), nil
}

type reOp func(th *starlark.Thread, p *rePattern, args starlark.Tuple, kwargs []starlark.Tuple, method bool) (starlark.Value, error)

var reOps map[string]reOp

// reMatch is a match object (re.Match).
type reMatch struct {
	p    *rePattern
	m    *regexp2.Match
	text string
	pos  int
}

func (m *reMatch) group(i int) starlark.Value {
	g := m.m.GroupByNumber(i)
	if g == nil || len(g.Captures) == 0 {
		return starlark.None
	}
	return starlark.String(g.String())
}

func (m *reMatch) span(i int) (int, int) {
	g := m.m.GroupByNumber(i)
	if g == nil || len(g.Captures) == 0 {
		return -1, -1
	}
	return g.Index, g.Index + g.Length
}

func (m *reMatch) groupIndex(v starlark.Value) (int, error) {
	switch x := v.(type) {
	case starlark.Int, starlark.Bool:
		i, err := toInt(x)
		if err != nil || i < 0 || i > m.p.groups {
			return 0, Errorf("IndexError", "no such group")
		}
		return i, nil
	case starlark.String:
		if i, ok := m.p.names[string(x)]; ok {
			return i, nil
		}
	}
	return 0, Errorf("IndexError", "no such group")
}

func (m *reMatch) String() string {
	s, e := m.span(0)
	return "<re.Match object; span=(" + strconv.Itoa(s) + ", " + strconv.Itoa(e) + "), match=" + quoteString(m.m.String()) + ">"
}
func (m *reMatch) Type() string         { return "re.Match" }
func (m *reMatch) Freeze()              {}
func (m *reMatch) Truth() starlark.Bool { return true }
func (m *reMatch) Hash() (uint32, error) {
	return 0, Errorf("TypeError", "unhashable type: 're.Match'")
}
func (m *reMatch) PyType() starlark.Value { return iterType("re.Match") }

// Get makes m[1] and m["name"] work.
func (m *reMatch) Get(k starlark.Value) (starlark.Value, bool, error) {
	i, err := m.groupIndex(k)
	if err != nil {
		return nil, false, err
	}
	return m.group(i), true, nil
}

func (m *reMatch) AttrNames() []string {
	return []string{"end", "endpos", "expand", "group", "groupdict", "groups", "lastgroup", "lastindex", "pos", "re", "span", "start", "string"}
}

func (m *reMatch) Attr(name string) (starlark.Value, error) {
	method := func(f builtinFn) (starlark.Value, error) { return fn(name, f), nil }
	switch name {
	case "string":
		return starlark.String(m.text), nil
	case "re":
		return m.p, nil
	case "pos":
		return starlark.MakeInt(m.pos), nil
	case "endpos":
		return starlark.MakeInt(pyLen(m.text)), nil
	case "lastindex", "lastgroup":
		last, lastEnd := -1, -1
		for i := 1; i <= m.p.groups; i++ {
			if s, e := m.span(i); s >= 0 && e >= lastEnd {
				last, lastEnd = i, e
			}
		}
		if last < 0 {
			return starlark.None, nil
		}
		if name == "lastindex" {
			return starlark.MakeInt(last), nil
		}
		if n := m.p.order[last]; n != "" {
			return starlark.String(n), nil
		}
		return starlark.None, nil
	case "group":
		return method(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(args) == 0 {
				return m.group(0), nil
			}
			out := make(starlark.Tuple, len(args))
			for i, a := range args {
				g, err := m.groupIndex(a)
				if err != nil {
					return nil, err
				}
				out[i] = m.group(g)
			}
			if len(out) == 1 {
				return out[0], nil
			}
			return out, nil
		})
	case "groups":
		return method(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var dflt starlark.Value = starlark.None
			if err := starlark.UnpackArgs("groups", args, kwargs, "default?", &dflt); err != nil {
				return nil, err
			}
			out := make(starlark.Tuple, m.p.groups)
			for i := range out {
				out[i] = m.group(i + 1)
				if out[i] == starlark.None {
					out[i] = dflt
				}
			}
			return out, nil
		})
	case "groupdict":
		return method(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var dflt starlark.Value = starlark.None
			if err := starlark.UnpackArgs("groupdict", args, kwargs, "default?", &dflt); err != nil {
				return nil, err
			}
			d := starlark.NewDict(len(m.p.names))
			for i, n := range m.p.order {
				if n == "" {
					continue
				}
				v := m.group(i)
				if v == starlark.None {
					v = dflt
				}
				d.SetKey(starlark.String(n), v)
			}
			return d, nil
		})
	case "span", "start", "end":
		return method(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var g starlark.Value = starlark.MakeInt(0)
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 0, &g); err != nil {
				return nil, err
			}
			i, err := m.groupIndex(g)
			if err != nil {
				return nil, err
			}
			s, e := m.span(i)
			switch name {
			case "start":
				return starlark.MakeInt(s), nil
			case "end":
				return starlark.MakeInt(e), nil
			}
			return starlark.Tuple{starlark.MakeInt(s), starlark.MakeInt(e)}, nil
		})
	case "expand":
		return method(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var tmpl string
			if err := starlark.UnpackPositionalArgs("expand", args, kwargs, 1, &tmpl); err != nil {
				return nil, err
			}
			s, err := expandTemplate(m, tmpl)
			return starlark.String(s), err
		})
	}
	return nil, Errorf("AttributeError", "'re.Match' object has no attribute '%s'", name)
}

// expandTemplate renders a sub() replacement string: \1, \g<1>, \g<name>
// and the usual character escapes.
func expandTemplate(m *reMatch, t string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c != '\\' || i+1 == len(t) {
			b.WriteByte(c)
			continue
		}
		i++
		d := t[i]
		switch {
		case d >= '0' && d <= '9':
			j := i
			for j < len(t) && j < i+2 && t[j] >= '0' && t[j] <= '9' {
				j++
			}
			n, _ := strconv.Atoi(t[i:j])
			if n > m.p.groups {
				return "", Errorf("error", "invalid group reference %d at position %d", n, i-1)
			}
			if v, ok := m.group(n).(starlark.String); ok {
				b.WriteString(string(v))
			}
			i = j - 1
		case d == 'g':
			end := strings.IndexByte(t[i:], '>')
			if i+1 >= len(t) || t[i+1] != '<' || end < 0 {
				return "", Errorf("error", "missing < at position %d", i)
			}
			ref := t[i+2 : i+end]
			var k starlark.Value = starlark.String(ref)
			if n, err := strconv.Atoi(ref); err == nil {
				k = starlark.MakeInt(n)
			}
			g, err := m.groupIndex(k)
			if err != nil {
				return "", Errorf("IndexError", "unknown group name '%s'", ref)
			}
			if v, ok := m.group(g).(starlark.String); ok {
				b.WriteString(string(v))
			}
			i += end
		case d == 'n':
			b.WriteByte('\n')
		case d == 't':
			b.WriteByte('\t')
		case d == 'r':
			b.WriteByte('\r')
		case d == '\\':
			b.WriteByte('\\')
		case d == 'a':
			b.WriteByte('\a')
		case d == 'f':
			b.WriteByte('\f')
		case d == 'v':
			b.WriteByte('\v')
		default:
			if (d >= 'a' && d <= 'z') || (d >= 'A' && d <= 'Z') {
				return "", Errorf("error", "bad escape \\%c at position %d", d, i-1)
			}
			b.WriteByte('\\')
			b.WriteByte(d)
		}
	}
	return b.String(), nil
}

// patternArg compiles a pattern argument (str or compiled pattern).
func patternArg(th *starlark.Thread, v starlark.Value, flags int) (*rePattern, error) {
	switch x := v.(type) {
	case *rePattern:
		if flags != 0 {
			return nil, Errorf("ValueError", "cannot process flags argument with a compiled pattern")
		}
		return x, nil
	case starlark.String:
		return compilePattern(th, string(x), flags)
	}
	return nil, Errorf("TypeError", "first argument must be string or compiled pattern")
}

// each calls f for every non-overlapping match of p in s.
func (p *rePattern) each(th *starlark.Thread, s string, limit int, f func(m *regexp2.Match) error) error {
	// regexp2 matches a copy of s as runes: four bytes a character.
	if err := Alloc(th, int64(len(s))*4); err != nil {
		return err
	}
	setTimeout(th, p.search)
	m, err := p.search.FindStringMatch(s)
	for n := 0; err == nil && m != nil && (limit <= 0 || n < limit); n++ {
		if n%256 == 255 {
			if err := Interrupted(th); err != nil {
				return err
			}
			if err := Alloc(th, 256*64); err != nil {
				return err
			}
		}
		if err := f(m); err != nil {
			return err
		}
		m, err = p.search.FindNextMatch(m)
	}
	if err != nil {
		return matchErr(th, err)
	}
	return nil
}

func init() {
	reOps = map[string]reOp{}
	matchOp := func(kind string) reOp {
		return func(th *starlark.Thread, p *rePattern, args starlark.Tuple, kwargs []starlark.Tuple, method bool) (starlark.Value, error) {
			var s string
			var pos starlark.Value = starlark.MakeInt(0)
			if method {
				if err := starlark.UnpackArgs(kind, args, kwargs, "string", &s, "pos?", &pos); err != nil {
					return nil, err
				}
			}
			start, err := indexArg(pos, pyLen(s), 0)
			if err != nil {
				return nil, err
			}
			re := p.search
			switch kind {
			case "match":
				re = p.anchor
			case "fullmatch":
				re = p.full
			}
			if err := Alloc(th, int64(len(s))*4); err != nil {
				return nil, err
			}
			setTimeout(th, re)
			m, err := re.FindRunesMatchStartingAt([]rune(s), start)
			if err != nil {
				return nil, matchErr(th, err)
			}
			if m == nil {
				return starlark.None, nil
			}
			return &reMatch{p: p, m: m, text: s, pos: start}, nil
		}
	}
	for _, k := range []string{"search", "match", "fullmatch"} {
		reOps[k] = matchOp(k)
	}
	reOps["findall"] = func(th *starlark.Thread, p *rePattern, args starlark.Tuple, kwargs []starlark.Tuple, method bool) (starlark.Value, error) {
		var s string
		if err := starlark.UnpackArgs("findall", args, kwargs, "string", &s); err != nil {
			return nil, err
		}
		var out []starlark.Value
		rm := &reMatch{p: p, text: s}
		err := p.each(th, s, 0, func(m *regexp2.Match) error {
			rm.m = m
			switch p.groups {
			case 0:
				out = append(out, starlark.String(m.String()))
			case 1:
				out = append(out, emptyIfNone(rm.group(1)))
			default:
				t := make(starlark.Tuple, p.groups)
				for i := range t {
					t[i] = emptyIfNone(rm.group(i + 1))
				}
				out = append(out, t)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		return starlark.NewList(out), nil
	}
	reOps["finditer"] = func(th *starlark.Thread, p *rePattern, args starlark.Tuple, kwargs []starlark.Tuple, method bool) (starlark.Value, error) {
		var s string
		if err := starlark.UnpackArgs("finditer", args, kwargs, "string", &s); err != nil {
			return nil, err
		}
		var out []starlark.Value
		err := p.each(th, s, 0, func(m *regexp2.Match) error {
			out = append(out, &reMatch{p: p, m: m, text: s})
			return nil
		})
		if err != nil {
			return nil, err
		}
		return sliceIterator("callable_iterator", out), nil
	}
	sub := func(name string, withCount bool) reOp {
		return func(th *starlark.Thread, p *rePattern, args starlark.Tuple, kwargs []starlark.Tuple, method bool) (starlark.Value, error) {
			var repl starlark.Value
			var s string
			count := 0
			if err := starlark.UnpackArgs(name, args, kwargs, "repl", &repl, "string", &s, "count?", &count); err != nil {
				return nil, err
			}
			var b strings.Builder
			runes := []rune(s)
			last := 0 // rune index of the end of the last match
			n := 0
			err := p.each(th, s, count, func(m *regexp2.Match) error {
				b.WriteString(string(runes[last:m.Index]))
				rm := &reMatch{p: p, m: m, text: s}
				switch r := repl.(type) {
				case starlark.String:
					t, err := expandTemplate(rm, string(r))
					if err != nil {
						return err
					}
					b.WriteString(t)
				default:
					v, err := starlark.Call(th, repl, starlark.Tuple{rm}, nil)
					if err != nil {
						return err
					}
					rs, ok := v.(starlark.String)
					if !ok {
						return Errorf("TypeError", "expected str instance, %s found", TypeName(v))
					}
					b.WriteString(string(rs))
				}
				last = m.Index + m.Length
				n++
				if b.Len() > 1<<20 && n%64 == 0 {
					if err := Alloc(th, int64(b.Len())); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
			b.WriteString(string(runes[last:]))
			if withCount {
				return starlark.Tuple{starlark.String(b.String()), starlark.MakeInt(n)}, nil
			}
			return starlark.String(b.String()), nil
		}
	}
	reOps["sub"] = sub("sub", false)
	reOps["subn"] = sub("subn", true)
	reOps["split"] = func(th *starlark.Thread, p *rePattern, args starlark.Tuple, kwargs []starlark.Tuple, method bool) (starlark.Value, error) {
		var s string
		maxsplit := 0
		if err := starlark.UnpackArgs("split", args, kwargs, "string", &s, "maxsplit?", &maxsplit); err != nil {
			return nil, err
		}
		runes := []rune(s)
		var out []starlark.Value
		last := 0
		rm := &reMatch{p: p, text: s}
		err := p.each(th, s, maxsplit, func(m *regexp2.Match) error {
			out = append(out, starlark.String(string(runes[last:m.Index])))
			rm.m = m
			for i := 1; i <= p.groups; i++ {
				out = append(out, rm.group(i))
			}
			last = m.Index + m.Length
			return nil
		})
		if err != nil {
			return nil, err
		}
		out = append(out, starlark.String(string(runes[last:])))
		return starlark.NewList(out), nil
	}
}

func emptyIfNone(v starlark.Value) starlark.Value {
	if v == starlark.None {
		return starlark.String("")
	}
	return v
}

// reModuleFunc adapts a Pattern method into the module function that
// takes the pattern first and flags last.
func reModuleFunc(name string) *starlark.Builtin {
	return fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(args) == 0 {
			return nil, Errorf("TypeError", "%s() missing required argument 'pattern' (pos 1)", name)
		}
		flags := 0
		var rest []starlark.Tuple
		for _, kv := range kwargs {
			switch string(kv[0].(starlark.String)) {
			case "flags":
				f, err := toInt(kv[1])
				if err != nil {
					return nil, err
				}
				flags = f
			case "pattern":
				args = append(starlark.Tuple{kv[1]}, args...)
			default:
				rest = append(rest, kv)
			}
		}
		// Positional flags come after the method's own arguments.
		maxPos := map[string]int{"search": 2, "match": 2, "fullmatch": 2, "findall": 2, "finditer": 2, "split": 3, "sub": 4, "subn": 4}[name]
		if len(args) > maxPos {
			f, err := toInt(args[maxPos])
			if err != nil {
				return nil, err
			}
			flags = f
			args = args[:maxPos]
		}
		p, err := patternArg(th, args[0], flags)
		if err != nil {
			return nil, err
		}
		margs := args[1:]
		if name == "search" || name == "match" || name == "fullmatch" {
			var s string
			if err := starlark.UnpackArgs(name, margs, rest, "string", &s); err != nil {
				return nil, err
			}
			return reOps[name](th, p, starlark.Tuple{starlark.String(s)}, nil, true)
		}
		return reOps[name](th, p, margs, rest, false)
	})
}

func reEscape(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var s string
	if err := starlark.UnpackPositionalArgs("escape", args, kwargs, 1, &s); err != nil {
		return nil, err
	}
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("()[]{}?*+-|^$\\.&~# \t\n\r\v\f", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return starlark.String(b.String()), nil
}

func init() {
	register("re", func() starlark.StringDict {
		m := starlark.StringDict{
			"I": starlark.MakeInt(reI), "IGNORECASE": starlark.MakeInt(reI),
			"M": starlark.MakeInt(reM), "MULTILINE": starlark.MakeInt(reM),
			"S": starlark.MakeInt(reS), "DOTALL": starlark.MakeInt(reS),
			"X": starlark.MakeInt(reX), "VERBOSE": starlark.MakeInt(reX),
			"A": starlark.MakeInt(reA), "ASCII": starlark.MakeInt(reA),
			"U": starlark.MakeInt(reU), "UNICODE": starlark.MakeInt(reU),
			"L": starlark.MakeInt(reL), "LOCALE": starlark.MakeInt(reL),
			"escape": fn("escape", reEscape),
			"purge": fn("purge", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
				return starlark.None, nil
			}),
			"compile": fn("compile", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
				var pat starlark.Value
				flags := 0
				if err := starlark.UnpackArgs("compile", args, kwargs, "pattern", &pat, "flags?", &flags); err != nil {
					return nil, err
				}
				return patternArg(th, pat, flags)
			}),
		}
		for _, name := range []string{"search", "match", "fullmatch", "findall", "finditer", "sub", "subn", "split"} {
			m[name] = reModuleFunc(name)
		}
		return m
	})
}
