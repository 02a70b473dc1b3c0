package builtins

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.starlark.net/starlark"
)

// Formatter is implemented by values with their own __format__ (for
// instance datetime.date, whose spec is a strftime pattern).
type Formatter interface {
	starlark.Value
	PyFormat(th *starlark.Thread, spec string) (string, error)
}

// formatSpec is a parsed format-spec mini-language string:
// [[fill]align][sign]["z"]["#"]["0"][width][grouping]["." precision][type].
type formatSpec struct {
	fill      rune
	align     byte // 0, '<', '>', '^', '='
	sign      byte // 0, '+', '-', ' '
	z, alt    bool
	zero      bool
	width     int
	grouping  byte // 0, ',', '_'
	precision int  // -1 when absent
	typ       byte // 0 when absent
}

func parseSpec(spec string) (formatSpec, error) {
	fs := formatSpec{fill: ' ', precision: -1}
	s := spec
	isAlign := func(c byte) bool { return c == '<' || c == '>' || c == '^' || c == '=' }
	if r, size := utf8.DecodeRuneInString(s); size > 0 && len(s) > size && isAlign(s[size]) {
		fs.fill, fs.align = r, s[size]
		s = s[size+1:]
	} else if len(s) > 0 && isAlign(s[0]) {
		fs.align = s[0]
		s = s[1:]
	}
	if len(s) > 0 && (s[0] == '+' || s[0] == '-' || s[0] == ' ') {
		fs.sign = s[0]
		s = s[1:]
	}
	if len(s) > 0 && s[0] == 'z' {
		fs.z = true
		s = s[1:]
	}
	if len(s) > 0 && s[0] == '#' {
		fs.alt = true
		s = s[1:]
	}
	if len(s) > 0 && s[0] == '0' {
		fs.zero = true
		s = s[1:]
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > 0 {
		w, err := strconv.Atoi(s[:i])
		if err != nil || w > 1<<31-1 {
			return fs, Errorf("ValueError", "Too many decimal digits in format string")
		}
		fs.width = w
		s = s[i:]
	}
	if len(s) > 0 && (s[0] == ',' || s[0] == '_') {
		fs.grouping = s[0]
		s = s[1:]
	}
	if len(s) > 0 && s[0] == '.' {
		s = s[1:]
		i = 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 0 {
			return fs, Errorf("ValueError", "Format specifier missing precision")
		}
		p, err := strconv.Atoi(s[:i])
		if err != nil || p > 1<<31-1 {
			return fs, Errorf("ValueError", "Too many decimal digits in format string")
		}
		fs.precision = p
		s = s[i:]
	}
	if len(s) == 1 {
		fs.typ = s[0]
	} else if len(s) > 1 {
		return fs, Errorf("ValueError", "Invalid format specifier '%s' for object of type '%%s'", spec)
	}
	if fs.zero && fs.align == 0 {
		fs.fill, fs.align = '0', '='
	}
	return fs, nil
}

// FormatValue is format(v, spec): the format-spec mini-language shared by
// format(), str.format and f-strings.
func FormatValue(th *starlark.Thread, v starlark.Value, spec string) (string, error) {
	if f, ok := v.(Formatter); ok {
		return f.PyFormat(th, spec)
	}
	if spec == "" {
		return StrValue(th, v)
	}
	fs, err := parseSpec(spec)
	if err != nil {
		if e, ok := err.(*Error); ok && strings.Contains(e.Msg, "%s") {
			e.Msg = strings.Replace(e.Msg, "%s", TypeName(v), 1)
		}
		return "", err
	}
	if err := Alloc(th, int64(fs.width+fs.precision)); err != nil {
		return "", err
	}
	switch x := v.(type) {
	case starlark.Bool:
		if x {
			return fs.formatInt(big.NewInt(1), "bool")
		}
		return fs.formatInt(big.NewInt(0), "bool")
	case starlark.Int:
		return fs.formatInt(x.BigInt(), "int")
	case starlark.Float:
		return fs.formatFloat(float64(x), "float")
	case starlark.String:
		return fs.formatString(string(x), "str")
	}
	return "", Errorf("TypeError", "unsupported format string passed to %s.__format__", TypeName(v))
}

func (fs formatSpec) formatString(s, tname string) (string, error) {
	if fs.typ != 0 && fs.typ != 's' {
		return "", Errorf("ValueError", "Unknown format code '%c' for object of type '%s'", fs.typ, tname)
	}
	if fs.sign != 0 {
		return "", Errorf("ValueError", "Sign not allowed in string format specifier")
	}
	if fs.align == '=' {
		return "", Errorf("ValueError", "'=' alignment not allowed in string format specifier")
	}
	if fs.grouping != 0 {
		return "", Errorf("ValueError", "Cannot specify '%c' with 's'.", fs.grouping)
	}
	if fs.precision >= 0 && utf8.RuneCountInString(s) > fs.precision {
		s = string([]rune(s)[:fs.precision])
	}
	return fs.pad("", s, '<'), nil
}

// pad aligns prefix+body in the field width; prefix (sign, 0x) stays left
// of the padding for '=' alignment.
func (fs formatSpec) pad(prefix, body string, defAlign byte) string {
	n := utf8.RuneCountInString(prefix) + utf8.RuneCountInString(body)
	if n >= fs.width {
		return prefix + body
	}
	fill := strings.Repeat(string(fs.fill), fs.width-n)
	align := fs.align
	if align == 0 {
		align = defAlign
	}
	switch align {
	case '<':
		return prefix + body + fill
	case '^':
		left := (fs.width - n) / 2
		return strings.Repeat(string(fs.fill), left) + prefix + body + strings.Repeat(string(fs.fill), fs.width-n-left)
	case '=':
		return prefix + fill + body
	}
	return fill + prefix + body
}

func (fs formatSpec) signOf(neg bool) string {
	switch {
	case neg:
		return "-"
	case fs.sign == '+':
		return "+"
	case fs.sign == ' ':
		return " "
	}
	return ""
}

// group inserts sep every n digits from the right of the integer digits
// s. With zero padding it first widens s with zeros so the grouped result
// fills minWidth, as CPython does.
func group(s string, sep byte, n, minWidth int) string {
	grouped := func(s string) string {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			if i > 0 && (len(s)-i)%n == 0 {
				b.WriteByte(sep)
			}
			b.WriteByte(s[i])
		}
		return b.String()
	}
	out := grouped(s)
	for len(out) < minWidth {
		s = "0" + s
		out = grouped(s)
	}
	return out
}

func (fs formatSpec) formatInt(x *big.Int, tname string) (string, error) {
	switch fs.typ {
	case 'e', 'E', 'f', 'F', 'g', 'G', '%':
		f, _ := new(big.Float).SetInt(x).Float64()
		if math.IsInf(f, 0) {
			return "", Errorf("OverflowError", "int too large to convert to float")
		}
		return fs.formatFloat(f, tname)
	case 's':
		return "", Errorf("ValueError", "Unknown format code 's' for object of type '%s'", tname)
	}
	if fs.precision >= 0 {
		return "", Errorf("ValueError", "Precision not allowed in integer format specifier")
	}
	neg := x.Sign() < 0
	abs := new(big.Int).Abs(x)
	var digits, prefix string
	groupBy := 3
	switch fs.typ {
	case 0, 'd', 'n':
		digits = abs.String()
	case 'b':
		digits, prefix, groupBy = abs.Text(2), "0b", 4
	case 'o':
		digits, prefix, groupBy = abs.Text(8), "0o", 4
	case 'x':
		digits, prefix, groupBy = abs.Text(16), "0x", 4
	case 'X':
		digits, prefix, groupBy = strings.ToUpper(abs.Text(16)), "0X", 4
	case 'c':
		if !x.IsInt64() || x.Int64() < 0 || x.Int64() > 0x10ffff {
			return "", Errorf("OverflowError", "%%c arg not in range(0x110000)")
		}
		fs.typ = 's'
		return fs.formatString(string(rune(x.Int64())), tname)
	default:
		return "", Errorf("ValueError", "Unknown format code '%c' for object of type '%s'", fs.typ, tname)
	}
	if !fs.alt {
		prefix = ""
	}
	if fs.grouping == ',' && groupBy == 4 {
		return "", Errorf("ValueError", "Cannot specify ',' with '%c'.", fs.typ)
	}
	sign := fs.signOf(neg)
	if fs.grouping != 0 {
		min := 0
		if fs.align == '=' && fs.fill == '0' {
			min = fs.width - len(sign) - len(prefix)
		}
		digits = group(digits, fs.grouping, groupBy, min)
	}
	return fs.pad(sign+prefix, digits, '>'), nil
}

func (fs formatSpec) formatFloat(f float64, tname string) (string, error) {
	switch fs.typ {
	case 0, 'e', 'E', 'f', 'F', 'g', 'G', 'n', '%':
	default:
		return "", Errorf("ValueError", "Unknown format code '%c' for object of type '%s'", fs.typ, tname)
	}
	neg := math.Signbit(f) && !math.IsNaN(f)
	if fs.z && f == 0 {
		neg = false
	}
	a := math.Abs(f)
	var body string
	upper := fs.typ == 'E' || fs.typ == 'F' || fs.typ == 'G'
	prec := fs.precision
	switch {
	case math.IsInf(a, 0):
		body = "inf"
	case math.IsNaN(a):
		body = "nan"
	default:
		switch fs.typ {
		case 'f', 'F':
			if prec < 0 {
				prec = 6
			}
			body = strconv.FormatFloat(a, 'f', prec, 64)
			if fs.alt && prec == 0 {
				body += "."
			}
		case '%':
			if prec < 0 {
				prec = 6
			}
			body = strconv.FormatFloat(a*100, 'f', prec, 64)
			if fs.alt && prec == 0 {
				body += "."
			}
			body += "%"
		case 'e', 'E':
			if prec < 0 {
				prec = 6
			}
			body = strconv.FormatFloat(a, 'e', prec, 64)
			if fs.alt && prec == 0 {
				body = strings.Replace(body, "e", ".e", 1)
			}
		case 'g', 'G', 'n':
			if prec < 0 {
				prec = 6
			}
			body = formatG(a, prec, fs.alt, false)
		case 0:
			if prec < 0 {
				body = formatShortest(a, 16, false)
			} else {
				body = formatG(a, prec, fs.alt, true)
			}
		}
	}
	if upper {
		body = strings.ToUpper(body)
	}
	if fs.grouping != 0 && !math.IsInf(a, 0) && !math.IsNaN(a) {
		intPart, rest := body, ""
		if i := strings.IndexAny(body, ".e%"); i >= 0 {
			intPart, rest = body[:i], body[i:]
		}
		min := 0
		if fs.align == '=' && fs.fill == '0' {
			min = fs.width - len(fs.signOf(neg)) - len(rest)
		}
		body = group(intPart, fs.grouping, 3, min) + rest
	}
	return fs.pad(fs.signOf(neg), body, '>'), nil
}

// formatG is the 'g' presentation type (and, with repr set, the
// type-less float presentation with a precision, which keeps one digit
// after the point and goes scientific one exponent sooner).
func formatG(a float64, prec int, alt, repr bool) string {
	if prec == 0 {
		prec = 1
	}
	e := strconv.FormatFloat(a, 'e', prec-1, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	// CPython switches to scientific notation when the exponent reaches
	// the precision, or one sooner in the type-less (repr-like) form.
	limit := prec
	if repr {
		limit = prec - 1
	}
	var body string
	if exp < -4 || exp >= limit {
		body = e
		if !alt {
			mant, ex, _ := strings.Cut(body, "e")
			if strings.Contains(mant, ".") {
				mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
			}
			body = mant + "e" + ex
		}
		return body
	}
	body = strconv.FormatFloat(a, 'f', prec-1-exp, 64)
	if !alt && strings.Contains(body, ".") {
		body = strings.TrimRight(strings.TrimRight(body, "0"), ".")
	}
	if repr && !strings.Contains(body, ".") {
		body += ".0"
	}
	return body
}
