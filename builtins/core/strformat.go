package core

import (
	"math"
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// formatTemplate is str.format(*args, **kwargs), or str.format_map(mapping)
// when mapping is set, following CPython's Objects/stringlib/
// unicode_format.h: {name.attr[key]!conv:spec}, automatic and manual
// numbering, {{ and }}, and fields nested in the spec to a depth of two.
func formatTemplate(th *starlark.Thread, tmpl string, args starlark.Tuple, kwargs []starlark.Tuple, mapping starlark.Mapping) (string, error) {
	f := &strFormatter{th: th, args: args, kwargs: kwargs, mapping: mapping}
	var b strings.Builder
	if err := f.build(&b, []rune(tmpl), 2); err != nil {
		return "", err
	}
	return b.String(), nil
}

// strFormatter is the state of one str.format call.
type strFormatter struct {
	th      *starlark.Thread
	args    starlark.Tuple
	kwargs  []starlark.Tuple
	mapping starlark.Mapping
	auto    int  // the next automatic field number
	state   byte // 0 until a field is numbered, then 'a'uto or 'm'anual
	charged int  // output bytes charged to the memory budget
}

func (f *strFormatter) build(b *strings.Builder, s []rune, depth int) error {
	if depth <= 0 {
		return Errorf(pyexc.ValueError, "Max string recursion exceeded")
	}
	pos := 0
	for pos < len(s) {
		c := s[pos]
		pos++
		if c != '{' && c != '}' {
			b.WriteRune(c)
			continue
		}
		atEnd := pos >= len(s)
		if c == '}' && (atEnd || s[pos] != '}') {
			return Errorf(pyexc.ValueError, "Single '}' encountered in format string")
		}
		if atEnd {
			return Errorf(pyexc.ValueError, "Single '{' encountered in format string")
		}
		if s[pos] == c {
			b.WriteRune(c)
			pos++
			continue
		}
		var name, spec []rune
		var conv rune
		var err error
		if name, conv, spec, pos, err = parseField(s, pos); err != nil {
			return err
		}
		if err := f.field(b, name, conv, spec, depth); err != nil {
			return err
		}
		if over := b.Len() - f.charged; over > 1<<16 {
			if err := Alloc(f.th, int64(over)); err != nil {
				return err
			}
			f.charged = b.Len()
		}
	}
	return nil
}

// parseField splits the field that starts at s[pos] (after its '{') into
// name, conversion and spec, and returns the position after its '}'.
func parseField(s []rune, pos int) (name []rune, conv rune, spec []rune, end int, err error) {
	start := pos
	var c rune
scan:
	for pos < len(s) {
		c = s[pos]
		pos++
		switch c {
		case '{':
			return nil, 0, nil, 0, Errorf(pyexc.ValueError, "unexpected '{' in field name")
		case '[':
			for pos < len(s) && s[pos] != ']' {
				pos++
			}
		case '}', ':', '!':
			break scan
		}
	}
	name = s[start : pos-1]
	if c != '!' && c != ':' {
		if c != '}' {
			return nil, 0, nil, 0, Errorf(pyexc.ValueError, "expected '}' before end of string")
		}
		return name, 0, nil, pos, nil
	}
	if c == '!' {
		if pos >= len(s) {
			return nil, 0, nil, 0, Errorf(pyexc.ValueError, "end of string while looking for conversion specifier")
		}
		conv = s[pos]
		pos++
		if pos < len(s) {
			c = s[pos]
			pos++
			if c == '}' {
				return name, conv, nil, pos, nil
			}
			if c != ':' {
				return nil, 0, nil, 0, Errorf(pyexc.ValueError, "expected ':' after conversion specifier")
			}
		}
	}
	specStart, count := pos, 1
	for pos < len(s) {
		c = s[pos]
		pos++
		switch c {
		case '{':
			count++
		case '}':
			count--
			if count == 0 {
				return name, conv, s[specStart : pos-1], pos, nil
			}
		}
	}
	return nil, 0, nil, 0, Errorf(pyexc.ValueError, "unmatched '{' in format spec")
}

// decimalIndex is CPython's get_integer on a field name part: its value
// if it is all decimal digits, or -1.
func decimalIndex(s []rune) (int, error) {
	if len(s) == 0 {
		return -1, nil
	}
	n := 0
	for _, r := range s {
		d := DecimalValue(r)
		if d < 0 {
			return -1, nil
		}
		if n > (math.MaxInt64-d)/10 {
			return 0, Errorf(pyexc.ValueError, "Too many decimal digits in format string")
		}
		n = n*10 + d
	}
	return n, nil
}

func (f *strFormatter) field(b *strings.Builder, name []rune, conv rune, spec []rune, depth int) error {
	th := f.th
	i := 0
	for i < len(name) && name[i] != '.' && name[i] != '[' {
		i++
	}
	first, rest := name[:i], name[i:]
	idx, err := decimalIndex(first)
	if err != nil {
		return err
	}
	if len(first) == 0 || idx >= 0 {
		if f.state == 0 {
			f.state = 'm'
			if len(first) == 0 {
				f.state = 'a'
			}
		}
		switch {
		case f.state == 'm' && len(first) == 0:
			return Errorf(pyexc.ValueError, "cannot switch from manual field specification to automatic field numbering")
		case f.state == 'a' && len(first) > 0:
			return Errorf(pyexc.ValueError, "cannot switch from automatic field numbering to manual field specification")
		}
		if len(first) == 0 {
			idx = f.auto
			f.auto++
		}
	}
	var v starlark.Value
	if idx < 0 {
		key := string(first)
		found := false
		for _, kv := range f.kwargs {
			if string(kv[0].(starlark.String)) == key {
				v, found = kv[1], true
				break
			}
		}
		if !found {
			if f.mapping == nil {
				return Errorf(pyexc.KeyError, "%s", QuoteString(key))
			}
			if v, err = GetItem(th, f.mapping, starlark.String(key)); err != nil {
				return err
			}
		}
	} else {
		if f.mapping != nil {
			return Errorf(pyexc.ValueError, "Format string contains positional fields")
		}
		if idx >= len(f.args) {
			return Errorf(pyexc.IndexError, "Replacement index %d out of range for positional args tuple", idx)
		}
		v = f.args[idx]
	}
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		var part []rune
		switch c {
		case '.':
			j := 0
			for j < len(rest) && rest[j] != '.' && rest[j] != '[' {
				j++
			}
			part, rest = rest[:j], rest[j:]
		case '[':
			j := 0
			for j < len(rest) && rest[j] != ']' {
				j++
			}
			if j == len(rest) {
				return Errorf(pyexc.ValueError, "Missing ']' in format string")
			}
			part, rest = rest[:j], rest[j+1:]
		default:
			return Errorf(pyexc.ValueError, "Only '.' or '[' may follow ']' in format field specifier")
		}
		if len(part) == 0 {
			return Errorf(pyexc.ValueError, "Empty attribute in format string")
		}
		if c == '.' {
			if v, err = SafeGetAttr(th, v, string(part)); err != nil {
				return err
			}
			continue
		}
		var key starlark.Value = starlark.String(string(part))
		n, err := decimalIndex(part)
		if err != nil {
			return err
		}
		if n >= 0 {
			key = starlark.MakeInt(n)
		}
		if v, err = GetItem(th, v, key); err != nil {
			return err
		}
	}
	switch conv {
	case 0:
	case 'r', 'a':
		s, err := ReprValue(th, v)
		if err != nil {
			return err
		}
		if conv == 'a' {
			s = asciiRepr(s)
		}
		v = starlark.String(s)
	case 's':
		s, err := StrValue(th, v)
		if err != nil {
			return err
		}
		v = starlark.String(s)
	default:
		if conv > 32 && conv < 127 {
			return Errorf(pyexc.ValueError, "Unknown conversion specifier %c", conv)
		}
		return Errorf(pyexc.ValueError, "Unknown conversion specifier \\x%x", conv)
	}
	actual := string(spec)
	if strings.ContainsRune(actual, '{') {
		var sb strings.Builder
		if err := f.build(&sb, spec, depth-1); err != nil {
			return err
		}
		actual = sb.String()
	}
	out, err := FormatValue(th, v, actual)
	if err != nil {
		return err
	}
	b.WriteString(out)
	return nil
}

// percentFormat is Python's printf-style str % args, following CPython's
// PyUnicode_Format: a tuple supplies the arguments in order; any other
// value is the one argument; a mapping (anything subscriptable but a tuple
// or a str) also serves %(name)s.
func percentFormat(th *starlark.Thread, format string, arg starlark.Value) (string, error) {
	var args starlark.Tuple
	argIdx, argLen := -2, -1 // a single argument, as CPython counts it
	if t, ok := arg.(starlark.Tuple); ok {
		args, argIdx, argLen = t, 0, len(t)
	}
	single := arg
	var dict starlark.Value
	switch arg.(type) {
	case starlark.Tuple, starlark.String:
	case starlark.Mapping, starlark.Indexable:
		dict = arg
	}
	next := func() (starlark.Value, error) {
		if argIdx >= argLen {
			return nil, Errorf(pyexc.TypeError, "not enough arguments for format string")
		}
		argIdx++
		if argLen < 0 {
			return single, nil
		}
		return args[argIdx-1], nil
	}
	fmt := []rune(format)
	var b strings.Builder
	charged := 0 // bytes of b charged to the budget
	for pos := 0; pos < len(fmt); {
		c := fmt[pos]
		if c != '%' {
			b.WriteRune(c)
			pos++
			continue
		}
		pos++
		if pos < len(fmt) && fmt[pos] == '%' {
			b.WriteByte('%')
			pos++
			continue
		}
		incomplete := Errorf(pyexc.ValueError, "incomplete format")
		if pos < len(fmt) && fmt[pos] == '(' {
			if dict == nil {
				return "", Errorf(pyexc.TypeError, "format requires a mapping")
			}
			pos++
			start, depth := pos, 1
			for depth > 0 && pos < len(fmt) {
				switch fmt[pos] {
				case ')':
					depth--
				case '(':
					depth++
				}
				pos++
			}
			if depth > 0 {
				return "", Errorf(pyexc.ValueError, "incomplete format key")
			}
			v, err := GetItem(th, dict, starlark.String(string(fmt[start:pos-1])))
			if err != nil {
				return "", err
			}
			single, argIdx, argLen = v, -2, -1
		}
		var flagLeft, flagSign, flagBlank, flagAlt, flagZero bool
	flags:
		for ; pos < len(fmt); pos++ {
			switch fmt[pos] {
			case '-':
				flagLeft = true
			case '+':
				flagSign = true
			case ' ':
				flagBlank = true
			case '#':
				flagAlt = true
			case '0':
				flagZero = true
			default:
				break flags
			}
		}
		width, prec := -1, -1
		starArg := func(ctype string) (int, error) {
			v, err := next()
			if err != nil {
				return 0, err
			}
			var n *big.Int
			switch x := v.(type) {
			case starlark.Int:
				n = x.BigInt()
			case starlark.Bool:
				n = BoolInt(x).BigInt()
			default:
				return 0, Errorf(pyexc.TypeError, "* wants int")
			}
			if !n.IsInt64() || ctype == "int" && (n.Int64() > math.MaxInt32 || n.Int64() < math.MinInt32) {
				return 0, Errorf(pyexc.OverflowError, "Python int too large to convert to C %s", ctype)
			}
			return int(n.Int64()), nil
		}
		digits := func(limit int, msg string) (int, error) {
			n := 0
			for pos < len(fmt) && fmt[pos] >= '0' && fmt[pos] <= '9' {
				d := int(fmt[pos] - '0')
				if n > (limit-d)/10 {
					return 0, Errorf(pyexc.ValueError, "%s", msg)
				}
				n = n*10 + d
				pos++
			}
			return n, nil
		}
		var err error
		if pos < len(fmt) && fmt[pos] == '*' {
			if width, err = starArg("ssize_t"); err != nil {
				return "", err
			}
			if width < 0 {
				flagLeft, width = true, -width
			}
			pos++
		} else if pos < len(fmt) && fmt[pos] >= '0' && fmt[pos] <= '9' {
			if width, err = digits(math.MaxInt64, "width too big"); err != nil {
				return "", err
			}
		}
		if pos < len(fmt) && fmt[pos] == '.' {
			pos++
			prec = 0
			if pos < len(fmt) && fmt[pos] == '*' {
				if prec, err = starArg("int"); err != nil {
					return "", err
				}
				prec = max(prec, 0)
				pos++
			} else if prec, err = digits(math.MaxInt32, "precision too big"); err != nil {
				return "", err
			}
		}
		if pos < len(fmt) && (fmt[pos] == 'h' || fmt[pos] == 'l' || fmt[pos] == 'L') {
			pos++
		}
		if pos >= len(fmt) {
			return "", incomplete
		}
		conv := fmt[pos]
		pos++
		// The field is charged before it is built; charged counts it, so
		// that the result is not charged for it a second time below.
		if err := Alloc(th, int64(max(width, 0))+int64(max(prec, 0))); err != nil {
			return "", err
		}
		charged += max(width, 0) + max(prec, 0)
		v, err := next()
		if err != nil {
			return "", err
		}
		var s string
		numeric := false
		switch conv {
		case 's', 'r', 'a':
			if conv == 's' {
				s, err = StrValue(th, v)
			} else {
				s, err = ReprValue(th, v)
				if conv == 'a' {
					s = asciiRepr(s)
				}
			}
			if err != nil {
				return "", err
			}
			if prec >= 0 && prec < len(s) {
				if r := []rune(s); len(r) > prec {
					s = string(r[:prec])
				}
			}
		case 'd', 'i', 'u', 'o', 'x', 'X':
			numeric = true
			if s, err = percentInt(v, conv, prec, flagAlt); err != nil {
				return "", err
			}
		case 'e', 'E', 'f', 'F', 'g', 'G':
			numeric = true
			var f float64
			switch x := v.(type) {
			case starlark.Float:
				f = float64(x)
			case starlark.Int:
				var ok bool
				if f, ok = intToFloat(x); !ok {
					return "", Errorf(pyexc.OverflowError, "int too large to convert to float")
				}
			case starlark.Bool:
				f = float64(BoolInt(x).BigInt().Int64())
			default:
				return "", Errorf(pyexc.TypeError, "must be real number, not %s", TypeName(v))
			}
			if prec < 0 {
				prec = 6
			}
			if prec > exactPrecision {
				// The text is built, then copied into the result:
				// charge the copy too, and size the result once.
				if err := Alloc(th, int64(prec)); err != nil {
					return "", err
				}
				b.Grow(prec + max(width, 0) + 8)
			}
			s = floatText(f, conv, prec, flagAlt)
		case 'c':
			switch x := v.(type) {
			case starlark.String:
				if utf8.RuneCountInString(string(x)) != 1 {
					return "", Errorf(pyexc.TypeError, "%%c requires int or char")
				}
				s = string(x)
			case starlark.Int, starlark.Bool:
				i, _ := Int(x)
				n := i.BigInt()
				if !n.IsInt64() || n.Int64() < 0 || n.Int64() > 0x10ffff {
					return "", Errorf(pyexc.OverflowError, "%%c arg not in range(0x110000)")
				}
				s = string(rune(n.Int64()))
			default:
				return "", Errorf(pyexc.TypeError, "%%c requires int or char")
			}
		default:
			shown := '?'
			if conv >= 31 && conv <= 126 {
				shown = conv
			}
			return "", Errorf(pyexc.ValueError, "unsupported format character '%c' (0x%x) at index %d", shown, conv, pos-1)
		}
		percentPad(&b, s, conv, numeric, width, flagLeft, flagSign, flagBlank, flagAlt, flagZero)
		if over := b.Len() - charged; over > 1<<16 {
			if err := Alloc(th, int64(over)); err != nil {
				return "", err
			}
			charged = b.Len()
		}
	}
	if argIdx < argLen && dict == nil {
		return "", Errorf(pyexc.TypeError, "not all arguments converted during string formatting")
	}
	return b.String(), nil
}

// intToFloat converts x as float(x) does, reporting false on overflow.
func intToFloat(x starlark.Int) (float64, bool) {
	f, _ := new(big.Float).SetInt(x.BigInt()).Float64()
	return f, !math.IsInf(f, 0)
}

// percentInt renders an integer conversion (%d %i %u %o %x %X) before
// padding: sign, 0x/0o prefix (with #) and digits, zero-extended to prec
// digits, as CPython's _PyUnicode_FormatLong.
func percentInt(v starlark.Value, conv rune, prec int, alt bool) (string, error) {
	var n *big.Int
	switch x := v.(type) {
	case starlark.Int:
		n = x.BigInt()
	case starlark.Bool:
		n = BoolInt(x).BigInt()
	case starlark.Float:
		if conv == 'o' || conv == 'x' || conv == 'X' {
			return "", Errorf(pyexc.TypeError, "%%%c format: an integer is required, not float", conv)
		}
		f := float64(x)
		switch {
		case math.IsInf(f, 0):
			return "", Errorf(pyexc.OverflowError, "cannot convert float infinity to integer")
		case math.IsNaN(f):
			return "", Errorf(pyexc.ValueError, "cannot convert float NaN to integer")
		}
		n, _ = big.NewFloat(math.Trunc(f)).Int(nil)
	default:
		if conv == 'o' || conv == 'x' || conv == 'X' {
			return "", Errorf(pyexc.TypeError, "%%%c format: an integer is required, not %s", conv, TypeName(v))
		}
		return "", Errorf(pyexc.TypeError, "%%%c format: a real number is required, not %s", conv, TypeName(v))
	}
	abs := new(big.Int).Abs(n)
	var digits, prefix string
	switch conv {
	case 'o':
		digits, prefix = abs.Text(8), "0o"
	case 'x':
		digits, prefix = abs.Text(16), "0x"
	case 'X':
		digits, prefix = strings.ToUpper(abs.Text(16)), "0X"
	default:
		var err error
		if digits, err = intDecimal(abs); err != nil {
			return "", err
		}
	}
	if !alt {
		prefix = ""
	}
	if prec > len(digits) {
		digits = strings.Repeat("0", prec-len(digits)) + digits
	}
	sign := ""
	if n.Sign() < 0 {
		sign = "-"
	}
	return sign + prefix + digits, nil
}

// percentPad writes one converted value in its field, as CPython's
// unicode_format_arg_output: numbers take a sign from + or space, zero
// padding goes between the sign (and 0x prefix) and the digits, and -
// pads on the right with spaces.
func percentPad(b *strings.Builder, s string, conv rune, numeric bool, width int, left, plus, blank, alt, zero bool) {
	fill := ' '
	if numeric && zero {
		fill = '0'
	}
	n := utf8.RuneCountInString(s)
	sign := ""
	if numeric {
		switch {
		case strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+"):
			sign, s = s[:1], s[1:]
			n--
		case plus:
			sign = "+"
		case blank:
			sign = " "
		}
	}
	width = max(width, n)
	if sign != "" && width > n {
		width--
	}
	prefix := ""
	if numeric && alt && (conv == 'x' || conv == 'X' || conv == 'o') {
		prefix, s = s[:2], s[2:]
		width = max(width-2, 0)
		n -= 2
	}
	if fill == '0' {
		b.WriteString(sign)
		b.WriteString(prefix)
	}
	if width > n && !left {
		b.WriteString(strings.Repeat(string(fill), width-n))
		width = n
	}
	if fill == ' ' {
		b.WriteString(sign)
		b.WriteString(prefix)
	}
	b.WriteString(s)
	if width > n {
		b.WriteString(strings.Repeat(" ", width-n))
	}
}
