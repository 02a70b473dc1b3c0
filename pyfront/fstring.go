package pyfront

// String literals: implicit concatenation, and f-strings split into
// literal parts and replacement fields whose expressions are scanned and
// parsed from the source in place, so their positions are the user's.

import "strings"

// litBuf concatenates literal text, holding a single piece as it is (a
// substring of the source, usually) and copying only to join pieces.
type litBuf struct {
	s     string
	b     []byte
	multi bool
}

func (l *litBuf) add(s string) {
	switch {
	case s == "":
	case l.multi:
		l.b = append(l.b, s...)
	case l.s == "":
		l.s = s
	default:
		l.b = append(append(l.b[:0], l.s...), s...)
		l.multi = true
	}
}

func (l *litBuf) len() int {
	if l.multi {
		return len(l.b)
	}
	return len(l.s)
}

// take returns the text and empties the buffer.
func (l *litBuf) take() string {
	s := l.s
	if l.multi {
		s = string(l.b)
		l.b = l.b[:0]
		l.multi = false
	}
	l.s = ""
	return s
}

// strings parses adjacent string literals, concatenating them.
func (p *parser) strings() Expr {
	first := p.tok()
	at := first.at()
	if p.peek(1) != tSTRING && first.flags&strF == 0 {
		// A plain string: no nesting, the commonest case.
		p.next()
		n := take(&p.a.strs)
		*n = Str{pos: at, Raw: p.text(first), Val: p.strValue(first), Bytes: first.flags&strBytes != 0}
		return n
	}
	saved := p.measure()
	mark := len(p.a.fstack)
	var lit litBuf
	hasF, bytes := false, first.flags&strBytes != 0
	end := first.end
	for p.kind() == tSTRING {
		t := p.next()
		end = t.end
		if (t.flags&strBytes != 0) != bytes {
			p.failAt(at, "cannot mix bytes and nonbytes literals")
		}
		if t.flags&strF == 0 {
			lit.add(p.strValue(t))
			continue
		}
		hasF = true
		p.fstring(t, int(t.body), int(t.bodyEnd), 0, &lit)
		if p.depth+len(p.a.fstack)-mark > maxDepth {
			p.tooDeep(cFString)
		}
	}
	raw := p.src[first.off:end]
	// The parts are lowered to a chain of concatenations.
	p.lengthen(len(p.a.fstack)-mark, cFString)
	p.settle(saved, p.height())
	if !hasF {
		n := take(&p.a.strs)
		*n = Str{pos: at, Raw: raw, Val: lit.take(), Bytes: bytes}
		return n
	}
	if lit.len() > 0 {
		p.a.fstack = append(p.a.fstack, fpart{Lit: lit.take()})
	}
	n := take(&p.a.fstrs)
	*n = FStr{pos: at, Raw: raw, Parts: p.fpartList(mark)}
	return n
}

// fpartList pops the parts above mark off the part stack.
func (p *parser) fpartList(mark int) []fpart {
	a := p.a
	out := takeList(&a.fparts, a.fstack[mark:])
	clear(a.fstack[mark:])
	a.fstack = a.fstack[:mark]
	return out
}

// posOf returns the position of byte offset off within token t. It
// goes on from the position it found last when it can: the fields of an
// f-string ask in order, and counting from the token's start for each
// was quadratic in the length of the string.
func (p *parser) posOf(t *token, off int) pos {
	line, col := t.line, t.col
	from := int(t.off)
	if p.posTok == t && p.posOff <= off {
		from, line, col = p.posOff, p.posAt.Line, p.posAt.Col
	}
	defer func() { p.posTok, p.posOff, p.posAt = t, off, pos{line, col} }()
	for i := from; i < off; i++ {
		if p.src[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return pos{line, col}
}

// fstring splits src[i:end] of f-string token t (a whole body, or a
// format spec when depth > 0) into literal parts and replacement fields,
// which it pushes onto the part stack. At depth 0 literal text goes to
// lit, the literal text of the whole string so far, and is pushed before
// a field; at depth > 0 lit is nil and literals are pushed as they are.
func (p *parser) fstring(t *token, i, end, depth int, lit *litBuf) {
	raw := t.flags&strRaw != 0
	nested := lit == nil
	if nested {
		lit = new(litBuf)
	}
	seg := i
	fields := 0
	flush := func(upto int) {
		text := p.src[seg:upto]
		if raw {
			lit.add(normalizeNewlines(text))
		} else {
			v, msg, needs := unescape(text, false)
			if msg != "" {
				at := p.posOf(t, seg)
				panic(bailout{&Error{Line: int(at.Line), Col: int(at.Col), Msg: msg, NeedsPython: needs}})
			}
			lit.add(v)
		}
	}
	for i < end {
		c := p.src[i]
		switch {
		case c == '\\' && !raw && i+2 < end && p.src[i+1] == 'N' && p.src[i+2] == '{':
			// \N{NAME} holds braces that are not a field.
			j := strings.IndexByte(p.src[i:end], '}')
			if j < 0 {
				i = end
			} else {
				i += j + 1
			}
		case c == '\\':
			// Skip the escaped character unless it opens or closes a
			// field: in 3.11, "\{x}" is a backslash and a field.
			i++
			if i < end && p.src[i] != '{' && p.src[i] != '}' {
				i++
			}
		case c == '{' && depth == 0 && i+1 < end && p.src[i+1] == '{':
			flush(i + 1)
			i += 2
			seg = i
		case c == '}' && depth == 0 && i+1 < end && p.src[i+1] == '}':
			flush(i + 1)
			i += 2
			seg = i
		case c == '}':
			p.failAt(p.posOf(t, i), "f-string: single '}' is not allowed")
		case c == '{':
			flush(i)
			if nested && lit.len() > 0 {
				p.a.fstack = append(p.a.fstack, fpart{Lit: lit.take()})
			}
			if depth >= 2 {
				p.failAt(p.posOf(t, i), "f-string: expressions nested too deeply")
			}
			// The fields are lowered to a chain of concatenations
			// (strings counts them all; this refuses early).
			if fields++; p.depth+fields > maxDepth {
				p.tooDeep(cFString)
			}
			var f fpart
			var debug string
			f, debug, i = p.field(t, i+1, end, depth)
			if nested {
				if debug != "" {
					p.a.fstack = append(p.a.fstack, fpart{Lit: debug})
				}
			} else {
				lit.add(debug)
				if lit.len() > 0 {
					p.a.fstack = append(p.a.fstack, fpart{Lit: lit.take()})
				}
			}
			p.a.fstack = append(p.a.fstack, f)
			seg = i
		default:
			i++
		}
	}
	if i > end {
		i = end
	}
	flush(i)
	if nested && lit.len() > 0 {
		p.a.fstack = append(p.a.fstack, fpart{Lit: lit.take()})
	}
}

// field parses one replacement field starting after its '{' and returns
// it, the literal a debugging '=' adds before it ("" if none) and the
// offset after '}'.
func (p *parser) field(t *token, i, end, depth int) (fpart, string, int) {
	start := i
	nest := 0
	debug := false
	exprEnd := -1
scan:
	for i < end {
		c := p.src[i]
		switch c {
		case '\'', '"':
			q := c
			triple := i+2 < end && p.src[i+1] == q && p.src[i+2] == q
			if triple {
				i += 3
			} else {
				i++
			}
			for i < end {
				if p.src[i] == '\\' {
					p.failAt(p.posOf(t, i), "f-string expression part cannot include a backslash")
				}
				if p.src[i] == q && (!triple || i+2 < end && p.src[i+1] == q && p.src[i+2] == q) {
					break
				}
				i++
			}
			if i >= end {
				p.failAt(p.posOf(t, start), "f-string: unterminated string")
			}
			if triple {
				i += 3
			} else {
				i++
			}
			continue
		case '(', '[', '{':
			nest++
		case ')', ']':
			if nest == 0 {
				p.failAt(p.posOf(t, i), "f-string: unmatched '"+string(c)+"'")
			}
			nest--
		case '}':
			if nest == 0 {
				exprEnd = i
				break scan
			}
			nest--
		case '!':
			if nest == 0 && (i+1 >= end || p.src[i+1] != '=') {
				exprEnd = i
				break scan
			}
			if i+1 < end && p.src[i+1] == '=' {
				i += 2
				continue
			}
		case ':':
			if nest == 0 {
				exprEnd = i
				break scan
			}
		case '=':
			if nest == 0 {
				if i+1 < end && p.src[i+1] == '=' {
					i += 2
					continue
				}
				if prev := p.src[i-1]; i > start && (prev == '=' || prev == '!' || prev == '<' || prev == '>') {
					break
				}
				exprEnd = i
				debug = true
				break scan
			}
		case '#':
			p.failAt(p.posOf(t, i), "f-string expression part cannot include '#'")
		case '\\':
			p.failAt(p.posOf(t, i), "f-string expression part cannot include a backslash")
		}
		i++
	}
	if exprEnd < 0 {
		p.failAt(p.posOf(t, start-1), "f-string: expecting '}'")
	}
	if strings.TrimSpace(p.src[start:exprEnd]) == "" {
		p.failAt(p.posOf(t, start-1), "f-string: empty expression not allowed")
	}
	var debugLit string
	f := fpart{}
	if debug {
		i++
		for i < end && (p.src[i] == ' ' || p.src[i] == '\t' || p.src[i] == '\n' || p.src[i] == '\r') {
			i++
		}
		debugLit = normalizeNewlines(p.src[start:i])
	}
	if i < end && p.src[i] == '!' {
		i++
		if i >= end || (p.src[i] != 'r' && p.src[i] != 's' && p.src[i] != 'a') {
			p.failAt(p.posOf(t, i), "f-string: invalid conversion character: expected 's', 'r', or 'a'")
		}
		f.Conv = p.src[i]
		i++
	}
	hasSpec := false
	if i < end && p.src[i] == ':' {
		hasSpec = true
		i++
		specStart := i
		nest := 0
		for i < end {
			c := p.src[i]
			if c == '{' {
				nest++
			} else if c == '}' {
				if nest == 0 {
					break
				}
				nest--
			}
			i++
		}
		mark := len(p.a.fstack)
		p.fstring(t, specStart, i, depth+1, nil)
		f.Spec = p.fpartList(mark)
		p.lengthen(len(f.Spec), cFString)
	}
	if i >= end || p.src[i] != '}' {
		p.failAt(p.posOf(t, start-1), "f-string: expecting '}'")
	}
	i++
	if debug && f.Conv == 0 && !hasSpec {
		f.Conv = 'r'
	}
	at := p.posOf(t, start)
	toks, err := scanField(p.src, start, exprEnd, at.Line, at.Col, p.a.fieldToks, p.a.brackets)
	p.a.fieldToks = nil
	if err != nil {
		e := err.(*Error)
		if !strings.HasPrefix(e.Msg, "f-string") {
			e.Msg = "f-string: " + e.Msg
		}
		panic(bailout{e})
	}
	sub := &parser{src: p.src, toks: toks, funcs: p.funcs, loops: p.loops, a: p.a, depth: p.depth, peak: p.peak}
	sub.enter(cFString)
	defer func() { p.peak = sub.peak }()
	func() {
		defer func() {
			if r := recover(); r != nil {
				if b, ok := r.(bailout); ok && !strings.HasPrefix(b.err.Msg, "f-string") && !strings.HasPrefix(b.err.Msg, "the code is nested too deeply") {
					b.err.Msg = "f-string: " + b.err.Msg
				}
				panic(r)
			}
		}()
		if sub.kind() == kwYield {
			f.X = sub.yieldExpr()
		} else {
			f.X = sub.testListStarExpr()
		}
		if sub.kind() != tEOF {
			sub.syntaxError()
		}
	}()
	if s, ok := f.X.(*Starred); ok {
		p.failAt(s.pos, "f-string: can't use starred expression here")
	}
	p.a.fieldToks = toks[:0] // the field's nodes do not refer to its tokens
	return f, debugLit, i
}
