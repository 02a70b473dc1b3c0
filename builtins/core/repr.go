package core

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// Representer is implemented by values whose repr and str are defined by
// the program (the front end's class instances with __repr__/__str__) or
// by a module (datetime.date). The thread lets them call user code.
type Representer interface {
	starlark.Value
	PyRepr(th *starlark.Thread) (string, error)
	PyStr(th *starlark.Thread) (string, error)
}

// Repr renders v as CPython's repr() would. A user-defined __repr__ it
// meets runs on the thread of the execution in progress (see
// Class.userThread), under that execution's deadline and budgets; the
// printing itself runs on a scratch thread with small step and memory
// limits. The engine should prefer ReprValue with the execution's thread.
func Repr(v starlark.Value) string {
	s, err := ReprValue(scratchThread("repr"), v)
	if err != nil {
		return reprFallback(v, err)
	}
	return s
}

// Str renders v as CPython's str() would.
func Str(v starlark.Value) string {
	s, err := StrValue(scratchThread("str"), v)
	if err != nil {
		return reprFallback(v, err)
	}
	return s
}

// reprFallback is what Repr and Str show of a value whose repr failed.
// go.starlark.net's own String is no fallback for a container: it is
// quadratic in the nesting depth (a 200,000-deep list took a minute) and
// unbounded in size, and a repr that failed on depth or on the deadline
// would fail there too.
func reprFallback(v starlark.Value, err error) string {
	switch v.(type) {
	case *starlark.List, starlark.Tuple, *starlark.Dict, *starlark.Set, *FrozenSet:
		return "<" + TypeName(v) + " object>"
	}
	var in *Interrupt
	if errors.As(err, &in) {
		return "<" + TypeName(v) + " object>"
	}
	return v.String()
}

// Limits of scratchThread: user code run outside an execution (a
// __repr__ called to render a value for the engine) must stay bounded.
const (
	scratchSteps  = 1_000_000
	scratchMemory = 64 << 20
)

// scratchKey marks a scratch thread, so that user code called on one runs
// on the execution's thread instead (Class.userThread).
const scratchKey = "star-agent.scratch"

// scratchThread returns a thread for rendering values outside an
// execution, under its own small limits.
func scratchThread(name string) *starlark.Thread {
	th := &starlark.Thread{Name: name}
	th.SetMaxExecutionSteps(scratchSteps)
	SetBudget(th, &Budget{Limit: scratchMemory})
	th.SetLocal(scratchKey, true)
	PrepareRepr(th)
	return th
}

// isScratch reports whether th is a scratch thread.
func isScratch(th *starlark.Thread) bool { return th != nil && th.Local(scratchKey) != nil }

// ReprValue is repr(v) on thread th, which bounds the size of the result
// by the execution's memory budget and lets user-defined __repr__ run.
// While the engine exports a value with ReprLimited on th, every repr
// built on th stops at the export's limit.
func ReprValue(th *starlark.Thread, v starlark.Value) (string, error) {
	if s, ok := scalarRepr(v); ok {
		return s, nil
	}
	p := printer{th: th, b: &Builder{Th: th}, state: reprStateOf(th)}
	if p.state != nil && p.state.active {
		p.limit = p.state
	}
	if err := p.repr(v, 0); err != nil {
		if p.limit != nil && errors.Is(err, errReprFull) && p.limit.partial == "" {
			// The innermost printer that reached the limit keeps its text
			// for the export; the error unwinds every repr (and any user
			// __repr__) in between.
			p.limit.partial = p.b.String()
		}
		return "", err
	}
	if err := p.b.Err(); err != nil {
		return "", err // a write the budget refused after the last check
	}
	return p.b.String(), nil
}

// reprLimit is the repr state of a thread: how deep the reprs under way
// on it are nested, and the size limit of an export in progress.
type reprLimit struct {
	depth   int    // nesting of the reprs under way, across Representers
	max     int    // bytes a repr may reach, while active
	active  bool   // an export is in progress
	partial string // the text of the innermost repr that reached max
}

const reprLimitKey = "star-agent.reprlimit"

// errReprFull stops every repr under way on a thread once one of them
// reaches the export's limit. User code cannot catch it.
var errReprFull = &Interrupt{Reason: "the repr reached its size limit"}

// reprStateOf returns th's repr state, or nil if it has none.
func reprStateOf(th *starlark.Thread) *reprLimit {
	if th == nil {
		return nil
	}
	l, _ := th.Local(reprLimitKey).(*reprLimit)
	return l
}

// PrepareRepr gives th the state that ReprLimited needs and that bounds
// the nesting of reprs across values that render their parts themselves
// (a deque of deques of ...: each part's repr starts a printer of its own,
// and without a depth kept with the thread, deep enough nesting overflows
// the Go stack). Call it before th starts running (thread locals must not
// change while it runs); threads that share it must not run at once.
func PrepareRepr(th *starlark.Thread) { th.SetLocal(reprLimitKey, &reprLimit{}) }

// ShareRepr gives to the thread the repr state of from, if it has one:
// for the threads of an execution's generators, which run one at a time.
func ShareRepr(to, from *starlark.Thread) {
	if l := reprStateOf(from); l != nil {
		to.SetLocal(reprLimitKey, l)
	}
}

// ReprLimited is repr(v) on th cut to its first max characters: it stops
// building the text once it has more than max (never building the whole of
// a huge repr first), also inside the reprs of nested values and in the
// reprs any user __repr__ builds meanwhile. truncated reports the cut.
// th must have been prepared with PrepareRepr; without it the repr is
// built whole and then cut.
func ReprLimited(th *starlark.Thread, v starlark.Value, max int) (s string, truncated bool, err error) {
	l := reprStateOf(th)
	if l != nil {
		// Up to 4 bytes per character: max bytes are not always max
		// characters, 4*max always are.
		*l = reprLimit{depth: l.depth, max: 4*max + 4, active: true}
		defer func() { *l = reprLimit{depth: l.depth} }()
	}
	s, err = ReprValue(th, v)
	if err != nil {
		if l == nil || !errors.Is(err, errReprFull) {
			return "", false, err
		}
		s, truncated = l.partial, true
	}
	if utf8.RuneCountInString(s) > max {
		s, truncated = s[:runePrefix(s, max)], true
	}
	return s, truncated, nil
}

// runePrefix returns the length in bytes of the first n characters of s.
func runePrefix(s string, n int) int {
	i := 0
	for ; n > 0 && i < len(s); n-- {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i
}

// WriteStr writes str(v) to b, a printer's builder: print's way to
// render a value into an eliding builder without building it whole. It
// writes nothing to b if it fails, unless b elides.
func WriteStr(th *starlark.Thread, b *Builder, v starlark.Value) error {
	if b.keep == 0 || reprStateOf(th) != nil && reprStateOf(th).active {
		s, err := StrValue(th, v)
		if err == nil {
			b.WriteString(s)
		}
		return err
	}
	switch v := v.(type) {
	case starlark.String:
		b.WriteString(string(v))
		return b.Err()
	case Representer:
		s, err := v.PyStr(th)
		if err == nil {
			b.WriteString(s)
		}
		return err
	}
	if s, ok := scalarRepr(v); ok {
		b.WriteString(s)
		return b.Err()
	}
	p := printer{th: th, b: b, state: reprStateOf(th)}
	if err := p.repr(v, 0); err != nil {
		return err
	}
	return b.Err()
}

// StrValue is str(v) on thread th.
func StrValue(th *starlark.Thread, v starlark.Value) (string, error) {
	switch v := v.(type) {
	case starlark.String:
		return string(v), nil
	case Representer:
		return v.PyStr(th)
	}
	return ReprValue(th, v)
}

// scalarRepr is the repr of the values that need neither the budget nor
// a printer: None, booleans, floats and integers that fit in 64 bits
// (str() of a number runs in loops; a big.Int per call would dominate
// them).
func scalarRepr(v starlark.Value) (string, bool) {
	switch v := v.(type) {
	case starlark.Int:
		if i, ok := v.Int64(); ok {
			return strconv.FormatInt(i, 10), true
		}
	case starlark.NoneType:
		return "None", true
	case starlark.Bool:
		if v {
			return "True", true
		}
		return "False", true
	case starlark.Float:
		return FloatRepr(float64(v)), true
	}
	return "", false
}

// printer accumulates a repr, charging the budget as it grows so that
// printing a huge structure cannot exhaust memory.
type printer struct {
	th    *starlark.Thread
	b     *Builder         // charged before each buffer it grows into
	stack []starlark.Value // containers being printed, to render cycles as [...]
	count int
	state *reprLimit // th's repr state, nil if it has none
	limit *reprLimit // state, while an export limits the size
}

const maxReprDepth = 1000

func (p *printer) grow() error {
	if p.limit != nil && p.b.Len() > p.limit.max {
		return errReprFull
	}
	p.count++
	if p.count%4096 == 0 {
		if err := Interrupted(p.th); err != nil {
			return err
		}
	}
	return p.b.Err()
}

func (p *printer) enter(v starlark.Value) bool {
	for _, s := range p.stack {
		if s == v {
			return false
		}
	}
	p.stack = append(p.stack, v)
	return true
}

func (p *printer) leave() { p.stack = p.stack[:len(p.stack)-1] }

// setItems writes the elements of a set or frozenset in braces.
func (p *printer) setItems(elems []starlark.Value, depth int) error {
	p.b.WriteByte('{')
	for i, e := range elems {
		if i > 0 {
			p.b.WriteString(", ")
		}
		if err := p.repr(e, depth+1); err != nil {
			return err
		}
	}
	p.b.WriteByte('}')
	return nil
}

// room is how many more bytes the printer may write before it reaches
// the export's limit (-1: no limit).
func (p *printer) room() int {
	if p.limit == nil {
		return -1
	}
	return max(p.limit.max-p.b.Len(), 0) + 1
}

// text writes s, or as much of it as the export's limit leaves room for.
func (p *printer) text(s string) {
	if r := p.room(); r >= 0 && len(s) > r {
		s = s[:r]
	}
	p.b.WriteString(s)
}

func (p *printer) repr(v starlark.Value, depth int) error {
	if p.state != nil {
		// The depth of the reprs under way on the thread, nested printers
		// included.
		p.state.depth++
		defer func() { p.state.depth-- }()
		depth = max(depth, p.state.depth)
	}
	if depth > maxReprDepth {
		return Errorf(pyexc.RecursionError, "maximum recursion depth exceeded while getting the repr of an object")
	}
	if err := p.grow(); err != nil {
		return err
	}
	switch v := v.(type) {
	case starlark.NoneType:
		p.b.WriteString("None")
	case starlark.Bool:
		if v {
			p.b.WriteString("True")
		} else {
			p.b.WriteString("False")
		}
	case starlark.Int:
		if s, ok := scalarRepr(v); ok {
			p.b.WriteString(s)
			break
		}
		s, err := intDecimal(v.BigInt()) // CPython's 4300-digit limit (bigint.go)
		if err != nil {
			return err
		}
		p.b.WriteString(s)
	case starlark.Float:
		p.b.WriteString(FloatRepr(float64(v)))
	case starlark.String:
		if p.b.keep > 0 && len(v) > 4*p.b.keep {
			return p.quoteElided(string(v))
		}
		p.b.WriteString(quoteStringLimit(string(v), p.room()))
	case starlark.Bytes:
		p.b.WriteString(bytesReprLimit(string(v), p.room()))
	case *starlark.List:
		if !p.enter(v) {
			p.b.WriteString("[...]")
			return nil
		}
		defer p.leave()
		p.b.WriteByte('[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				p.b.WriteString(", ")
			}
			if err := p.repr(v.Index(i), depth+1); err != nil {
				return err
			}
		}
		p.b.WriteByte(']')
	case starlark.Tuple:
		p.b.WriteByte('(')
		for i, e := range v {
			if i > 0 {
				p.b.WriteString(", ")
			}
			if err := p.repr(e, depth+1); err != nil {
				return err
			}
		}
		if len(v) == 1 {
			p.b.WriteByte(',')
		}
		p.b.WriteByte(')')
	case *starlark.Dict:
		if !p.enter(v) {
			p.b.WriteString("{...}")
			return nil
		}
		defer p.leave()
		p.b.WriteByte('{')
		i := 0
		for k, e := range v.Entries() {
			if i > 0 {
				p.b.WriteString(", ")
			}
			i++
			if err := p.repr(k, depth+1); err != nil {
				return err
			}
			p.b.WriteString(": ")
			if err := p.repr(e, depth+1); err != nil {
				return err
			}
		}
		p.b.WriteByte('}')
	case *starlark.Set:
		if v.Len() == 0 {
			p.b.WriteString("set()")
			return nil
		}
		return p.setItems(setElements(v), depth)
	case *FrozenSet:
		if v.Len() == 0 {
			p.b.WriteString("frozenset()")
			return nil
		}
		p.b.WriteString("frozenset(")
		if err := p.setItems(v.Elements(), depth); err != nil {
			return err
		}
		p.b.WriteByte(')')
	case *starlark.Function:
		p.b.WriteString("<function " + funcName(v.Name()) + " at " + Address(v) + ">")
	case *starlark.Builtin:
		if r := v.Receiver(); r != nil {
			p.b.WriteString("<built-in method " + v.Name() + " of " + TypeName(r) + " object>")
		} else {
			p.b.WriteString("<built-in function " + v.Name() + ">")
		}
	case Representer:
		s, err := v.PyRepr(p.th)
		if err != nil {
			if p.limit != nil && errors.Is(err, errReprFull) && p.limit.partial != "" {
				// A nested repr reached the limit: keep its text.
				p.text(p.limit.partial)
				p.limit.partial = p.b.String()
			}
			return err
		}
		p.text(s)
	default:
		s := v.String()
		if v.Type() == "range" && !strings.Contains(s, ",") {
			s = "range(0, " + strings.TrimPrefix(s, "range(")
		}
		p.text(s)
	}
	if p.limit != nil && p.b.Len() > p.limit.max {
		return errReprFull
	}
	return nil
}

// FloatRepr is CPython's float.__repr__: the shortest string that round
// trips, in fixed notation for exponents in [-4, 16) and scientific
// notation otherwise.
func FloatRepr(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	return formatShortest(f, 16, false)
}

// formatShortest renders the shortest round-trip digits of f, switching to
// scientific notation when the decimal exponent is below -4 or at least
// sciAt. In fixed notation the result keeps a ".0" unless noPointZero.
func formatShortest(f float64, sciAt int, noPointZero bool) string {
	e := strconv.FormatFloat(f, 'e', -1, 64) // e.g. -1.2345e+06
	neg := strings.HasPrefix(e, "-")
	e = strings.TrimPrefix(e, "-")
	mant, expStr, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expStr)
	digits := strings.Replace(mant, ".", "", 1)
	var out string
	if exp < -4 || exp >= sciAt {
		out = digits[:1]
		if len(digits) > 1 {
			out += "." + digits[1:]
		}
		sign := "+"
		if exp < 0 {
			sign = "-"
			exp = -exp
		}
		es := strconv.Itoa(exp)
		if len(es) < 2 {
			es = "0" + es
		}
		out += "e" + sign + es
	} else if exp < 0 {
		out = "0." + strings.Repeat("0", -exp-1) + digits
	} else if exp+1 >= len(digits) {
		out = digits + strings.Repeat("0", exp+1-len(digits))
		if !noPointZero {
			out += ".0"
		}
	} else {
		out = digits[:exp+1] + "." + digits[exp+1:]
	}
	if neg {
		out = "-" + out
	}
	return out
}

// QuoteString is CPython's str.__repr__: single quotes unless the string
// contains a single quote and no double quote; printable non-ASCII kept.
func QuoteString(s string) string { return quoteStringLimit(s, -1) }

// quoteStringLimit is quoteString cut after about room bytes (room < 0:
// no limit), without escaping the rest of s.
func quoteStringLimit(s string, room int) string {
	q := quoteChar(s)
	var b strings.Builder
	if room < 0 || len(s) < room {
		b.Grow(len(s) + 2)
	}
	b.WriteByte(q)
	if !quoteBody(&b, s, q, room) {
		return b.String()
	}
	b.WriteByte(q)
	return b.String()
}

// quoteChar is the quote CPython's repr puts around s.
func quoteChar(s string) byte {
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		return '"'
	}
	return '\''
}

// quoteBody writes s escaped as between quotes q, and reports whether it
// wrote all of it: it stops once b holds more than room bytes (room < 0:
// no limit).
func quoteBody(b quoteWriter, s string, q byte, room int) bool {
	for i := 0; i < len(s); {
		if room >= 0 && b.Len() > room {
			return false
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			// Not valid UTF-8: Python strings cannot hold this; show the byte.
			b.WriteString(`\x` + hex2(s[i]))
			i++
			continue
		}
		i += size
		switch {
		case r == rune(q) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x` + hex2(byte(r)))
		case r < 0x7f:
			b.WriteRune(r)
		case isPrintable(r):
			b.WriteRune(r)
		case r < 0x100:
			b.WriteString(`\x` + hex2(byte(r)))
		case r < 0x10000:
			b.WriteString(`\u` + HexN(uint32(r), 4))
		default:
			b.WriteString(`\U` + HexN(uint32(r), 8))
		}
	}
	return true
}

// quoteWriter is what quoteBody writes to: a strings.Builder, or an
// eliding Builder.
type quoteWriter interface {
	WriteByte(byte) error
	WriteRune(rune) (int, error)
	WriteString(string) (int, error)
	Len() int
}

// quotedLen is the number of characters quoteBody writes for s, counted
// without writing them; th's interruption is checked every MiB.
func quotedLen(th *starlark.Thread, s string, q byte) (int, error) {
	n := 0
	for i := 0; i < len(s); {
		if err := Interrupted(th); err != nil {
			return 0, err
		}
		end := min(i+1<<20, len(s))
		for i < end {
			if c := s[i]; c < utf8.RuneSelf {
				i++
				n += int(asciiQuoted[c])
				continue
			}
			r, size := utf8.DecodeRuneInString(s[i:])
			i += size
			switch {
			case r == utf8.RuneError && size == 1, !isPrintable(r) && r < 0x100:
				n += 4
			case isPrintable(r):
				n++
			case r < 0x10000:
				n += 6
			default:
				n += 10
			}
		}
	}
	return n + strings.Count(s, string(q)), nil
}

// asciiQuoted is how many characters quoteBody writes for an ASCII byte
// other than the quote (which takes 2).
var asciiQuoted = func() (t [utf8.RuneSelf]uint8) {
	for c := range t {
		switch {
		case c == '\\' || c == '\n' || c == '\r' || c == '\t':
			t[c] = 2
		case c < 0x20 || c == 0x7f:
			t[c] = 4
		default:
			t[c] = 1
		}
	}
	return t
}()

// quoteElided writes the repr of s, a string longer than twice what the
// eliding builder b keeps, as its quoted start, a count of the quoted
// characters between, and its quoted end: never the whole repr.
func (p *printer) quoteElided(s string) error {
	q := quoteChar(s)
	keep := p.b.keep
	head := keep
	for head < len(s) && !utf8.RuneStart(s[head]) {
		head++
	}
	tail := len(s) - keep
	for tail > head && !utf8.RuneStart(s[tail]) {
		tail--
	}
	// The start is written only while the builder's start has room, and
	// the end straight into the builder's end: no copy of either is made.
	if p.b.headFull {
		n, err := quotedLen(p.th, s[:tail], q)
		if err != nil {
			return err
		}
		p.b.skip(1 + n)
	} else {
		p.b.WriteByte(q)
		quoteBody(p.b, s[:head], q, -1)
		n, err := quotedLen(p.th, s[head:tail], q)
		if err != nil {
			return err
		}
		p.b.skip(n)
	}
	quoteBody(p.b, s[tail:], q, -1)
	p.b.WriteByte(q)
	return p.b.Err()
}

// isPrintable is Python's str.isprintable for one code point (letters,
// marks, numbers, punctuation, symbols and the ASCII space, as Unicode
// 14.0 assigns them), which repr leaves unescaped.
func isPrintable(r rune) bool { return IsPyPrintable(r) }

func hex2(c byte) string { return HexN(uint32(c), 2) }

func HexN(v uint32, n int) string {
	s := strconv.FormatUint(uint64(v), 16)
	return strings.Repeat("0", n-len(s)) + s
}

// bytesReprLimit is CPython's bytes.__repr__ cut after about room bytes
// (room < 0: no limit).
func bytesReprLimit(s string, room int) string {
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	var b strings.Builder
	b.WriteString("b")
	b.WriteByte(q)
	for i := 0; i < len(s); i++ {
		if room >= 0 && b.Len() > room {
			return b.String()
		}
		c := s[i]
		switch {
		case c == q || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c >= 0x7f:
			b.WriteString(`\x` + hex2(c))
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// asciiRepr is ascii(v): repr with every non-ASCII code point escaped.
func asciiRepr(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < 0x80:
			b.WriteRune(r)
		case r < 0x100:
			b.WriteString(`\x` + hex2(byte(r)))
		case r < 0x10000:
			b.WriteString(`\u` + HexN(uint32(r), 4))
		default:
			b.WriteString(`\U` + HexN(uint32(r), 8))
		}
	}
	return b.String()
}
