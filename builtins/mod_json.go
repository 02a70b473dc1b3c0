package builtins

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"go.starlark.net/starlark"
)

// json: dumps and loads byte-identical to CPython's json module.

type jsonEncoder struct {
	th          *starlark.Thread
	b           strings.Builder
	indent      string
	hasIndent   bool
	itemSep     string
	keySep      string
	sortKeys    bool
	ensureASCII bool
	allowNaN    bool
	skipKeys    bool
	dflt        starlark.Value
	stack       []starlark.Value
	n           int
}

func (e *jsonEncoder) check() error {
	e.n++
	if e.n%checkEvery == 0 {
		if err := Interrupted(e.th); err != nil {
			return err
		}
		if err := Alloc(e.th, int64(e.b.Len())/8); err != nil {
			return err
		}
	}
	return nil
}

func (e *jsonEncoder) newline(depth int) {
	if e.hasIndent {
		e.b.WriteByte('\n')
		for i := 0; i < depth; i++ {
			e.b.WriteString(e.indent)
		}
	}
}

func (e *jsonEncoder) enter(v starlark.Value) error {
	for _, s := range e.stack {
		if sameObject(s, v) {
			return Errorf("ValueError", "Circular reference detected")
		}
	}
	if len(e.stack) > 1000 {
		return Errorf("RecursionError", "maximum recursion depth exceeded while encoding a JSON object")
	}
	e.stack = append(e.stack, v)
	return nil
}

func (e *jsonEncoder) floatStr(f float64) (string, error) {
	switch {
	case math.IsNaN(f):
		if !e.allowNaN {
			return "", Errorf("ValueError", "Out of range float values are not JSON compliant")
		}
		return "NaN", nil
	case math.IsInf(f, 1):
		if !e.allowNaN {
			return "", Errorf("ValueError", "Out of range float values are not JSON compliant")
		}
		return "Infinity", nil
	case math.IsInf(f, -1):
		if !e.allowNaN {
			return "", Errorf("ValueError", "Out of range float values are not JSON compliant")
		}
		return "-Infinity", nil
	}
	return floatRepr(f), nil
}

func (e *jsonEncoder) encode(v starlark.Value, depth int) error {
	if err := e.check(); err != nil {
		return err
	}
	switch x := v.(type) {
	case *dictLike:
		return e.encode(x.Dict, depth)
	case *namedtupleValue:
		return e.encode(x.Tuple, depth)
	}
	switch x := v.(type) {
	case starlark.NoneType:
		e.b.WriteString("null")
	case starlark.Bool:
		if x {
			e.b.WriteString("true")
		} else {
			e.b.WriteString("false")
		}
	case starlark.Int:
		s, err := intString(x)
		if err != nil {
			return err
		}
		e.b.WriteString(s)
	case starlark.Float:
		s, err := e.floatStr(float64(x))
		if err != nil {
			return err
		}
		e.b.WriteString(s)
	case starlark.String:
		e.b.WriteString(jsonQuote(string(x), e.ensureASCII))
	case *starlark.List, starlark.Tuple:
		if err := e.enter(v); err != nil {
			return err
		}
		defer func() { e.stack = e.stack[:len(e.stack)-1] }()
		seq := x.(starlark.Indexable)
		if seq.Len() == 0 {
			e.b.WriteString("[]")
			return nil
		}
		e.b.WriteByte('[')
		e.newline(depth + 1)
		for i := 0; i < seq.Len(); i++ {
			if i > 0 {
				e.b.WriteString(e.itemSep)
				e.newline(depth + 1)
			}
			if err := e.encode(seq.Index(i), depth+1); err != nil {
				return err
			}
		}
		e.newline(depth)
		e.b.WriteByte(']')
	case *starlark.Dict:
		if err := e.enter(v); err != nil {
			return err
		}
		defer func() { e.stack = e.stack[:len(e.stack)-1] }()
		if x.Len() == 0 {
			e.b.WriteString("{}")
			return nil
		}
		items := x.Items()
		if e.sortKeys {
			// Sort on the keys alone with Python's <; keys are unique.
			order := make([]starlark.Value, len(items))
			for i, it := range items {
				order[i] = it[0]
			}
			s := sorter{th: e.th, keys: order}
			ix := make([]int, len(items))
			for i := range ix {
				ix[i] = i
			}
			s.mergeSort(ix, make([]int, len(ix)))
			if s.err != nil {
				return s.err
			}
			sorted := make([]starlark.Tuple, len(items))
			for i, j := range ix {
				sorted[i] = items[j]
			}
			items = sorted
		}
		e.b.WriteByte('{')
		e.newline(depth + 1)
		first := true
		for _, it := range items {
			var key string
			switch k := it[0].(type) {
			case starlark.String:
				key = string(k)
			case starlark.Int:
				s, err := intString(k)
				if err != nil {
					return err
				}
				key = s
			case starlark.Float:
				s, err := e.floatStr(float64(k))
				if err != nil {
					return err
				}
				key = s
			case starlark.Bool:
				key = "false"
				if k {
					key = "true"
				}
			case starlark.NoneType:
				key = "null"
			default:
				if e.skipKeys {
					continue
				}
				return Errorf("TypeError", "keys must be str, int, float, bool or None, not %s", TypeName(k))
			}
			if !first {
				e.b.WriteString(e.itemSep)
				e.newline(depth + 1)
			}
			first = false
			e.b.WriteString(jsonQuote(key, e.ensureASCII))
			e.b.WriteString(e.keySep)
			if err := e.encode(it[1], depth+1); err != nil {
				return err
			}
		}
		e.newline(depth)
		e.b.WriteByte('}')
	default:
		if e.dflt != nil && e.dflt != starlark.None {
			if err := e.enter(v); err != nil {
				return err
			}
			r, err := starlark.Call(e.th, e.dflt, starlark.Tuple{v}, nil)
			if err != nil {
				return err
			}
			err = e.encode(r, depth)
			e.stack = e.stack[:len(e.stack)-1]
			return err
		}
		return Errorf("TypeError", "Object of type %s is not JSON serializable", TypeName(v))
	}
	return nil
}

func jsonQuote(s string, ensureASCII bool) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			switch {
			case r < 0x20:
				b.WriteString(`\u` + hexN(uint32(r), 4))
			case r < 0x7f || !ensureASCII:
				b.WriteRune(r)
			case r < 0x10000:
				b.WriteString(`\u` + hexN(uint32(r), 4))
			default:
				r1, r2 := utf16.EncodeRune(r)
				b.WriteString(`\u` + hexN(uint32(r1), 4) + `\u` + hexN(uint32(r2), 4))
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

func jsonDumps(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var obj starlark.Value
	var indent, separators, dflt, cls starlark.Value = starlark.None, starlark.None, starlark.None, starlark.None
	ensureASCII, sortKeys, allowNaN, skipKeys, checkCircular := true, false, true, false, true
	if err := starlark.UnpackArgs("dumps", args, kwargs, "obj", &obj, "skipkeys?", &skipKeys, "ensure_ascii?", &ensureASCII,
		"check_circular?", &checkCircular, "allow_nan?", &allowNaN, "cls?", &cls, "indent?", &indent,
		"separators?", &separators, "default?", &dflt, "sort_keys?", &sortKeys); err != nil {
		return nil, err
	}
	e := &jsonEncoder{th: th, ensureASCII: ensureASCII, sortKeys: sortKeys, allowNaN: allowNaN, skipKeys: skipKeys, dflt: dflt,
		itemSep: ", ", keySep: ": "}
	switch v := indent.(type) {
	case starlark.NoneType:
	case starlark.Int:
		n, _ := v.Int64()
		if n > 1000 {
			return nil, Errorf("ValueError", "indent too large")
		}
		e.hasIndent, e.indent = true, strings.Repeat(" ", int(max(n, 0)))
	case starlark.String:
		e.hasIndent, e.indent = true, string(v)
	default:
		return nil, Errorf("TypeError", "indent must be None, an int or a str")
	}
	if e.hasIndent {
		e.itemSep = ","
	}
	if separators != starlark.None {
		t, ok := separators.(starlark.Tuple)
		if !ok || len(t) != 2 {
			if l, isList := separators.(*starlark.List); isList && l.Len() == 2 {
				t = starlark.Tuple{l.Index(0), l.Index(1)}
			} else {
				return nil, Errorf("ValueError", "separators must be an (item_separator, key_separator) tuple")
			}
		}
		a, ok1 := t[0].(starlark.String)
		b, ok2 := t[1].(starlark.String)
		if !ok1 || !ok2 {
			return nil, Errorf("TypeError", "separators must be strings")
		}
		e.itemSep, e.keySep = string(a), string(b)
	}
	if err := e.encode(obj, 0); err != nil {
		return nil, err
	}
	return starlark.String(e.b.String()), nil
}

// jsonDecoder parses JSON text into Starlark values, preserving key order
// and producing CPython's error messages and positions.
type jsonDecoder struct {
	th  *starlark.Thread
	s   string
	i   int
	n   int
	err error
}

func (d *jsonDecoder) fail(msg string, at int) error {
	line := 1 + strings.Count(d.s[:at], "\n")
	lineStart := strings.LastIndex(d.s[:at], "\n") + 1
	col := utf8.RuneCountInString(d.s[lineStart:at]) + 1
	pos := utf8.RuneCountInString(d.s[:at])
	return Errorf("JSONDecodeError", "%s: line %d column %d (char %d)", msg, line, col, pos)
}

func (d *jsonDecoder) ws() {
	for d.i < len(d.s) && (d.s[d.i] == ' ' || d.s[d.i] == '\t' || d.s[d.i] == '\n' || d.s[d.i] == '\r') {
		d.i++
	}
}

func (d *jsonDecoder) value(depth int) (starlark.Value, error) {
	if depth > 1000 {
		return nil, Errorf("RecursionError", "maximum recursion depth exceeded while decoding a JSON document")
	}
	if d.n++; d.n%checkEvery == 0 {
		if err := Interrupted(d.th); err != nil {
			return nil, err
		}
	}
	if d.i >= len(d.s) {
		return nil, d.fail("Expecting value", d.i)
	}
	c := d.s[d.i]
	switch {
	case c == '{':
		d.i++
		dict := starlark.NewDict(0)
		d.ws()
		if d.i < len(d.s) && d.s[d.i] == '}' {
			d.i++
			return dict, nil
		}
		for {
			d.ws()
			if d.i >= len(d.s) || d.s[d.i] != '"' {
				return nil, d.fail("Expecting property name enclosed in double quotes", d.i)
			}
			k, err := d.str()
			if err != nil {
				return nil, err
			}
			d.ws()
			if d.i >= len(d.s) || d.s[d.i] != ':' {
				return nil, d.fail("Expecting ':' delimiter", d.i)
			}
			d.i++
			d.ws()
			v, err := d.value(depth + 1)
			if err != nil {
				return nil, err
			}
			dict.SetKey(k, v)
			d.ws()
			if d.i < len(d.s) && d.s[d.i] == ',' {
				d.i++
				continue
			}
			if d.i < len(d.s) && d.s[d.i] == '}' {
				d.i++
				return dict, nil
			}
			return nil, d.fail("Expecting ',' delimiter", d.i)
		}
	case c == '[':
		d.i++
		var vals []starlark.Value
		d.ws()
		if d.i < len(d.s) && d.s[d.i] == ']' {
			d.i++
			return starlark.NewList(nil), nil
		}
		for {
			d.ws()
			v, err := d.value(depth + 1)
			if err != nil {
				return nil, err
			}
			vals = append(vals, v)
			d.ws()
			if d.i < len(d.s) && d.s[d.i] == ',' {
				d.i++
				continue
			}
			if d.i < len(d.s) && d.s[d.i] == ']' {
				d.i++
				return starlark.NewList(vals), nil
			}
			return nil, d.fail("Expecting ',' delimiter", d.i)
		}
	case c == '"':
		return d.str()
	case strings.HasPrefix(d.s[d.i:], "null"):
		d.i += 4
		return starlark.None, nil
	case strings.HasPrefix(d.s[d.i:], "true"):
		d.i += 4
		return starlark.True, nil
	case strings.HasPrefix(d.s[d.i:], "false"):
		d.i += 5
		return starlark.False, nil
	case strings.HasPrefix(d.s[d.i:], "NaN"):
		d.i += 3
		return starlark.Float(math.NaN()), nil
	case strings.HasPrefix(d.s[d.i:], "Infinity"):
		d.i += 8
		return starlark.Float(math.Inf(1)), nil
	case strings.HasPrefix(d.s[d.i:], "-Infinity"):
		d.i += 9
		return starlark.Float(math.Inf(-1)), nil
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	}
	return nil, d.fail("Expecting value", d.i)
}

func (d *jsonDecoder) number() (starlark.Value, error) {
	start := d.i
	if d.s[d.i] == '-' {
		d.i++
	}
	digits := d.i
	if d.i < len(d.s) && d.s[d.i] == '0' {
		d.i++
	} else {
		for d.i < len(d.s) && isDigit(d.s[d.i]) {
			d.i++
		}
	}
	if d.i == digits {
		return nil, d.fail("Expecting value", start)
	}
	isFloat := false
	if d.i+1 < len(d.s) && d.s[d.i] == '.' && isDigit(d.s[d.i+1]) {
		isFloat = true
		d.i++
		for d.i < len(d.s) && isDigit(d.s[d.i]) {
			d.i++
		}
	}
	if d.i < len(d.s) && (d.s[d.i] == 'e' || d.s[d.i] == 'E') {
		j := d.i + 1
		if j < len(d.s) && (d.s[j] == '+' || d.s[j] == '-') {
			j++
		}
		if j < len(d.s) && isDigit(d.s[j]) {
			isFloat = true
			for j < len(d.s) && isDigit(d.s[j]) {
				j++
			}
			d.i = j
		}
	}
	text := d.s[start:d.i]
	if isFloat {
		f, _ := strconv.ParseFloat(text, 64)
		return starlark.Float(f), nil
	}
	if digits := len(strings.TrimPrefix(text, "-")); digits > maxIntDigits {
		return nil, errStrToInt(digits)
	}
	n, _ := new(big.Int).SetString(text, 10)
	return starlark.MakeBigInt(n), nil
}

func (d *jsonDecoder) str() (starlark.Value, error) {
	start := d.i
	d.i++
	var b strings.Builder
	for {
		if d.i >= len(d.s) {
			return nil, d.fail("Unterminated string starting at", start)
		}
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			return starlark.String(b.String()), nil
		case c == '\\':
			if d.i+1 >= len(d.s) {
				return nil, d.fail("Unterminated string starting at", start)
			}
			e := d.s[d.i+1]
			simple := map[byte]string{'"': "\"", '\\': "\\", '/': "/", 'b': "\b", 'f': "\f", 'n': "\n", 'r': "\r", 't': "\t"}
			if r, ok := simple[e]; ok {
				b.WriteString(r)
				d.i += 2
				continue
			}
			if e != 'u' {
				return nil, d.fail("Invalid \\escape", d.i)
			}
			r, ok := d.hex4(d.i + 2)
			if !ok {
				return nil, d.fail("Invalid \\uXXXX escape", d.i+1)
			}
			d.i += 6
			if utf16.IsSurrogate(r) && strings.HasPrefix(d.s[d.i:], `\u`) {
				if r2, ok := d.hex4(d.i + 2); ok {
					if c := utf16.DecodeRune(r, r2); c != utf8.RuneError {
						r = c
						d.i += 6
					}
				}
			}
			b.WriteRune(r)
		case c < 0x20:
			return nil, d.fail("Invalid control character at", d.i)
		default:
			b.WriteByte(c)
			d.i++
		}
	}
}

func (d *jsonDecoder) hex4(at int) (rune, bool) {
	if at+4 > len(d.s) {
		return 0, false
	}
	v, err := strconv.ParseUint(d.s[at:at+4], 16, 32)
	return rune(v), err == nil
}

func jsonLoads(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var src starlark.Value
	if err := starlark.UnpackArgs("loads", args, kwargs, "s", &src); err != nil {
		return nil, err
	}
	var s string
	switch v := src.(type) {
	case starlark.String:
		s = string(v)
	case starlark.Bytes:
		s = string(v)
	default:
		return nil, Errorf("TypeError", "the JSON object must be str, bytes or bytearray, not %s", TypeName(src))
	}
	if err := Alloc(th, int64(len(s))*4); err != nil {
		return nil, err
	}
	d := &jsonDecoder{th: th, s: s}
	d.ws()
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.ws()
	if d.i != len(d.s) {
		return nil, d.fail("Extra data", d.i)
	}
	return v, nil
}

func init() {
	register("json", func() starlark.StringDict {
		return starlark.StringDict{
			"dumps": fn("dumps", jsonDumps),
			"loads": fn("loads", jsonLoads),
		}
	})
}
