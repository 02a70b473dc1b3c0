package pyfront

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/star-agent/star-agent/pyvalue/ucd"
)

// The scanner turns Python source into tokens, following CPython 3.11's
// tokenizer: INDENT/DEDENT/NEWLINE from indentation, implicit line joining
// inside brackets, backslash continuation, and string literals decoded
// here (f-strings are kept as text and split by the parser).

type tokKind uint8

const (
	tEOF tokKind = iota
	tNEWLINE
	tINDENT
	tDEDENT
	tNAME
	tNUMBER
	tSTRING

	tLPAREN
	tRPAREN
	tLBRACK
	tRBRACK
	tLBRACE
	tRBRACE
	tCOMMA
	tCOLON
	tDOT
	tSEMI
	tAT
	tASSIGN // =
	tARROW
	tWALRUS
	tELLIPSIS
	tBANG // only inside f-string fields

	tPLUS
	tMINUS
	tSTAR
	tSTARSTAR
	tSLASH
	tSLASHSLASH
	tPERCENT
	tAMP
	tPIPE
	tCARET
	tTILDE
	tLTLT
	tGTGT

	tLT
	tGT
	tLE
	tGE
	tEQ
	tNE

	tPLUSEQ
	tMINUSEQ
	tSTAREQ
	tSTARSTAREQ
	tSLASHEQ
	tSLASHSLASHEQ
	tPERCENTEQ
	tAMPEQ
	tPIPEEQ
	tCARETEQ
	tLTLTEQ
	tGTGTEQ
	tATEQ

	kwFalse
	kwNone
	kwTrue
	kwAnd
	kwAs
	kwAssert
	kwAsync
	kwAwait
	kwBreak
	kwClass
	kwContinue
	kwDef
	kwDel
	kwElif
	kwElse
	kwExcept
	kwFinally
	kwFor
	kwFrom
	kwGlobal
	kwIf
	kwImport
	kwIn
	kwIs
	kwLambda
	kwNonlocal
	kwNot
	kwOr
	kwPass
	kwRaise
	kwReturn
	kwTry
	kwWhile
	kwWith
	kwYield
)

var tokText = map[tokKind]string{
	tLPAREN: "(", tRPAREN: ")", tLBRACK: "[", tRBRACK: "]", tLBRACE: "{", tRBRACE: "}",
	tCOMMA: ",", tCOLON: ":", tDOT: ".", tSEMI: ";", tAT: "@", tASSIGN: "=",
	tARROW: "->", tWALRUS: ":=", tELLIPSIS: "...", tBANG: "!",
	tPLUS: "+", tMINUS: "-", tSTAR: "*", tSTARSTAR: "**", tSLASH: "/",
	tSLASHSLASH: "//", tPERCENT: "%", tAMP: "&", tPIPE: "|", tCARET: "^",
	tTILDE: "~", tLTLT: "<<", tGTGT: ">>", tLT: "<", tGT: ">", tLE: "<=",
	tGE: ">=", tEQ: "==", tNE: "!=", tPLUSEQ: "+=", tMINUSEQ: "-=",
	tSTAREQ: "*=", tSTARSTAREQ: "**=", tSLASHEQ: "/=", tSLASHSLASHEQ: "//=",
	tPERCENTEQ: "%=", tAMPEQ: "&=", tPIPEEQ: "|=", tCARETEQ: "^=",
	tLTLTEQ: "<<=", tGTGTEQ: ">>=", tATEQ: "@=",
}

// String flags of a tSTRING token.
const (
	strRaw uint8 = 1 << iota
	strBytes
	strF
)

// token is one token. Positions are 1-based; off/end delimit its source
// text and, for strings, body/bodyEnd the text between the quotes. Values
// of literals are decoded by the parser, keeping tokens small.
type token struct {
	kind          tokKind
	flags         uint8 // strRaw|strBytes|strF for strings
	line, col     int32
	off, end      int32
	body, bodyEnd int32
}

type indent struct{ col, alt int }

// maxNesting bounds bracket nesting, as CPython's tokenizer does (200),
// which also bounds the parser's recursion.
const maxNesting = 200

// scanner tokenizes src[pos:end]. In field mode (an f-string replacement
// field) newlines are insignificant and there is no indentation.
type scanner struct {
	src       string
	pos, end  int
	line      int32
	lineStart int
	field     bool
	toks      []token
	indents   []indent
	brackets  []token
}

// scanFile tokenizes a whole module into a's token buffer, using its
// scratch stacks.
func scanFile(src string, a *arena) ([]token, error) {
	s := &scanner{src: src, end: len(src), line: 1}
	s.indents = append(a.indents[:0], indent{})
	s.brackets = a.brackets[:0]
	s.toks = a.toks[:0]
	if cap(s.toks) < len(src)/3+8 {
		s.toks = make([]token, 0, len(src)/3+8)
	}
	err := s.run()
	a.toks, a.indents, a.brackets = s.toks[:0], s.indents[:0], s.brackets[:0]
	if err != nil {
		return nil, err
	}
	return s.toks, nil
}

// scanField tokenizes the expression of an f-string replacement field,
// src[off:end], which starts at line/col, appending to buf[:0]; brackets
// is a free stack for the scanner's brackets.
func scanField(src string, off, end int, line, col int32, buf, brackets []token) ([]token, error) {
	s := &scanner{src: src, pos: off, end: end, line: line, lineStart: off - int(col) + 1, field: true, brackets: brackets[:0]}
	if cap(buf) < (end-off)/2+2 {
		buf = make([]token, 0, (end-off)/2+4)
	}
	s.toks = buf[:0]
	if err := s.run(); err != nil {
		return nil, err
	}
	return s.toks, nil
}

func (s *scanner) col() int32 { return int32(s.pos-s.lineStart) + 1 }

func (s *scanner) errAt(line, col int32, msg string) *Error {
	return &Error{Line: int(line), Col: int(col), Msg: msg}
}

func (s *scanner) err(msg string) *Error { return s.errAt(s.line, s.col(), msg) }

func (s *scanner) emit(k tokKind, off int, line, col int32) *token {
	s.toks = append(s.toks, token{kind: k, line: line, col: col, off: int32(off), end: int32(s.pos)})
	return &s.toks[len(s.toks)-1]
}

func (s *scanner) lastKind() tokKind {
	if len(s.toks) == 0 {
		return tNEWLINE
	}
	return s.toks[len(s.toks)-1].kind
}

func (s *scanner) newline() {
	s.line++
	s.lineStart = s.pos
}

func (s *scanner) run() error {
	atLineStart := !s.field
	for {
		if atLineStart {
			done, err := s.indentation()
			if err != nil {
				return err
			}
			if done {
				break
			}
			atLineStart = false
		}
		// Skip blanks.
		for s.pos < s.end && (s.src[s.pos] == ' ' || s.src[s.pos] == '\t' || s.src[s.pos] == '\f') {
			s.pos++
		}
		if s.pos >= s.end {
			break
		}
		c := s.src[s.pos]
		switch {
		case c == '#':
			if s.field {
				return s.err("f-string expression part cannot include '#'")
			}
			for s.pos < s.end && s.src[s.pos] != '\n' && s.src[s.pos] != '\r' {
				s.pos++
			}
		case c == '\\':
			if s.field {
				return s.err("f-string expression part cannot include a backslash")
			}
			s.pos++
			if s.pos < s.end && s.src[s.pos] == '\r' {
				s.pos++
			}
			if s.pos < s.end && s.src[s.pos] == '\n' {
				s.pos++
			} else if s.pos < s.end {
				return s.err("unexpected character after line continuation character")
			} else {
				return s.err("unexpected EOF while parsing")
			}
			s.newline()
		case c == '\n' || c == '\r':
			if len(s.brackets) == 0 && !s.field {
				s.emit(tNEWLINE, s.pos, s.line, s.col())
			}
			if c == '\r' && s.pos+1 < s.end && s.src[s.pos+1] == '\n' {
				s.pos++
			}
			s.pos++
			s.newline()
			atLineStart = len(s.brackets) == 0 && !s.field
		case c >= '0' && c <= '9' || c == '.' && s.pos+1 < s.end && isDigit(s.src[s.pos+1]):
			if err := s.number(); err != nil {
				return err
			}
		case c == '"' || c == '\'':
			if err := s.string(s.pos, 0); err != nil {
				return err
			}
		case c < utf8.RuneSelf && (c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') || c >= utf8.RuneSelf:
			if err := s.name(); err != nil {
				return err
			}
		default:
			if err := s.operator(); err != nil {
				return err
			}
		}
	}
	if len(s.brackets) > 0 && !s.field {
		b := s.brackets[len(s.brackets)-1]
		return s.errAt(b.line, b.col, "'"+tokText[b.kind]+"' was never closed")
	}
	if !s.field {
		if k := s.lastKind(); k != tNEWLINE && k != tDEDENT && k != tINDENT {
			s.emit(tNEWLINE, s.pos, s.line, s.col())
		}
		for len(s.indents) > 1 {
			s.indents = s.indents[:len(s.indents)-1]
			s.emit(tDEDENT, s.pos, s.line, s.col())
		}
	}
	s.emit(tEOF, s.pos, s.line, s.col())
	return nil
}

// indentation measures the indentation of a new logical line and emits
// INDENT/DEDENT tokens. Blank and comment-only lines are skipped. done
// reports the end of input.
func (s *scanner) indentation() (done bool, err error) {
	for {
		col, alt := 0, 0
		p := s.pos
	measure:
		for ; p < s.end; p++ {
			switch s.src[p] {
			case ' ':
				col++
				alt++
			case '\t':
				col = (col/8 + 1) * 8
				alt++
			case '\f':
				col, alt = 0, 0
			default:
				break measure
			}
		}
		if p >= s.end {
			s.pos = p
			return true, nil
		}
		switch s.src[p] {
		case '#':
			for p < s.end && s.src[p] != '\n' && s.src[p] != '\r' {
				p++
			}
			fallthrough
		case '\n', '\r':
			if p < s.end && s.src[p] == '\r' {
				p++
			}
			if p < s.end && s.src[p] == '\n' {
				p++
			}
			s.pos = p
			if p >= s.end {
				return true, nil
			}
			s.newline()
			continue
		}
		s.pos = p
		top := s.indents[len(s.indents)-1]
		switch {
		case col == top.col:
			if alt != top.alt {
				return false, s.tabError()
			}
		case col > top.col:
			if alt <= top.alt {
				return false, s.tabError()
			}
			if len(s.indents) > 100 {
				e := s.err("too many levels of indentation")
				e.Type = "IndentationError"
				return false, e
			}
			s.indents = append(s.indents, indent{col, alt})
			s.emit(tINDENT, s.pos, s.line, s.col())
		default:
			for len(s.indents) > 1 && col < s.indents[len(s.indents)-1].col {
				s.indents = s.indents[:len(s.indents)-1]
				s.emit(tDEDENT, s.pos, s.line, s.col())
			}
			top = s.indents[len(s.indents)-1]
			if col != top.col {
				e := s.err("unindent does not match any outer indentation level")
				e.Type = "IndentationError"
				return false, e
			}
			if alt != top.alt {
				return false, s.tabError()
			}
		}
		return false, nil
	}
}

func (s *scanner) tabError() *Error {
	e := s.err("inconsistent use of tabs and spaces in indentation")
	e.Type = "TabError"
	return e
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentStart(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.Is(unicode.Nl, r)
}

func isIdentPart(r rune) bool {
	return isIdentStart(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r) || unicode.Is(unicode.Pc, r)
}

func (s *scanner) name() error {
	start, line, col := s.pos, s.line, s.col()
	for s.pos < s.end {
		c := s.src[s.pos]
		if c < utf8.RuneSelf {
			if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) {
				s.pos++
				continue
			}
			break
		}
		r, n := utf8.DecodeRuneInString(s.src[s.pos:])
		ok := isIdentPart(r)
		if s.pos == start {
			ok = isIdentStart(r)
		}
		if !ok {
			if s.pos == start {
				return s.err("invalid character '" + string(r) + "' (U+" + strings.ToUpper(strconv.FormatInt(int64(r), 16)) + ")")
			}
			break
		}
		s.pos += n
	}
	word := s.src[start:s.pos]
	// String prefixes.
	if s.pos < s.end && (s.src[s.pos] == '\'' || s.src[s.pos] == '"') && len(word) <= 2 {
		var flags uint8
		ok := true
		for i := 0; i < len(word); i++ {
			switch word[i] {
			case 'r', 'R':
				ok = ok && flags&strRaw == 0
				flags |= strRaw
			case 'b', 'B':
				ok = ok && flags&(strBytes|strF) == 0
				flags |= strBytes
			case 'f', 'F':
				ok = ok && flags&(strBytes|strF) == 0
				flags |= strF
			case 'u', 'U':
				ok = ok && len(word) == 1
			default:
				ok = false
			}
		}
		if ok {
			return s.string(start, flags)
		}
	}
	s.emit(keyword(word), start, line, col)
	return nil
}

// keyword returns the keyword token kind of word, or tNAME: keywords
// without a map lookup, as every name is checked.
func keyword(word string) tokKind {
	if len(word) < 2 || len(word) > 8 || word[0] < 'F' || word[0] > 'y' {
		return tNAME
	}
	switch word {
	case "False":
		return kwFalse
	case "None":
		return kwNone
	case "True":
		return kwTrue
	case "and":
		return kwAnd
	case "as":
		return kwAs
	case "assert":
		return kwAssert
	case "async":
		return kwAsync
	case "await":
		return kwAwait
	case "break":
		return kwBreak
	case "class":
		return kwClass
	case "continue":
		return kwContinue
	case "def":
		return kwDef
	case "del":
		return kwDel
	case "elif":
		return kwElif
	case "else":
		return kwElse
	case "except":
		return kwExcept
	case "finally":
		return kwFinally
	case "for":
		return kwFor
	case "from":
		return kwFrom
	case "global":
		return kwGlobal
	case "if":
		return kwIf
	case "import":
		return kwImport
	case "in":
		return kwIn
	case "is":
		return kwIs
	case "lambda":
		return kwLambda
	case "nonlocal":
		return kwNonlocal
	case "not":
		return kwNot
	case "or":
		return kwOr
	case "pass":
		return kwPass
	case "raise":
		return kwRaise
	case "return":
		return kwReturn
	case "try":
		return kwTry
	case "while":
		return kwWhile
	case "with":
		return kwWith
	case "yield":
		return kwYield
	}
	return tNAME
}

// number scans a numeric literal following Python's grammar.
func (s *scanner) number() error {
	start, line, col := s.pos, s.line, s.col()
	src := s.src[:s.end]
	bad := func() error { return s.errAt(line, col, "invalid decimal literal") }
	digits := func(ok func(byte) bool) bool { // (_? digit)+ ; false if malformed
		n := 0
		for s.pos < len(src) {
			c := src[s.pos]
			if c == '_' {
				if s.pos+1 >= len(src) || !ok(src[s.pos+1]) {
					return false
				}
				s.pos++
				continue
			}
			if !ok(c) {
				break
			}
			s.pos++
			n++
		}
		return n > 0
	}
	isFloat := false
	if src[s.pos] == '0' && s.pos+1 < len(src) && strings.IndexByte("xXoObB", src[s.pos+1]) >= 0 {
		base := 16
		var ok func(byte) bool
		switch src[s.pos+1] | 0x20 {
		case 'x':
			ok = func(c byte) bool { return isDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'f' }
		case 'o':
			base = 8
			ok = func(c byte) bool { return c >= '0' && c <= '7' }
		default:
			base = 2
			ok = func(c byte) bool { return c == '0' || c == '1' }
		}
		s.pos += 2
		if s.pos < len(src) && src[s.pos] == '_' {
			s.pos++
		}
		if !digits(ok) {
			return s.errAt(line, col, "invalid "+baseName(base)+" literal")
		}
		if s.pos < len(src) && (isDigit(src[s.pos]) || isIdentByte(src[s.pos])) {
			return s.errAt(line, col, "invalid "+baseName(base)+" literal")
		}
		s.emit(tNUMBER, start, line, col)
		return nil
	}
	if src[s.pos] != '.' {
		if !digits(isDigit) {
			return bad()
		}
	}
	if s.pos < len(src) && src[s.pos] == '.' {
		isFloat = true
		s.pos++
		if s.pos < len(src) && isDigit(src[s.pos]) && !digits(isDigit) {
			return bad()
		}
	}
	if s.pos < len(src) && src[s.pos]|0x20 == 'e' {
		p := s.pos + 1
		if p < len(src) && (src[p] == '+' || src[p] == '-') {
			p++
		}
		if p < len(src) && isDigit(src[p]) {
			isFloat = true
			s.pos = p
			if !digits(isDigit) {
				return bad()
			}
		}
	}
	imag := false
	if s.pos < len(src) && src[s.pos]|0x20 == 'j' {
		imag = true
		s.pos++
	}
	if s.pos < len(src) && (isIdentByte(src[s.pos]) || src[s.pos] >= utf8.RuneSelf) {
		return bad()
	}
	if !isFloat && !imag && s.pos-start > 1 && src[start] == '0' && strings.Trim(src[start:s.pos], "0_") != "" {
		return s.errAt(line, col, "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers")
	}
	s.emit(tNUMBER, start, line, col)
	return nil
}

// numValue converts a numeric literal the scanner accepted to int64,
// *big.Int or float64, and reports whether it is imaginary.
func numValue(raw string) (any, bool) {
	text := raw
	if strings.IndexByte(text, '_') >= 0 {
		text = strings.ReplaceAll(text, "_", "")
	}
	if len(text) > 2 && text[0] == '0' {
		switch text[1] | 0x20 {
		case 'x':
			return parseInt(text[2:], 16), false
		case 'o':
			return parseInt(text[2:], 8), false
		case 'b':
			return parseInt(text[2:], 2), false
		}
	}
	imag := text[len(text)-1]|0x20 == 'j'
	if imag {
		text = text[:len(text)-1]
	}
	if imag || strings.ContainsAny(text, ".eE") {
		f, _ := strconv.ParseFloat(text, 64) // ±Inf on overflow, as CPython
		return f, imag
	}
	return parseInt(text, 10), false
}

// maxIntDigits is CPython's limit on decimal integer literals (and on
// int<->str conversions, which package builtins applies): converting
// decimal text to a big integer is quadratic in its length.
const maxIntDigits = 4300

// decimalDigits returns the number of digits of a decimal integer literal,
// or 0 for any other number (hexadecimal, octal, binary, float, imaginary).
func decimalDigits(raw string) int {
	if len(raw) > 1 && raw[0] == '0' && strings.ContainsAny(raw[1:2], "xXoObB") {
		return 0
	}
	n := 0
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c >= '0' && c <= '9':
			n++
		case c == '_':
		default:
			return 0 // '.', 'e', 'j': not an integer
		}
	}
	return n
}

func baseName(base int) string {
	switch base {
	case 16:
		return "hexadecimal"
	case 8:
		return "octal"
	}
	return "binary"
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c)
}

func parseInt(text string, base int) any {
	if v, err := strconv.ParseInt(text, base, 64); err == nil {
		return v
	}
	b, _ := new(big.Int).SetString(text, base)
	return b
}

// string scans a string literal whose prefix starts at start and whose
// quote is at s.pos.
func (s *scanner) string(start int, flags uint8) error {
	line, col := s.line, int32(start-s.lineStart)+1
	q := s.src[s.pos]
	triple := s.pos+2 < s.end && s.src[s.pos+1] == q && s.src[s.pos+2] == q
	if triple {
		s.pos += 3
	} else {
		s.pos++
	}
	body := s.pos
	for {
		if s.pos >= s.end {
			if triple {
				last := s.line
				if s.end > 0 && s.src[s.end-1] == '\n' && last > line {
					last-- // CPython counts the last line that has text
				}
				return s.errAt(line, col, "unterminated triple-quoted string literal (detected at line "+strconv.Itoa(int(last))+")")
			}
			return s.errAt(line, col, "unterminated string literal (detected at line "+strconv.Itoa(int(s.line))+")")
		}
		c := s.src[s.pos]
		if c == '\\' {
			s.pos++
			if s.pos < s.end {
				if s.src[s.pos] == '\r' && s.pos+1 < s.end && s.src[s.pos+1] == '\n' {
					s.pos++
				}
				if s.src[s.pos] == '\n' || s.src[s.pos] == '\r' {
					s.pos++
					s.newline()
					continue
				}
				s.pos++
			}
			continue
		}
		if c == '\n' || c == '\r' {
			if !triple {
				return s.errAt(line, col, "unterminated string literal (detected at line "+strconv.Itoa(int(s.line))+")")
			}
			if c == '\r' && s.pos+1 < s.end && s.src[s.pos+1] == '\n' {
				s.pos++
			}
			s.pos++
			s.newline()
			continue
		}
		if c == q {
			if !triple {
				break
			}
			if s.pos+2 < s.end && s.src[s.pos+1] == q && s.src[s.pos+2] == q {
				break
			}
		}
		s.pos++
	}
	bodyEnd := s.pos
	if triple {
		s.pos += 3
	} else {
		s.pos++
	}
	t := s.emit(tSTRING, start, line, col)
	t.flags = flags
	t.body, t.bodyEnd = int32(body), int32(bodyEnd)
	if flags&strBytes != 0 {
		for i := body; i < bodyEnd; i++ {
			if s.src[i] >= utf8.RuneSelf {
				return s.errAt(line, col, "bytes can only contain ASCII literal characters")
			}
		}
	}
	return nil
}

func normalizeNewlines(s string) string {
	if strings.IndexByte(s, '\r') < 0 {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// unescape decodes Python escape sequences. On failure it returns a
// message and whether the construct is valid Python we cannot represent.
func unescape(text string, bytes bool) (string, string, bool) {
	if strings.IndexByte(text, '\\') < 0 {
		return normalizeNewlines(text), "", false
	}
	var b strings.Builder
	b.Grow(len(text))
	for i := 0; i < len(text); {
		c := text[i]
		if c == '\r' {
			b.WriteByte('\n')
			i++
			if i < len(text) && text[i] == '\n' {
				i++
			}
			continue
		}
		if c != '\\' || i+1 >= len(text) {
			b.WriteByte(c)
			i++
			continue
		}
		e := text[i+1]
		i += 2
		switch e {
		case '\n':
		case '\r':
			if i < len(text) && text[i] == '\n' {
				i++
			}
		case '\\', '\'', '"':
			b.WriteByte(e)
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'f':
			b.WriteByte(12)
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte(11)
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v := int(e - '0')
			for n := 1; n < 3 && i < len(text) && text[i] >= '0' && text[i] <= '7'; n++ {
				v = v*8 + int(text[i]-'0')
				i++
			}
			if bytes {
				b.WriteByte(byte(v))
			} else {
				b.WriteRune(rune(v))
			}
		case 'x', 'u', 'U':
			n := 2
			if e == 'u' {
				n = 4
			} else if e == 'U' {
				n = 8
			}
			if bytes && e != 'x' {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			if i+n > len(text) {
				return "", "(unicode error) truncated \\" + string(e) + " escape", false
			}
			v, err := strconv.ParseUint(text[i:i+n], 16, 32)
			if err != nil {
				return "", "(unicode error) truncated \\" + string(e) + " escape", false
			}
			i += n
			switch {
			case bytes:
				b.WriteByte(byte(v))
			case v > unicode.MaxRune:
				return "", "(unicode error) illegal Unicode character", false
			case v >= 0xD800 && v < 0xE000:
				return "", "lone surrogate escapes are not supported by the Starlark engine", true
			default:
				b.WriteRune(rune(v))
			}
		case 'N':
			if bytes {
				b.WriteString("\\N")
				continue
			}
			// \N{name}: CPython's unicode-escape decoder reports the
			// bytes from the backslash to where it gave up.
			bs := i - 2
			fail := func(upto int, why string) (string, string, bool) {
				return "", fmt.Sprintf("(unicode error) 'unicodeescape' codec can't decode bytes in position %d-%d: %s", bs, upto-1, why), false
			}
			if i >= len(text) || text[i] != '{' {
				return fail(i, "malformed \\N character escape")
			}
			j := strings.IndexByte(text[i+1:], '}')
			if j < 0 {
				return fail(len(text), "malformed \\N character escape")
			}
			if j == 0 {
				return fail(i+1, "malformed \\N character escape")
			}
			r, ok := ucd.LookupCharName(text[i+1 : i+1+j])
			if !ok {
				return fail(i+2+j, "unknown Unicode character name")
			}
			b.WriteRune(r)
			i += j + 2
		default:
			b.WriteByte('\\')
			i--
		}
	}
	return b.String(), "", false
}

// Operator tables indexed by the operator's first byte.
var opSingle, opEq, opDouble, opDoubleEq [128]tokKind

func init() {
	for _, o := range []struct {
		c                      byte
		single, eq, dbl, dblEq tokKind
	}{
		{'+', tPLUS, tPLUSEQ, 0, 0}, {'%', tPERCENT, tPERCENTEQ, 0, 0},
		{'&', tAMP, tAMPEQ, 0, 0}, {'|', tPIPE, tPIPEEQ, 0, 0},
		{'^', tCARET, tCARETEQ, 0, 0}, {'@', tAT, tATEQ, 0, 0},
		{'*', tSTAR, tSTAREQ, tSTARSTAR, tSTARSTAREQ},
		{'/', tSLASH, tSLASHEQ, tSLASHSLASH, tSLASHSLASHEQ},
		{'<', tLT, tLE, tLTLT, tLTLTEQ}, {'>', tGT, tGE, tGTGT, tGTGTEQ},
	} {
		opSingle[o.c], opEq[o.c], opDouble[o.c], opDoubleEq[o.c] = o.single, o.eq, o.dbl, o.dblEq
	}
}

func (s *scanner) operator() error {
	start, line, col := s.pos, s.line, s.col()
	src := s.src[:s.end]
	c := src[s.pos]
	next := func(i int) byte {
		if s.pos+i < len(src) {
			return src[s.pos+i]
		}
		return 0
	}
	var k tokKind
	n := 1
	switch c {
	case '(':
		k = tLPAREN
	case ')':
		k = tRPAREN
	case '[':
		k = tLBRACK
	case ']':
		k = tRBRACK
	case '{':
		k = tLBRACE
	case '}':
		k = tRBRACE
	case ',':
		k = tCOMMA
	case ';':
		k = tSEMI
	case '~':
		k = tTILDE
	case ':':
		k = tCOLON
		if next(1) == '=' {
			k, n = tWALRUS, 2
		}
	case '.':
		k = tDOT
		if next(1) == '.' && next(2) == '.' {
			k, n = tELLIPSIS, 3
		}
	case '=':
		k = tASSIGN
		if next(1) == '=' {
			k, n = tEQ, 2
		}
	case '!':
		k = tBANG
		if next(1) == '=' {
			k, n = tNE, 2
		} else if !s.field {
			return s.err("invalid syntax")
		}
	case '-':
		k = tMINUS
		if next(1) == '=' {
			k, n = tMINUSEQ, 2
		} else if next(1) == '>' {
			k, n = tARROW, 2
		}
	case '+', '%', '&', '|', '^', '@':
		k = opSingle[c]
		if next(1) == '=' {
			k, n = opEq[c], 2
		}
	case '*', '/', '<', '>':
		k = opSingle[c]
		switch {
		case next(1) == c && next(2) == '=':
			k, n = opDoubleEq[c], 3
		case next(1) == c:
			k, n = opDouble[c], 2
		case next(1) == '=':
			k, n = opEq[c], 2
		case c == '<' && next(1) == '>':
			return s.err("invalid syntax")
		}
	default:
		r, _ := utf8.DecodeRuneInString(src[s.pos:])
		if r == '$' || r == '?' || r == '`' {
			return s.err("invalid syntax")
		}
		return s.err("invalid character '" + string(r) + "' (U+" + strings.ToUpper(strconv.FormatInt(int64(r), 16)) + ")")
	}
	s.pos += n
	t := s.emit(k, start, line, col)
	switch k {
	case tLPAREN, tLBRACK, tLBRACE:
		if len(s.brackets) >= maxNesting {
			return s.errAt(line, col, "too many nested parentheses")
		}
		s.brackets = append(s.brackets, *t)
	case tRPAREN, tRBRACK, tRBRACE:
		if len(s.brackets) == 0 {
			if s.field {
				return nil // the parser reports it
			}
			return s.errAt(line, col, "unmatched '"+tokText[k]+"'")
		}
		open := s.brackets[len(s.brackets)-1]
		if open.kind+1 != k {
			msg := "closing parenthesis '" + tokText[k] + "' does not match opening parenthesis '" + tokText[open.kind] + "'"
			if open.line != line {
				msg += " on line " + strconv.Itoa(int(open.line))
			}
			return s.errAt(line, col, msg)
		}
		s.brackets = s.brackets[:len(s.brackets)-1]
	}
	return nil
}
