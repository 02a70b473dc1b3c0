package core

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// Formatter is implemented by values with their own __format__ (for
// instance datetime.date, whose spec is a strftime pattern).
type Formatter interface {
	starlark.Value
	PyFormat(th *starlark.Thread, spec string) (string, error)
}

// formatSpec is a parsed format-spec mini-language string:
// [[fill]align][sign]["z"]["#"]["0"][width][grouping]["." precision][type].
// It follows CPython's Python/formatter_unicode.c, including the order in
// which its errors are checked, so that every spec CPython accepts gives
// the same text and every spec it refuses raises the same error.
type formatSpec struct {
	fill      rune
	align     rune // '<', '>', '^', '='
	sign      rune // 0, '+', '-', ' '
	z, alt    bool
	width     int  // -1 when absent
	grouping  rune // 0, ',', '_'
	precision int  // -1 when absent
	typ       rune // the type's default when absent
}

// maxSpecNumber is CPython's limit on a width or precision (Py_ssize_t).
const maxSpecNumber = math.MaxInt64

// maxExactDigits bounds the significant digits of any double's exact
// decimal expansion (767 for the smallest subnormal).
const maxExactDigits = 800

// maxIntPrecision is the largest precision a float presentation accepts.
const maxIntPrecision = math.MaxInt32

// parseSpec parses spec for a value of type tname, whose presentation type
// and alignment default to defType and defAlign.
func parseSpec(spec, tname string, defType, defAlign rune) (formatSpec, error) {
	fs := formatSpec{fill: ' ', align: defAlign, width: -1, precision: -1, typ: defType}
	s := []rune(spec)
	pos := 0
	isAlign := func(c rune) bool { return c == '<' || c == '>' || c == '^' || c == '=' }
	fillSet, alignSet := false, false
	if len(s) >= 2 && isAlign(s[1]) {
		fs.fill, fs.align = s[0], s[1]
		fillSet, alignSet = true, true
		pos = 2
	} else if len(s) >= 1 && isAlign(s[0]) {
		fs.align = s[0]
		alignSet = true
		pos = 1
	}
	if pos < len(s) && (s[pos] == '+' || s[pos] == '-' || s[pos] == ' ') {
		fs.sign = s[pos]
		pos++
	}
	if pos < len(s) && s[pos] == 'z' {
		fs.z = true
		pos++
	}
	if pos < len(s) && s[pos] == '#' {
		fs.alt = true
		pos++
	}
	if !fillSet && pos < len(s) && s[pos] == '0' {
		fs.fill = '0'
		if !alignSet && defAlign == '>' {
			fs.align = '='
		}
		pos++
	}
	number := func() (int, bool, error) {
		n, start := 0, pos
		for pos < len(s) && s[pos] >= '0' && s[pos] <= '9' {
			d := int(s[pos] - '0')
			if (maxSpecNumber-d)/10 < n {
				return 0, false, Errorf(pyexc.ValueError, "Too many decimal digits in format string")
			}
			n = n*10 + d
			pos++
		}
		return n, pos > start, nil
	}
	w, ok, err := number()
	if err != nil {
		return fs, err
	}
	if ok {
		fs.width = w
	}
	if pos < len(s) && s[pos] == ',' {
		fs.grouping = ','
		pos++
	}
	if pos < len(s) && s[pos] == '_' {
		if fs.grouping != 0 {
			return fs, Errorf(pyexc.ValueError, "Cannot specify both ',' and '_'.")
		}
		fs.grouping = '_'
		pos++
	}
	if pos < len(s) && s[pos] == ',' && fs.grouping == '_' {
		return fs, Errorf(pyexc.ValueError, "Cannot specify both ',' and '_'.")
	}
	if pos < len(s) && s[pos] == '.' {
		pos++
		p, ok, err := number()
		if err != nil {
			return fs, err
		}
		if !ok {
			return fs, Errorf(pyexc.ValueError, "Format specifier missing precision")
		}
		fs.precision = p
	}
	if len(s)-pos > 1 {
		return fs, Errorf(pyexc.ValueError, "Invalid format specifier '%s' for object of type '%s'", spec, tname)
	}
	if len(s)-pos == 1 {
		fs.typ = s[pos]
	}
	if fs.grouping != 0 {
		switch fs.typ {
		case 'd', 'e', 'f', 'g', 'E', 'G', '%', 'F', 0:
		case 'b', 'o', 'x', 'X':
			if fs.grouping != '_' {
				return fs, Errorf(pyexc.ValueError, "Cannot specify ',' with '%c'.", fs.typ)
			}
		default:
			return fs, Errorf(pyexc.ValueError, "Cannot specify '%c' with %s.", fs.grouping, quoteCode(fs.typ))
		}
	}
	return fs, nil
}

// quoteCode shows a presentation type in an error message as CPython does.
func quoteCode(c rune) string {
	if c > 32 && c < 128 {
		return "'" + string(c) + "'"
	}
	return "'\\x" + strconv.FormatInt(int64(c), 16) + "'"
}

func unknownCode(c rune, tname string) error {
	return Errorf(pyexc.ValueError, "Unknown format code %s for object of type '%s'", quoteCode(c), tname)
}

// FormatValue is format(v, spec): the format-spec mini-language shared by
// format(), str.format and f-strings.
func FormatValue(th *starlark.Thread, v starlark.Value, spec string) (string, error) {
	if f, ok := v.(Formatter); ok {
		return f.PyFormat(th, spec)
	}
	if spec == "" {
		if x, ok := v.(starlark.Int); ok {
			if i, ok := x.Int64(); ok {
				return strconv.FormatInt(i, 10), nil
			}
			return intDecimal(x.BigInt())
		}
		return StrValue(th, v)
	}
	var fs formatSpec
	var err error
	tname := TypeName(v)
	switch v.(type) {
	case starlark.Bool, starlark.Int:
		fs, err = parseSpec(spec, tname, 'd', '>')
	case starlark.Float:
		fs, err = parseSpec(spec, tname, 0, '>')
	case starlark.String:
		fs, err = parseSpec(spec, tname, 's', '<')
	default:
		return "", Errorf(pyexc.TypeError, "unsupported format string passed to %s.__format__", tname)
	}
	if err != nil {
		return "", err
	}
	switch x := v.(type) {
	case starlark.Bool:
		n := big.NewInt(0)
		if x {
			n.SetInt64(1)
		}
		return fs.formatInt(th, n, tname)
	case starlark.Int:
		return fs.formatInt(th, x.BigInt(), tname)
	case starlark.Float:
		return fs.formatFloat(th, float64(x), tname)
	}
	return fs.formatString(th, string(v.(starlark.String)), tname)
}

func (fs formatSpec) formatString(th *starlark.Thread, s, tname string) (string, error) {
	if fs.typ != 's' {
		return "", unknownCode(fs.typ, tname)
	}
	switch {
	case fs.sign == ' ':
		return "", Errorf(pyexc.ValueError, "Space not allowed in string format specifier")
	case fs.sign != 0:
		return "", Errorf(pyexc.ValueError, "Sign not allowed in string format specifier")
	case fs.z:
		return "", Errorf(pyexc.ValueError, "Negative zero coercion (z) not allowed in string format specifier")
	case fs.alt:
		return "", Errorf(pyexc.ValueError, "Alternate form (#) not allowed in string format specifier")
	case fs.align == '=':
		return "", Errorf(pyexc.ValueError, "'=' alignment not allowed in string format specifier")
	}
	if err := Alloc(th, int64(max(fs.width, 0))); err != nil {
		return "", err
	}
	if fs.precision >= 0 && fs.precision < len(s) && utf8.RuneCountInString(s) > fs.precision {
		n := 0
		for i := range s {
			if n == fs.precision {
				s = s[:i]
				break
			}
			n++
		}
	}
	n := utf8.RuneCountInString(s)
	if fs.width <= n {
		return s, nil
	}
	pad := fs.width - n
	left := 0
	switch fs.align {
	case '>':
		left = pad
	case '^':
		left = pad / 2
	}
	fill := string(fs.fill)
	return strings.Repeat(fill, left) + s + strings.Repeat(fill, pad-left), nil
}

// numParts is a rendered number split the way CPython's calc_number_widths
// sees it: sign, prefix (0x), digits (grouped), then the remainder (the
// decimal point and what follows, an exponent, a %, or inf and nan).
type numParts struct {
	neg       bool
	prefix    string
	digits    string
	remainder string
	// zeros zero digits go at byte zerosAt of remainder: the tail of a
	// float printed with a precision beyond its exact expansion, kept out
	// of the strings until the result is built (floatParts).
	zeros, zerosAt int
}

// render lays the number out in the field: padding, sign, prefix, zero or
// fill padding, grouped digits, remainder, padding.
func (fs formatSpec) render(n numParts, groupSize int) string {
	sign := ""
	switch {
	case n.neg:
		sign = "-"
	case fs.sign == '+' || fs.sign == ' ':
		sign = string(fs.sign)
	}
	fixed := len(sign) + len(n.prefix) + utf8.RuneCountInString(n.remainder) + n.zeros
	minWidth := 0
	if fs.fill == '0' && fs.align == '=' {
		minWidth = fs.width - fixed
	}
	var sep rune
	if fs.grouping != 0 {
		sep = fs.grouping
	} else {
		groupSize = 0
	}
	digits := n.digits
	if digits != "" {
		digits = groupDigits(digits, sep, groupSize, minWidth)
	}
	pad := fs.width - fixed - utf8.RuneCountInString(digits)
	if n.zeros > 0 {
		return fs.renderZeros(sign, digits, n, pad)
	}
	if pad <= 0 {
		return sign + n.prefix + digits + n.remainder
	}
	fill := string(fs.fill)
	switch fs.align {
	case '<':
		return sign + n.prefix + digits + n.remainder + strings.Repeat(fill, pad)
	case '^':
		left := pad / 2
		return strings.Repeat(fill, left) + sign + n.prefix + digits + n.remainder + strings.Repeat(fill, pad-left)
	case '=':
		return sign + n.prefix + strings.Repeat(fill, pad) + digits + n.remainder
	}
	return strings.Repeat(fill, pad) + sign + n.prefix + digits + n.remainder
}

// renderZeros is render for a number with a run of zeros in its
// remainder: the result is built in one buffer of its final size, so that
// a precision of hundreds of millions costs its result and no copies.
func (fs formatSpec) renderZeros(sign, digits string, n numParts, pad int) string {
	pad = max(pad, 0)
	left, right, mid := 0, 0, 0
	switch fs.align {
	case '<':
		right = pad
	case '^':
		left, right = pad/2, pad-pad/2
	case '=':
		mid = pad
	default:
		left = pad
	}
	fill := string(fs.fill)
	var b strings.Builder
	b.Grow(len(fill)*pad + len(sign) + len(n.prefix) + len(digits) + len(n.remainder) + n.zeros)
	writeRepeat(&b, fill, left)
	b.WriteString(sign)
	b.WriteString(n.prefix)
	writeRepeat(&b, fill, mid)
	b.WriteString(digits)
	b.WriteString(n.remainder[:n.zerosAt])
	writeRepeat(&b, "0", n.zeros)
	b.WriteString(n.remainder[n.zerosAt:])
	writeRepeat(&b, fill, right)
	return b.String()
}

// writeRepeat writes s n times to b without building the repetition.
func writeRepeat(b *strings.Builder, s string, n int) {
	if n <= 0 {
		return
	}
	chunk := strings.Repeat(s, min(n, 4096))
	for n > 0 {
		k := min(n, 4096)
		b.WriteString(chunk[:k*len(s)])
		n -= k
	}
}

// groupDigits is CPython's _PyUnicode_InsertThousandsGrouping: it puts sep
// between groups of size digits (no grouping when size is 0) and, for zero
// padding, widens the result with zeros (grouped too) to at least
// minWidth characters.
func groupDigits(digits string, sep rune, size, minWidth int) string {
	// Built right to left, then reversed: one buffer, however wide.
	out := make([]byte, 0, max(len(digits)*4/3, minWidth)+4)
	remaining := len(digits)
	take := func(l int) {
		chars := max(0, min(remaining, l))
		for k := 1; k <= chars; k++ {
			out = append(out, digits[remaining-k])
		}
		for k := chars; k < l; k++ {
			out = append(out, '0')
		}
		remaining -= chars
	}
	if size > 0 && sep != 0 {
		for first := true; ; first = false {
			if !first {
				out = append(out, byte(sep))
			}
			l := min(size, max(remaining, minWidth, 1))
			take(l)
			minWidth -= l
			if remaining <= 0 && minWidth <= 0 {
				break
			}
			minWidth-- // the separator
		}
	} else {
		take(max(remaining, minWidth, 1))
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return string(out)
}

func (fs formatSpec) formatInt(th *starlark.Thread, x *big.Int, tname string) (string, error) {
	switch fs.typ {
	case 'b', 'c', 'd', 'o', 'x', 'X', 'n':
	case 'e', 'E', 'f', 'F', 'g', 'G', '%':
		f, _ := new(big.Float).SetInt(x).Float64()
		if math.IsInf(f, 0) {
			return "", Errorf(pyexc.OverflowError, "int too large to convert to float")
		}
		return fs.formatFloat(th, f, tname)
	default:
		return "", unknownCode(fs.typ, tname)
	}
	if fs.precision >= 0 {
		return "", Errorf(pyexc.ValueError, "Precision not allowed in integer format specifier")
	}
	if fs.z {
		return "", Errorf(pyexc.ValueError, "Negative zero coercion (z) not allowed in integer format specifier")
	}
	if err := Alloc(th, int64(max(fs.width, 0))); err != nil {
		return "", err
	}
	if fs.typ == 'c' {
		if fs.sign != 0 {
			return "", Errorf(pyexc.ValueError, "Sign not allowed with integer format specifier 'c'")
		}
		if fs.alt {
			return "", Errorf(pyexc.ValueError, "Alternate form (#) not allowed with integer format specifier 'c'")
		}
		if !x.IsInt64() {
			return "", Errorf(pyexc.OverflowError, "Python int too large to convert to C long")
		}
		if c := x.Int64(); c < 0 || c > 0x10ffff {
			return "", Errorf(pyexc.OverflowError, "%%c arg not in range(0x110000)")
		}
		return fs.render(numParts{remainder: string(rune(x.Int64()))}, 0), nil
	}
	abs := new(big.Int).Abs(x)
	var n numParts
	n.neg = x.Sign() < 0
	groupSize := 4
	switch fs.typ {
	case 'd', 'n':
		s, err := intDecimal(abs)
		if err != nil {
			return "", err
		}
		n.digits, groupSize = s, 3
		if fs.typ == 'n' {
			// The C locale: no grouping.
			groupSize = 0
		}
	case 'b':
		n.digits, n.prefix = abs.Text(2), "0b"
	case 'o':
		n.digits, n.prefix = abs.Text(8), "0o"
	case 'x':
		n.digits, n.prefix = abs.Text(16), "0x"
	case 'X':
		n.digits, n.prefix = strings.ToUpper(abs.Text(16)), "0X"
	}
	if !fs.alt {
		n.prefix = ""
	}
	return fs.render(n, groupSize), nil
}

func (fs formatSpec) formatFloat(th *starlark.Thread, f float64, tname string) (string, error) {
	switch fs.typ {
	case 0, 'e', 'E', 'f', 'F', 'g', 'G', 'n', '%':
	default:
		return "", unknownCode(fs.typ, tname)
	}
	if fs.precision > maxIntPrecision {
		return "", Errorf(pyexc.ValueError, "precision too big")
	}
	charge := max(fs.precision, 0)
	switch fs.typ {
	case 0, 'g', 'G', 'n':
		if !fs.alt {
			charge = min(charge, maxExactDigits)
		}
	}
	if err := Alloc(th, int64(max(fs.width, 0))+int64(charge)); err != nil {
		return "", err
	}
	body, zeros, zerosAt := floatParts(f, fs.typ, fs.precision, fs.alt)
	var n numParts
	if strings.HasPrefix(body, "-") {
		body = body[1:]
		zerosAt--
		n.neg = !(fs.z && isZeroText(body))
	}
	i := 0
	for i < len(body) && body[i] >= '0' && body[i] <= '9' {
		i++
	}
	n.digits, n.remainder = body[:i], body[i:]
	n.zeros, n.zerosAt = zeros, zerosAt-i
	groupSize := 3
	if fs.typ == 'n' {
		groupSize = 0
	}
	return fs.render(n, groupSize), nil
}

// isZeroText reports whether a formatted float shows only zeros (what the
// z option turns into an unsigned zero).
func isZeroText(s string) bool {
	for _, c := range s {
		if c == 'e' || c == 'E' || c == '%' {
			break
		}
		if c != '0' && c != '.' {
			return false
		}
	}
	return true
}

// floatText is CPython's PyOS_double_to_string as float.__format__ calls
// it for presentation type typ (0 when absent) and precision prec (-1 when
// absent), with the sign of a negative number (never of a nan).
func floatText(f float64, typ rune, prec int, alt bool) string {
	body, zeros, at := floatParts(f, typ, prec, alt)
	if zeros == 0 {
		return body
	}
	var b strings.Builder
	b.Grow(len(body) + zeros)
	b.WriteString(body[:at])
	writeRepeat(&b, "0", zeros)
	b.WriteString(body[at:])
	return b.String()
}

// exactPrecision is a precision past which every digit of a double's
// decimal expansion is a zero: the exact expansion has at most 1074
// digits after the point and 767 significant ones.
const exactPrecision = 1100

// floatParts is floatText for a precision of any size: the text is body
// with zeros zero digits inserted at byte at. Past exactPrecision the
// digits are zeros, which strconv would build (and copy) one by one.
func floatParts(f float64, typ rune, prec int, alt bool) (body string, zeros, at int) {
	if prec > exactPrecision && !math.IsInf(f, 0) && !math.IsNaN(f) {
		switch typ {
		case 'f', 'F', '%', 'e', 'E':
			zeros = prec - exactPrecision
		case 'g', 'G', 'n', 0:
			// Without # the zeros are stripped (formatG caps them).
			if alt {
				zeros = prec - exactPrecision
			}
		}
	}
	if zeros == 0 {
		return floatBody(f, typ, prec, alt), 0, 0
	}
	body = floatBody(f, typ, exactPrecision, alt)
	// The zeros end the digits after the point: before the exponent or
	// the percent sign.
	at = strings.IndexAny(body, "eE%")
	if at < 0 {
		at = len(body)
	}
	return body, zeros, at
}

// floatBody is floatText for a precision at most exactPrecision (or one
// that the presentation caps itself).
func floatBody(f float64, typ rune, prec int, alt bool) string {
	neg := math.Signbit(f) && !math.IsNaN(f)
	a := math.Abs(f)
	pct := typ == '%'
	if pct {
		a *= 100
		typ = 'f'
	}
	if typ == 'n' {
		typ = 'g'
	}
	var body string
	switch {
	case math.IsInf(a, 0):
		body = "inf"
	case math.IsNaN(a):
		body = "nan"
	default:
		switch typ {
		case 'f', 'F':
			if prec < 0 {
				prec = 6
			}
			body = strconv.FormatFloat(a, 'f', prec, 64)
			if alt && prec == 0 {
				body += "."
			}
		case 'e', 'E':
			if prec < 0 {
				prec = 6
			}
			body = strconv.FormatFloat(a, 'e', prec, 64)
			if alt && prec == 0 {
				body = strings.Replace(body, "e", ".e", 1)
			}
		case 'g', 'G':
			if prec < 0 {
				prec = 6
			}
			body = formatG(a, prec, alt, false)
		case 0:
			if prec < 0 {
				body = formatShortest(a, 16, false)
				if mant, exp, ok := strings.Cut(body, "e"); ok && alt && !strings.Contains(mant, ".") {
					body = mant + ".e" + exp
				}
			} else {
				body = formatG(a, prec, alt, true)
			}
		}
	}
	if typ == 'E' || typ == 'F' || typ == 'G' {
		body = strings.ToUpper(body)
	}
	if pct {
		body += "%"
	}
	if neg {
		body = "-" + body
	}
	return body
}

// formatG is the 'g' presentation type (and, with repr set, the
// type-less float presentation with a precision, which keeps one digit
// after the point and goes scientific one exponent sooner). alt keeps
// trailing zeros and the decimal point.
func formatG(a float64, prec int, alt, repr bool) string {
	if prec == 0 {
		prec = 1
	}
	if !alt && prec > maxExactDigits {
		// Digits past a double's exact decimal expansion are zeros,
		// which this form strips.
		prec = maxExactDigits
	}
	e := strconv.FormatFloat(a, 'e', prec-1, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	// CPython switches to scientific notation when the exponent reaches
	// the precision, or one sooner in the type-less (repr-like) form.
	limit := prec
	if repr {
		limit = prec - 1
	}
	if exp < -4 || exp >= limit {
		mant, ex, _ := strings.Cut(e, "e")
		switch {
		case !alt && strings.Contains(mant, "."):
			mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
		case alt && !strings.Contains(mant, "."):
			mant += "."
		}
		return mant + "e" + ex
	}
	body := strconv.FormatFloat(a, 'f', prec-1-exp, 64)
	switch {
	case !alt && strings.Contains(body, "."):
		body = strings.TrimRight(strings.TrimRight(body, "0"), ".")
	case alt && !strings.Contains(body, "."):
		body += "."
	}
	if repr && !strings.HasSuffix(body, ".") && !strings.Contains(body, ".") {
		body += ".0"
	} else if repr && strings.HasSuffix(body, ".") {
		body += "0"
	}
	return body
}
