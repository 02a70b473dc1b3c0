package core

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/pyvalue/ucd"
	"github.com/star-agent/star-agent/vm/starlark"
)

// The methods of str that transform a string: replace, translate,
// maketrans, encode, format and format_map.

func strReplace(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var old, new string
	var countArg starlark.Value = starlark.MakeInt(-1)
	if err := starlark.UnpackPositionalArgs(fn.Name(), args, kwargs, 2, &old, &new, &countArg); err != nil {
		return nil, err
	}
	count, err := IndexInt(countArg)
	if err != nil {
		return nil, err
	}
	n := 0
	if old == "" {
		n = PyLen(s) + 1
	} else {
		n = strings.Count(s, old)
	}
	if count >= 0 && count < n {
		n = count
	}
	if err := Alloc(th, int64(len(s))+int64(n)*int64(len(new)-len(old))); err != nil {
		return nil, err
	}
	return starlark.String(strings.Replace(s, old, new, n)), nil
}

func strTranslate(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var table starlark.Mapping
	if err := starlark.UnpackPositionalArgs(fn.Name(), args, kwargs, 1, &table); err != nil {
		return nil, err
	}
	var b strings.Builder
	for _, r := range s {
		v, found, err := table.Get(starlark.MakeInt(int(r)))
		if err != nil {
			return nil, err
		}
		if !found {
			b.WriteRune(r)
			continue
		}
		switch v := v.(type) {
		case starlark.NoneType:
		case starlark.String:
			b.WriteString(string(v))
		case starlark.Int:
			c, _ := v.Int64()
			b.WriteRune(rune(c))
		default:
			return nil, Errorf(pyexc.TypeError, "character mapping must return integer, None or str")
		}
		if b.Len() > 1<<20 && b.Len()%(1<<16) < 8 {
			if err := Alloc(th, int64(b.Len())); err != nil {
				return nil, err
			}
		}
	}
	return starlark.String(b.String()), nil
}

func strEncode(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	enc, errs := "utf-8", "strict"
	if err := starlark.UnpackArgs(fn.Name(), args, kwargs, "encoding?", &enc, "errors?", &errs); err != nil {
		return nil, err
	}
	return encodeString(s, enc, errs)
}

func strFormat(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	out, err := formatTemplate(th, s, args, kwargs, nil)
	return starlark.String(out), err
}

func strFormatMap(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var m starlark.Mapping
	if err := starlark.UnpackPositionalArgs(fn.Name(), args, kwargs, 1, &m); err != nil {
		return nil, err
	}
	out, err := formatTemplate(th, s, nil, nil, m)
	return starlark.String(out), err
}

// strMaketrans is s.maketrans(...), the static method called through an
// instance: the receiver plays no part.
func strMaketrans(th *starlark.Thread, fn *starlark.Builtin, _ string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return maketrans(th, fn, args, kwargs)
}

// maketrans is str.maketrans.
func maketrans(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x, y, z starlark.Value
	if err := starlark.UnpackPositionalArgs("maketrans", args, kwargs, 1, &x, &y, &z); err != nil {
		return nil, err
	}
	d := starlark.NewDict(8)
	if y == nil {
		m, ok := x.(*starlark.Dict)
		if !ok {
			return nil, Errorf(pyexc.TypeError, "if you give only one argument to maketrans it must be a dict")
		}
		for k, v := range m.Entries() {
			if ks, ok := k.(starlark.String); ok {
				r := []rune(string(ks))
				if len(r) != 1 {
					return nil, Errorf(pyexc.ValueError, "string keys in translate table must be of length 1")
				}
				k = starlark.MakeInt(int(r[0]))
			}
			if err := d.SetKey(k, v); err != nil {
				return nil, err
			}
		}
		return d, nil
	}
	xs, ok1 := x.(starlark.String)
	ys, ok2 := y.(starlark.String)
	if !ok1 || !ok2 {
		return nil, Errorf(pyexc.TypeError, "maketrans() arguments must be str")
	}
	xr, yr := []rune(string(xs)), []rune(string(ys))
	if len(xr) != len(yr) {
		return nil, Errorf(pyexc.ValueError, "the first two maketrans arguments must have equal length")
	}
	for i := range xr {
		d.SetKey(starlark.MakeInt(int(xr[i])), starlark.MakeInt(int(yr[i])))
	}
	if z != nil {
		zs, ok := z.(starlark.String)
		if !ok {
			return nil, Errorf(pyexc.TypeError, "maketrans() argument 3 must be str")
		}
		for _, r := range string(zs) {
			d.SetKey(starlark.MakeInt(int(r)), starlark.None)
		}
	}
	return d, nil
}

// codecName is the name CPython's codec registry gives an encoding, for
// the encodings str.encode knows here.
func codecName(enc string) string {
	n := strings.ToLower(strings.NewReplacer("_", "-", " ", "-").Replace(enc))
	switch n {
	case "utf-8", "utf8", "u8", "utf", "cp65001":
		return "utf-8"
	case "ascii", "us-ascii", "646", "us":
		return "ascii"
	case "latin-1", "latin1", "iso-8859-1", "iso8859-1", "8859", "cp819", "latin", "l1", "iso-ir-100", "csisolatin1":
		return "latin-1"
	}
	return ""
}

// encodeString is str.encode for UTF-8, ASCII and Latin-1 with CPython's
// error handlers and UnicodeEncodeError messages.
func encodeString(s, enc, errs string) (starlark.Value, error) {
	name := codecName(enc)
	switch name {
	case "":
		return nil, Errorf(pyexc.LookupError, "unknown encoding: %s", enc)
	case "utf-8":
		return starlark.Bytes(s), nil
	}
	limit := rune(0x7f)
	if name == "latin-1" {
		limit = 0xff
	}
	rs := []rune(s)
	var b []byte
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if r <= limit {
			b = append(b, byte(r))
			continue
		}
		j := i + 1 // the run of characters the codec cannot encode
		for j < len(rs) && rs[j] > limit {
			j++
		}
		switch errs {
		case "ignore":
		case "replace":
			b = append(b, strings.Repeat("?", j-i)...)
		case "backslashreplace", "namereplace", "xmlcharrefreplace":
			for _, c := range rs[i:j] {
				switch {
				case errs == "xmlcharrefreplace":
					b = append(b, "&#"+strconv.Itoa(int(c))+";"...)
				case errs == "namereplace" && ucd.UnicodeName(c) != "":
					b = append(b, "\\N{"+ucd.UnicodeName(c)+"}"...)
				default:
					b = append(b, charEscape(c)...)
				}
			}
		case "strict":
			reason := "ordinal not in range(" + strconv.Itoa(int(limit)+1) + ")"
			if j-i == 1 {
				return nil, Errorf(pyexc.UnicodeEncodeError, "'%s' codec can't encode character '%s' in position %d: %s", name, charEscape(r), i, reason)
			}
			return nil, Errorf(pyexc.UnicodeEncodeError, "'%s' codec can't encode characters in position %d-%d: %s", name, i, j-1, reason)
		default:
			return nil, Errorf(pyexc.LookupError, "unknown error handler name '%s'", errs)
		}
		i = j - 1
	}
	return starlark.Bytes(b), nil
}

// charEscape is the backslash escape of a character as CPython's
// backslashreplace writes it.
func charEscape(r rune) string {
	switch {
	case r < 0x100:
		return fmt.Sprintf("\\x%02x", r)
	case r < 0x10000:
		return fmt.Sprintf("\\u%04x", r)
	}
	return fmt.Sprintf("\\U%08x", r)
}
