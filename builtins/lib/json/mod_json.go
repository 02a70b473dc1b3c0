package json

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/star-agent/star-agent/builtins/core"
	pycollections "github.com/star-agent/star-agent/builtins/lib/collections"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// json: dumps and loads byte-identical to CPython's json module.

type jsonEncoder struct {
	th          *starlark.Thread
	b           core.Builder // charged as it grows
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
	if err := e.b.Err(); err != nil {
		return err
	}
	e.n++
	if e.n%core.CheckEvery == 0 {
		if err := core.Interrupted(e.th); err != nil {
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
		if core.SameObject(s, v) {
			return core.Errorf(pyexc.ValueError, "Circular reference detected")
		}
	}
	if len(e.stack) > 1000 {
		return core.Errorf(pyexc.RecursionError, "maximum recursion depth exceeded while encoding a JSON object")
	}
	e.stack = append(e.stack, v)
	return nil
}

func (e *jsonEncoder) floatStr(f float64) (string, error) {
	switch {
	case math.IsNaN(f):
		if !e.allowNaN {
			return "", core.Errorf(pyexc.ValueError, "Out of range float values are not JSON compliant")
		}
		return "NaN", nil
	case math.IsInf(f, 1):
		if !e.allowNaN {
			return "", core.Errorf(pyexc.ValueError, "Out of range float values are not JSON compliant")
		}
		return "Infinity", nil
	case math.IsInf(f, -1):
		if !e.allowNaN {
			return "", core.Errorf(pyexc.ValueError, "Out of range float values are not JSON compliant")
		}
		return "-Infinity", nil
	}
	return core.FloatRepr(f), nil
}

func (e *jsonEncoder) encode(v starlark.Value, depth int) error {
	if err := e.check(); err != nil {
		return err
	}
	switch x := v.(type) {
	case *pycollections.DictLike:
		return e.encode(x.Dict, depth)
	case *core.NamedtupleValue:
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
		s, err := core.IntString(x)
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
		quoteInto(&e.b, string(x), e.ensureASCII)
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
			s := core.Sorter{Th: e.th, Keys: order}
			ix := make([]int, len(items))
			for i := range ix {
				ix[i] = i
			}
			s.MergeSort(ix, make([]int, len(ix)))
			if s.Err != nil {
				return s.Err
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
				s, err := core.IntString(k)
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
				return core.Errorf(pyexc.TypeError, "keys must be str, int, float, bool or None, not %s", core.TypeName(k))
			}
			if !first {
				e.b.WriteString(e.itemSep)
				e.newline(depth + 1)
			}
			first = false
			quoteInto(&e.b, key, e.ensureASCII)
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
		return core.Errorf(pyexc.TypeError, "Object of type %s is not JSON serializable", core.TypeName(v))
	}
	return nil
}

// quoteWriter is where quoteInto writes: a core.Builder, charged as it
// grows.
type quoteWriter interface {
	WriteString(string) (int, error)
	WriteByte(byte) error
	WriteRune(rune) (int, error)
	Grow(int)
}

// quoteInto writes s as a JSON string.
func quoteInto(b quoteWriter, s string, ensureASCII bool) {
	b.Grow(len(s) + 2)
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
				b.WriteString(`\u` + core.HexN(uint32(r), 4))
			case r < 0x7f || !ensureASCII:
				b.WriteRune(r)
			case r < 0x10000:
				b.WriteString(`\u` + core.HexN(uint32(r), 4))
			default:
				r1, r2 := utf16.EncodeRune(r)
				b.WriteString(`\u` + core.HexN(uint32(r1), 4) + `\u` + core.HexN(uint32(r2), 4))
			}
		}
	}
	b.WriteByte('"')
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
	e.b.Th = th
	switch v := indent.(type) {
	case starlark.NoneType:
	case starlark.Bool:
		// A bool is an int in Python: False indents by 0, True by 1.
		e.hasIndent = true
		if v {
			e.indent = " "
		}
	case starlark.Int:
		n, _ := v.Int64()
		if n > 1000 {
			return nil, core.Errorf(pyexc.ValueError, "indent too large")
		}
		e.hasIndent, e.indent = true, strings.Repeat(" ", int(max(n, 0)))
	case starlark.String:
		e.hasIndent, e.indent = true, string(v)
	default:
		return nil, core.Errorf(pyexc.TypeError, "indent must be None, an int or a str")
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
				return nil, core.Errorf(pyexc.ValueError, "separators must be an (item_separator, key_separator) tuple")
			}
		}
		a, ok1 := t[0].(starlark.String)
		b, ok2 := t[1].(starlark.String)
		if !ok1 || !ok2 {
			return nil, core.Errorf(pyexc.TypeError, "separators must be strings")
		}
		e.itemSep, e.keySep = string(a), string(b)
	}
	if err := e.encode(obj, 0); err != nil {
		return nil, err
	}
	if err := e.b.Err(); err != nil {
		return nil, err
	}
	return starlark.String(e.b.String()), nil
}

// jsonDecoder parses JSON text into Starlark values, preserving key order
// and producing CPython's error messages and positions.
type jsonDecoder struct {
	th *starlark.Thread
	s  string
	i  int
	n  int
	// The hooks of loads, nil when not given: each is called with what
	// it replaces (a dict, the list of (key, value) pairs, a number's
	// text, "NaN" / "Infinity" / "-Infinity").
	objectHook, pairsHook, parseFloat, parseInt, parseConstant starlark.Value
}

// hook calls f with x, as loads calls its hooks.
func (d *jsonDecoder) hook(f, x starlark.Value) (starlark.Value, error) {
	return starlark.Call(d.th, f, starlark.Tuple{x}, nil)
}

// object finishes a decoded object: its pairs become a dict, or go to
// object_pairs_hook; object_hook then replaces the dict.
func (d *jsonDecoder) object(pairs []starlark.Value) (starlark.Value, error) {
	if d.pairsHook != nil {
		return d.hook(d.pairsHook, starlark.NewList(pairs))
	}
	dict := starlark.NewDict(len(pairs))
	for _, p := range pairs {
		kv := p.(starlark.Tuple)
		if err := dict.SetKey(kv[0], kv[1]); err != nil {
			return nil, err
		}
	}
	if d.objectHook != nil {
		return d.hook(d.objectHook, dict)
	}
	return dict, nil
}

// constant is NaN, Infinity or -Infinity, or what parse_constant makes
// of it.
func (d *jsonDecoder) constant(name string, f float64) (starlark.Value, error) {
	d.i += len(name)
	if d.parseConstant != nil {
		return d.hook(d.parseConstant, starlark.String(name))
	}
	return starlark.Float(f), nil
}

func (d *jsonDecoder) fail(msg string, at int) error {
	line := 1 + strings.Count(d.s[:at], "\n")
	lineStart := strings.LastIndex(d.s[:at], "\n") + 1
	col := utf8.RuneCountInString(d.s[lineStart:at]) + 1
	pos := utf8.RuneCountInString(d.s[:at])
	return core.Errorf(pyexc.JSONDecodeError, "%s: line %d column %d (char %d)", msg, line, col, pos)
}

func (d *jsonDecoder) ws() {
	for d.i < len(d.s) && (d.s[d.i] == ' ' || d.s[d.i] == '\t' || d.s[d.i] == '\n' || d.s[d.i] == '\r') {
		d.i++
	}
}

func (d *jsonDecoder) value(depth int) (starlark.Value, error) {
	if depth > 1000 {
		return nil, core.Errorf(pyexc.RecursionError, "maximum recursion depth exceeded while decoding a JSON document")
	}
	if d.n++; d.n%core.CheckEvery == 0 {
		if err := core.Interrupted(d.th); err != nil {
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
		var pairs []starlark.Value
		d.ws()
		if d.i < len(d.s) && d.s[d.i] == '}' {
			d.i++
			return d.object(pairs)
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
			pairs = append(pairs, starlark.Tuple{k, v})
			d.ws()
			if d.i < len(d.s) && d.s[d.i] == ',' {
				d.i++
				continue
			}
			if d.i < len(d.s) && d.s[d.i] == '}' {
				d.i++
				return d.object(pairs)
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
		return d.constant("NaN", math.NaN())
	case strings.HasPrefix(d.s[d.i:], "Infinity"):
		return d.constant("Infinity", math.Inf(1))
	case strings.HasPrefix(d.s[d.i:], "-Infinity"):
		return d.constant("-Infinity", math.Inf(-1))
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
		for d.i < len(d.s) && core.IsDigit(d.s[d.i]) {
			d.i++
		}
	}
	if d.i == digits {
		return nil, d.fail("Expecting value", start)
	}
	isFloat := false
	if d.i+1 < len(d.s) && d.s[d.i] == '.' && core.IsDigit(d.s[d.i+1]) {
		isFloat = true
		d.i++
		for d.i < len(d.s) && core.IsDigit(d.s[d.i]) {
			d.i++
		}
	}
	if d.i < len(d.s) && (d.s[d.i] == 'e' || d.s[d.i] == 'E') {
		j := d.i + 1
		if j < len(d.s) && (d.s[j] == '+' || d.s[j] == '-') {
			j++
		}
		if j < len(d.s) && core.IsDigit(d.s[j]) {
			isFloat = true
			for j < len(d.s) && core.IsDigit(d.s[j]) {
				j++
			}
			d.i = j
		}
	}
	text := d.s[start:d.i]
	if isFloat && d.parseFloat != nil {
		return d.hook(d.parseFloat, starlark.String(text))
	}
	if !isFloat && d.parseInt != nil {
		return d.hook(d.parseInt, starlark.String(text))
	}
	if isFloat {
		f, _ := strconv.ParseFloat(text, 64)
		return starlark.Float(f), nil
	}
	if digits := len(strings.TrimPrefix(text, "-")); digits > core.MaxIntDigits {
		return nil, core.ErrStrToInt(digits)
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
	var cls, objectHook, parseFloat, parseInt, parseConstant, pairsHook starlark.Value = starlark.None, starlark.None, starlark.None, starlark.None, starlark.None, starlark.None
	if err := starlark.UnpackArgs("loads", args, kwargs, "s", &src, "cls?", &cls, "object_hook?", &objectHook,
		"parse_float?", &parseFloat, "parse_int?", &parseInt, "parse_constant?", &parseConstant, "object_pairs_hook?", &pairsHook); err != nil {
		return nil, err
	}
	if cls != starlark.None {
		return nil, core.Errorf(pyexc.TypeError, "json.loads: cls is not supported")
	}
	var s string
	switch v := src.(type) {
	case starlark.String:
		s = string(v)
	case starlark.Bytes:
		s = string(v)
	default:
		return nil, core.Errorf(pyexc.TypeError, "the JSON object must be str, bytes or bytearray, not %s", core.TypeName(src))
	}
	if err := core.Alloc(th, int64(len(s))*4); err != nil {
		return nil, err
	}
	d := &jsonDecoder{th: th, s: s}
	for _, h := range []struct {
		v   starlark.Value
		dst *starlark.Value
	}{{objectHook, &d.objectHook}, {pairsHook, &d.pairsHook}, {parseFloat, &d.parseFloat}, {parseInt, &d.parseInt}, {parseConstant, &d.parseConstant}} {
		if h.v != starlark.None {
			*h.dst = h.v
		}
	}
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

func members() starlark.StringDict {
	return starlark.StringDict{
		"dumps": core.Fn("dumps", jsonDumps),
		"loads": core.Fn("loads", jsonLoads),
	}
}

// Module returns a new json module.
func Module() *core.PyModule { return core.NewModule("json", members()) }
