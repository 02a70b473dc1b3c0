package re

import (
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/dlclark/regexp2"
	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// re: Python regular expressions on github.com/dlclark/regexp2, a
// backtracking engine with Python's features (lookaround, backreferences)
// whose positions are code-point indices, as Python's are. Patterns are
// translated from Python's dialect (named groups (?P<n>...), (?P=n), \Z)
// and all groups are numbered left to right as Python numbers them.

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
// differently, in one scan that knows escapes and character classes.
// Every capturing group, named or not, becomes an explicitly numbered
// "(?<N>" and the pattern is compiled with ExplicitCapture, so groups
// keep Python's left-to-right numbers (.NET numbers named groups after
// unnamed ones).
func translatePattern(p string, verbose, ascii bool) (string, int, map[string]int, error) {
	var b strings.Builder
	names := map[string]int{}
	n := 0
	inClass := false
	// The negated shorthands (\W, \S, \D) of a class, written at its
	// end: regexp2 drops a \d that follows \W in a class ([^\W\d_]).
	var deferred []byte
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			d := p[i+1]
			if inClass && (d == 'W' || d == 'S' || d == 'D') && p[i-1] != '-' {
				deferred = append(deferred, c, d)
			} else if d == 'Z' && !inClass {
				b.WriteString(`\z`)
			} else if r, ok := asciiClasses[d]; ok && ascii && (!inClass || d >= 'a') {
				// re.ASCII: \w, \d, \s and their negations match ASCII
				// only (a negation inside a class stays Unicode).
				if inClass {
					r = r[1 : len(r)-1]
				}
				b.WriteString(r)
			} else {
				b.WriteByte(c)
				b.WriteByte(d)
			}
			i++
		case inClass:
			if c == ']' {
				inClass = false
				b.Write(deferred)
				deferred = deferred[:0]
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
					return "", 0, nil, core.Errorf(pyexc.ReError, "missing >, unterminated name at position %d", i)
				}
				name := rest[start:end]
				if err := checkGroupName(name, i+1+start); err != nil {
					return "", 0, nil, err
				}
				if _, dup := names[name]; dup {
					return "", 0, nil, core.Errorf(pyexc.ReError, "redefinition of group name %s as group %d; was group %d at position %d", core.QuoteString(name), n+1, names[name], i)
				}
				n++
				names[name] = n
				b.WriteString("(?<" + strconv.Itoa(n) + ">")
				i += end + 1
			case strings.HasPrefix(rest, "?P="):
				end := strings.IndexByte(rest, ')')
				if end < 0 {
					return "", 0, nil, core.Errorf(pyexc.ReError, "missing ), unterminated name at position %d", i)
				}
				name := rest[3:end]
				if err := checkGroupName(name, i+4); err != nil {
					return "", 0, nil, err
				}
				num, ok := names[name]
				if !ok {
					return "", 0, nil, core.Errorf(pyexc.ReError, "unknown group name '%s' at position %d", name, i)
				}
				b.WriteString(`(?:\` + strconv.Itoa(num) + `)`)
				i += end + 1
			case strings.HasPrefix(rest, "?"):
				b.WriteByte(c)
			default:
				n++
				b.WriteString("(?<" + strconv.Itoa(n) + ">")
			}
		default:
			b.WriteByte(c)
		}
	}
	b.Write(deferred)
	return b.String(), n, names, nil
}

// checkGroupName rejects a group name that is not an identifier, as
// CPython's sre_parse does; pos is where the name starts.
func checkGroupName(name string, pos int) error {
	if name == "" {
		return core.Errorf(pyexc.ReError, "missing group name at position %d", pos)
	}
	for k, r := range name {
		if !(r == '_' || unicode.IsLetter(r) || k > 0 && (unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r))) {
			return core.Errorf(pyexc.ReError, "bad character in group name %s at position %d", core.QuoteString(name), pos)
		}
	}
	return nil
}

// asciiClasses are \w, \d, \s and their negations under re.ASCII.
var asciiClasses = map[byte]string{
	'w': `[a-zA-Z0-9_]`, 'W': `[^a-zA-Z0-9_]`,
	'd': `[0-9]`, 'D': `[^0-9]`,
	's': `[ \t\n\r\f\v]`, 'S': `[^ \t\n\r\f\v]`,
}

// leadingFlags takes Python's inline flags at the start of a pattern,
// "(?aimsx)", and returns them as flag bits (Pattern.flags shows them);
// the ones regexp2 lacks (a, u, L) are removed from the pattern.
func leadingFlags(p string) (string, int) {
	if !strings.HasPrefix(p, "(?") {
		return p, 0
	}
	end := strings.IndexByte(p, ')')
	if end < 0 {
		return p, 0
	}
	letters := p[2:end]
	if letters == "" || strings.Trim(letters, "aiLmsux") != "" {
		return p, 0
	}
	flags := 0
	keep := ""
	for _, c := range letters {
		switch c {
		case 'a':
			flags |= reA
		case 'u':
			flags |= reU
		case 'L':
			flags |= reL
		default:
			flags |= map[rune]int{'i': reI, 'm': reM, 's': reS, 'x': reX}[c]
			keep += string(c)
		}
	}
	if keep == "" {
		return p[end+1:], flags
	}
	return "(?" + keep + ")" + p[end+1:], flags
}

func compilePattern(th *starlark.Thread, pattern string, flags int) (*rePattern, error) {
	body, inline := leadingFlags(pattern)
	flags |= inline
	if flags&reA != 0 && flags&reU != 0 {
		return nil, core.Errorf(pyexc.ValueError, "ASCII and UNICODE flags are incompatible")
	}
	src, n, names, err := translatePattern(body, flags&reX != 0, flags&reA != 0)
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
	compile := func(s string) (*regexp2.Regexp, error) {
		re, err := regexp2.Compile(s, opts)
		if err != nil {
			msg := err.Error()
			msg = strings.TrimPrefix(msg, "error parsing regexp: ")
			return nil, core.Errorf(pyexc.ReError, "%s", msg)
		}
		return re, nil
	}
	if flags&reA == 0 {
		flags |= reU
	}
	p := &rePattern{pattern: pattern, flags: flags, groups: n, names: names}
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

func setTimeout(th *starlark.Thread, re *regexp2.Regexp) {
	re.MatchTimeout = defaultMatchTimeout
	if deadline, ok := th.Local(contract.DeadlineKey).(func() time.Time); ok {
		left := time.Until(deadline()) + 10*time.Millisecond
		if left < time.Millisecond {
			left = time.Millisecond
		}
		re.MatchTimeout = left
	}
}

func matchErr(th *starlark.Thread, err error) error {
	if e := core.Interrupted(th); e != nil {
		return e
	}
	if strings.Contains(err.Error(), "timeout") {
		return core.Errorf(pyexc.TimeoutError, "regular expression match timed out")
	}
	return err
}

func (p *rePattern) String() string {
	r := "re.compile(" + core.QuoteString(p.pattern)
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
func (p *rePattern) PyType() starlark.Value { return core.IterType("re.Pattern") }
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
		return nil, core.Errorf(pyexc.AttributeError, "'re.Pattern' object has no attribute '%s'", name)
	}
	return core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
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
		i, err := core.IndexInt(x)
		if err != nil || i < 0 || i > m.p.groups {
			return 0, core.Errorf(pyexc.IndexError, "no such group")
		}
		return i, nil
	case starlark.String:
		if i, ok := m.p.names[string(x)]; ok {
			return i, nil
		}
	}
	return 0, core.Errorf(pyexc.IndexError, "no such group")
}

func (m *reMatch) String() string {
	s, e := m.span(0)
	return "<re.Match object; span=(" + strconv.Itoa(s) + ", " + strconv.Itoa(e) + "), match=" + core.QuoteString(m.m.String()) + ">"
}
func (m *reMatch) Type() string         { return "re.Match" }
func (m *reMatch) Freeze()              {}
func (m *reMatch) Truth() starlark.Bool { return true }
func (m *reMatch) Hash() (uint32, error) {
	return 0, core.Errorf(pyexc.TypeError, "unhashable type: 're.Match'")
}
func (m *reMatch) PyType() starlark.Value { return core.IterType("re.Match") }

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
	method := func(f core.BuiltinFn) (starlark.Value, error) { return core.Fn(name, f), nil }
	switch name {
	case "string":
		return starlark.String(m.text), nil
	case "re":
		return m.p, nil
	case "pos":
		return starlark.MakeInt(m.pos), nil
	case "endpos":
		return starlark.MakeInt(core.PyLen(m.text)), nil
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
	return nil, core.Errorf(pyexc.AttributeError, "'re.Match' object has no attribute '%s'", name)
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
				return "", core.Errorf(pyexc.ReError, "invalid group reference %d at position %d", n, i-1)
			}
			if v, ok := m.group(n).(starlark.String); ok {
				b.WriteString(string(v))
			}
			i = j - 1
		case d == 'g':
			end := strings.IndexByte(t[i:], '>')
			if i+1 >= len(t) || t[i+1] != '<' || end < 0 {
				return "", core.Errorf(pyexc.ReError, "missing < at position %d", i)
			}
			ref := t[i+2 : i+end]
			var k starlark.Value = starlark.String(ref)
			if n, err := strconv.Atoi(ref); err == nil {
				k = starlark.MakeInt(n)
			}
			g, err := m.groupIndex(k)
			if err != nil {
				return "", core.Errorf(pyexc.IndexError, "unknown group name '%s'", ref)
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
				return "", core.Errorf(pyexc.ReError, "bad escape \\%c at position %d", d, i-1)
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
			return nil, core.Errorf(pyexc.ValueError, "cannot process flags argument with a compiled pattern")
		}
		return x, nil
	case starlark.String:
		return compilePattern(th, string(x), flags)
	}
	return nil, core.Errorf(pyexc.TypeError, "first argument must be string or compiled pattern")
}

// each calls f for every non-overlapping match of p in s.
func (p *rePattern) each(th *starlark.Thread, s string, limit int, f func(m *regexp2.Match) error) error {
	// regexp2 matches a copy of s as runes: four bytes a character.
	if err := core.Alloc(th, int64(len(s))*4); err != nil {
		return err
	}
	setTimeout(th, p.search)
	m, err := p.search.FindStringMatch(s)
	for n := 0; err == nil && m != nil && (limit <= 0 || n < limit); n++ {
		if n%256 == 255 {
			if err := core.Interrupted(th); err != nil {
				return err
			}
			if err := core.Alloc(th, 256*64); err != nil {
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
			start, err := core.IndexArg(pos, core.PyLen(s), 0)
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
			if err := core.Alloc(th, int64(len(s))*4); err != nil {
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
		return core.SliceIterator("callable_iterator", out), nil
	}
	sub := func(name string, withCount bool) reOp {
		return func(th *starlark.Thread, p *rePattern, args starlark.Tuple, kwargs []starlark.Tuple, method bool) (starlark.Value, error) {
			var repl starlark.Value
			var s string
			count := 0
			if err := starlark.UnpackArgs(name, args, kwargs, "repl", &repl, "string", &s, "count?", &count); err != nil {
				return nil, err
			}
			b := core.Builder{Th: th} // charged as it grows
			runes := []rune(s)
			last := 0 // rune index of the end of the last match
			n := 0
			err := p.each(th, s, count, func(m *regexp2.Match) error {
				b.WriteString(string(runes[last:m.Index]))
				rm := &reMatch{p: p, m: m, text: s}
				switch r := repl.(type) {
				case starlark.String:
					if !strings.Contains(string(r), `\`) {
						b.WriteString(string(r)) // no references: no copy
						break
					}
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
						return core.Errorf(pyexc.TypeError, "expected str instance, %s found", core.TypeName(v))
					}
					b.WriteString(string(rs))
				}
				last = m.Index + m.Length
				n++
				return b.Err()
			})
			if err != nil {
				return nil, err
			}
			b.WriteString(string(runes[last:]))
			if err := b.Err(); err != nil {
				return nil, err
			}
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
	return core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(args) == 0 {
			return nil, core.Errorf(pyexc.TypeError, "%s() missing required argument 'pattern' (pos 1)", name)
		}
		flags := 0
		var rest []starlark.Tuple
		for _, kv := range kwargs {
			switch string(kv[0].(starlark.String)) {
			case "flags":
				f, err := core.IndexInt(kv[1])
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
			f, err := core.IndexInt(args[maxPos])
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

func members() starlark.StringDict {
	m := starlark.StringDict{
		"I": starlark.MakeInt(reI), "IGNORECASE": starlark.MakeInt(reI),
		"M": starlark.MakeInt(reM), "MULTILINE": starlark.MakeInt(reM),
		"S": starlark.MakeInt(reS), "DOTALL": starlark.MakeInt(reS),
		"X": starlark.MakeInt(reX), "VERBOSE": starlark.MakeInt(reX),
		"A": starlark.MakeInt(reA), "ASCII": starlark.MakeInt(reA),
		"U": starlark.MakeInt(reU), "UNICODE": starlark.MakeInt(reU),
		"L": starlark.MakeInt(reL), "LOCALE": starlark.MakeInt(reL),
		"escape": core.Fn("escape", reEscape),
		"purge": core.Fn("purge", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			return starlark.None, nil
		}),
		"compile": core.Fn("compile", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var pat starlark.Value
			flags := 0
			if err := starlark.UnpackArgs("compile", args, kwargs, "pattern", &pat, "flags?", &flags); err != nil {
				return nil, err
			}
			return patternArg(th, pat, flags)
		}),
	}
	// The types of match and pattern objects, for isinstance and
	// annotations.
	m["Match"] = core.IterType("re.Match")
	m["Pattern"] = core.IterType("re.Pattern")
	for _, name := range []string{"search", "match", "fullmatch", "findall", "finditer", "sub", "subn", "split"} {
		m[name] = reModuleFunc(name)
	}
	return m
}

// Immutable: copy.copy and copy.deepcopy return it as it is.
func (*rePattern) Immutable() {}

// Module returns a new re module.
func Module() *core.PyModule { return core.NewModule("re", members()) }
