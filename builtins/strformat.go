package builtins

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"go.starlark.net/starlark"
)

// strFormat is str.format(*args, **kwargs) with CPython's field syntax:
// {name.attr[key]!conv:spec}, auto and manual numbering, {{ and }}, and
// one level of nested fields inside the spec.
func strFormat(th *starlark.Thread, tmpl string, args starlark.Tuple, kwargs []starlark.Tuple, mapping starlark.Mapping) (string, error) {
	var b strings.Builder
	auto := 0
	manual := false
	lookup := func(name string) (starlark.Value, error) {
		if name == "" {
			if manual {
				return nil, Errorf("ValueError", "cannot switch from manual field specification to automatic field numbering")
			}
			if auto >= len(args) {
				return nil, Errorf("IndexError", "Replacement index %d out of range for positional args tuple", auto)
			}
			auto++
			return args[auto-1], nil
		}
		if n, err := strconv.Atoi(name); err == nil {
			if auto > 0 {
				return nil, Errorf("ValueError", "cannot switch from automatic field numbering to manual field specification")
			}
			manual = true
			if n >= len(args) {
				return nil, Errorf("IndexError", "Replacement index %d out of range for positional args tuple", n)
			}
			return args[n], nil
		}
		for _, kv := range kwargs {
			if string(kv[0].(starlark.String)) == name {
				return kv[1], nil
			}
		}
		if mapping != nil {
			v, found, err := mapping.Get(starlark.String(name))
			if err != nil {
				return nil, err
			}
			if found {
				return v, nil
			}
		}
		return nil, Errorf("KeyError", "%s", quoteString(name))
	}
	render := func(field string) (string, error) {
		// field is the text between the braces.
		name, spec := field, ""
		conv := byte(0)
		depth := 0
		for i := 0; i < len(field); i++ {
			c := field[i]
			if c == '[' {
				depth++
			} else if c == ']' {
				depth--
			} else if depth == 0 && (c == '!' || c == ':') {
				name = field[:i]
				rest := field[i:]
				if c == '!' {
					if len(rest) < 2 {
						return "", Errorf("ValueError", "end of string while looking for conversion specifier")
					}
					conv = rest[1]
					rest = rest[2:]
					if len(rest) > 0 && rest[0] != ':' {
						return "", Errorf("ValueError", "expected ':' after conversion specifier")
					}
				}
				if len(rest) > 0 {
					spec = rest[1:]
				}
				break
			}
		}
		// Split name into the argument and its .attr / [key] accessors.
		end := strings.IndexAny(name, ".[")
		if end < 0 {
			end = len(name)
		}
		v, err := lookup(name[:end])
		if err != nil {
			return "", err
		}
		rest := name[end:]
		for rest != "" {
			if rest[0] == '.' {
				j := strings.IndexAny(rest[1:], ".[")
				if j < 0 {
					j = len(rest) - 1
				}
				attr := rest[1 : j+1]
				rest = rest[j+1:]
				if v, err = safeGetAttr(th, v, attr); err != nil {
					return "", err
				}
			} else {
				j := strings.IndexByte(rest, ']')
				if j < 0 {
					return "", Errorf("ValueError", "Missing ']' in format string")
				}
				key := rest[1:j]
				rest = rest[j+1:]
				var k starlark.Value = starlark.String(key)
				if n, err := strconv.Atoi(key); err == nil {
					k = starlark.MakeInt(n)
				}
				if v, err = getItem(v, k); err != nil {
					return "", err
				}
			}
		}
		switch conv {
		case 0:
		case 'r':
			s, err := ReprValue(th, v)
			if err != nil {
				return "", err
			}
			v = starlark.String(s)
		case 's':
			s, err := StrValue(th, v)
			if err != nil {
				return "", err
			}
			v = starlark.String(s)
		case 'a':
			s, err := ReprValue(th, v)
			if err != nil {
				return "", err
			}
			v = starlark.String(asciiRepr(s))
		default:
			return "", Errorf("ValueError", "Unknown conversion specifier %c", conv)
		}
		if strings.Contains(spec, "{") {
			spec, err = strFormat(th, spec, args[auto:], kwargs, mapping)
			if err != nil {
				return "", err
			}
		}
		return FormatValue(th, v, spec)
	}
	for i := 0; i < len(tmpl); {
		c := tmpl[i]
		switch {
		case c == '{' && i+1 < len(tmpl) && tmpl[i+1] == '{':
			b.WriteByte('{')
			i += 2
		case c == '}' && i+1 < len(tmpl) && tmpl[i+1] == '}':
			b.WriteByte('}')
			i += 2
		case c == '}':
			return "", Errorf("ValueError", "Single '}' encountered in format string")
		case c == '{':
			depth, j := 1, i+1
			for ; j < len(tmpl) && depth > 0; j++ {
				if tmpl[j] == '{' {
					depth++
				} else if tmpl[j] == '}' {
					depth--
				}
			}
			if depth > 0 {
				return "", Errorf("ValueError", "expected '}' before end of string")
			}
			s, err := render(tmpl[i+1 : j-1])
			if err != nil {
				return "", err
			}
			b.WriteString(s)
			if b.Len() > 1<<16 {
				if err := Alloc(th, int64(b.Len())); err != nil {
					return "", err
				}
			}
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), nil
}

// getItem is x[k] for the subscript forms str.format and % support.
func getItem(x, k starlark.Value) (starlark.Value, error) {
	switch x := x.(type) {
	case starlark.Mapping:
		v, found, err := x.Get(k)
		if err != nil {
			return nil, err
		}
		if !found {
			r, _ := ReprValue(nil, k)
			return nil, Errorf("KeyError", "%s", r)
		}
		return v, nil
	case starlark.Indexable:
		i, err := starlark.AsInt32(k)
		if err != nil {
			return nil, Errorf("TypeError", "%s indices must be integers", TypeName(x))
		}
		n := x.Len()
		if i < 0 {
			i += n
		}
		if i < 0 || i >= n {
			return nil, Errorf("IndexError", "%s index out of range", TypeName(x))
		}
		return x.Index(i), nil
	}
	return nil, Errorf("TypeError", "'%s' object is not subscriptable", TypeName(x))
}

// percentFormat is Python's printf-style str % args.
func percentFormat(th *starlark.Thread, format string, arg starlark.Value) (string, error) {
	var args starlark.Tuple
	var mapping starlark.Mapping
	switch a := arg.(type) {
	case starlark.Tuple:
		args = a
	case *starlark.Dict:
		mapping = a
		args = starlark.Tuple{a}
	default:
		args = starlark.Tuple{a}
	}
	next := 0
	take := func() (starlark.Value, error) {
		if next >= len(args) {
			return nil, Errorf("TypeError", "not enough arguments for format string")
		}
		next++
		return args[next-1], nil
	}
	usedMapping := false
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(format) {
			return "", Errorf("ValueError", "incomplete format")
		}
		var v starlark.Value
		if format[i] == '(' {
			j := strings.IndexByte(format[i:], ')')
			if j < 0 {
				return "", Errorf("ValueError", "incomplete format key")
			}
			if mapping == nil {
				return "", Errorf("TypeError", "format requires a mapping")
			}
			key := format[i+1 : i+j]
			i += j + 1
			val, found, err := mapping.Get(starlark.String(key))
			if err != nil {
				return "", err
			}
			if !found {
				return "", Errorf("KeyError", "%s", quoteString(key))
			}
			v = val
			usedMapping = true
		}
		fs := formatSpec{fill: ' ', precision: -1}
		for ; i < len(format); i++ {
			switch format[i] {
			case '-':
				fs.align = '<'
			case '0':
				fs.zero = true
			case '+':
				fs.sign = '+'
			case ' ':
				if fs.sign == 0 {
					fs.sign = ' '
				}
			case '#':
				fs.alt = true
			default:
				goto width
			}
		}
	width:
		readNum := func() (int, error) {
			if i < len(format) && format[i] == '*' {
				i++
				a, err := take()
				if err != nil {
					return 0, err
				}
				n, err := starlark.AsInt32(a)
				if err != nil {
					return 0, Errorf("TypeError", "* wants int")
				}
				return n, nil
			}
			j := i
			for i < len(format) && format[i] >= '0' && format[i] <= '9' {
				i++
			}
			if j == i {
				return -1, nil
			}
			return strconv.Atoi(format[j:i])
		}
		w, err := readNum()
		if err != nil {
			return "", err
		}
		if w > 1<<20 {
			return "", Errorf("MemoryError", "format width too large")
		}
		if w < 0 && w != -1 {
			fs.align, w = '<', -w
		}
		if w > 0 {
			fs.width = w
		}
		if i < len(format) && format[i] == '.' {
			i++
			p, err := readNum()
			if err != nil {
				return "", err
			}
			if p < 0 {
				p = 0
			}
			fs.precision = p
		}
		for i < len(format) && (format[i] == 'h' || format[i] == 'l' || format[i] == 'L') {
			i++
		}
		if i >= len(format) {
			return "", Errorf("ValueError", "incomplete format")
		}
		conv := format[i]
		if conv == '%' {
			b.WriteByte('%')
			continue
		}
		if v == nil {
			if v, err = take(); err != nil {
				return "", err
			}
		}
		if fs.zero && fs.align == 0 {
			fs.fill, fs.align = '0', '='
		}
		var s string
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
			fs.fill, fs.typ = ' ', 's'
			if fs.align == '=' {
				fs.align = 0
			}
			fs.sign = 0
			s, err = fs.formatString(s, "str")
		case 'd', 'i', 'u', 'o', 'x', 'X':
			var n *big.Int
			switch x := v.(type) {
			case starlark.Int:
				n = x.BigInt()
			case starlark.Bool:
				n = big.NewInt(0)
				if x {
					n = big.NewInt(1)
				}
			case starlark.Float:
				if math.IsInf(float64(x), 0) || math.IsNaN(float64(x)) {
					return "", Errorf("OverflowError", "cannot convert float %s to integer", floatRepr(float64(x)))
				}
				n, _ = big.NewFloat(math.Trunc(float64(x))).Int(nil)
				if conv != 'd' && conv != 'i' && conv != 'u' {
					return "", Errorf("TypeError", "%%%c format: an integer is required, not float", conv)
				}
			default:
				if conv == 'd' || conv == 'i' || conv == 'u' {
					return "", Errorf("TypeError", "%%%c format: a real number is required, not %s", conv, TypeName(v))
				}
				return "", Errorf("TypeError", "%%%c format: an integer is required, not %s", conv, TypeName(v))
			}
			if conv == 'i' || conv == 'u' {
				conv = 'd'
			}
			fs.typ = conv
			prec := fs.precision
			fs.precision = -1
			s, err = fs.formatInt(n, "int")
			if err == nil && prec > 0 {
				// %.5d pads the digits with zeros.
				neg := n.Sign() < 0
				digits := strings.TrimLeft(strings.TrimSpace(s), "+- ")
				for len(digits) < prec {
					digits = "0" + digits
				}
				fs2 := fs
				s = fs2.pad(fs.signOf(neg), digits, '>')
			}
		case 'e', 'E', 'f', 'F', 'g', 'G':
			f, ok := starlark.AsFloat(v)
			if b, isBool := v.(starlark.Bool); isBool {
				f, ok = 0, true
				if b {
					f = 1
				}
			}
			if !ok {
				return "", Errorf("TypeError", "must be real number, not %s", TypeName(v))
			}
			fs.typ = conv
			if fs.precision < 0 {
				fs.precision = 6
			}
			s, err = fs.formatFloat(f, "float")
		case 'c':
			switch x := v.(type) {
			case starlark.String:
				if len([]rune(string(x))) != 1 {
					return "", Errorf("TypeError", "%%c requires int or char")
				}
				s = string(x)
			case starlark.Int:
				r, ok := x.Int64()
				if !ok || r < 0 || r > 0x10ffff {
					return "", Errorf("OverflowError", "%%c arg not in range(0x110000)")
				}
				s = string(rune(r))
			default:
				return "", Errorf("TypeError", "%%c requires int or char")
			}
			fs.typ, fs.sign = 's', 0
			s, err = fs.formatString(s, "str")
		default:
			return "", Errorf("ValueError", "unsupported format character '%c' (0x%x) at index %d", conv, conv, i)
		}
		if err != nil {
			return "", err
		}
		b.WriteString(s)
		if b.Len() > 1<<16 {
			if err := Alloc(th, int64(b.Len())); err != nil {
				return "", err
			}
		}
	}
	if next < len(args) && !usedMapping && mapping == nil {
		return "", Errorf("TypeError", "not all arguments converted during string formatting")
	}
	return b.String(), nil
}
