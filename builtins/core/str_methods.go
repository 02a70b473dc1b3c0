package core

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/pyvalue/ucd"
	"go.starlark.net/starlark"
)

// Python's str methods. go.starlark.net's own string methods index by
// UTF-8 byte; these count code points, as Python does, and bound every
// result whose size depends on the arguments.

type strMethod func(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)

var strMethods = map[string]*starlark.Builtin{}

func defStr(name string, f strMethod) {
	strMethods[name] = starlark.NewBuiltin(name, func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return f(th, fn, string(fn.Receiver().(starlark.String)), args, kwargs)
	})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// PyLen is the length of s in code points.
func PyLen(s string) int {
	if isASCII(s) {
		return len(s)
	}
	return utf8.RuneCountInString(s)
}

// ByteOffset converts code-point index i (0 <= i <= len) of s to a byte
// offset.
func ByteOffset(s string, i int) int {
	if isASCII(s) {
		return i
	}
	n := 0
	for off := range s {
		if n == i {
			return off
		}
		n++
	}
	return len(s)
}

// IndexArg normalises an optional slice bound (None, negative) against n.
func IndexArg(v starlark.Value, n, def int) (int, error) {
	if v == nil || v == starlark.None {
		return def, nil
	}
	i, err := SliceIndex(v)
	if err != nil {
		return 0, err
	}
	return clampIndex(i, n), nil
}

// clampIndex puts a bound, negative from the end, within 0..n.
func clampIndex(i, n int) int {
	if i < 0 {
		i += n
	}
	return max(0, min(i, n))
}

// window returns the part of s between code-point bounds start and end
// (optional arguments) and the code-point offset of its start.
func window(s string, start, end starlark.Value) (string, int, bool, error) {
	n := PyLen(s)
	lo := 0
	if start != nil && start != starlark.None {
		raw, err := SliceIndex(start)
		if err != nil {
			return "", 0, false, err
		}
		if raw > n {
			// Nothing starts past the end, not even the empty string.
			return "", n, false, nil
		}
		lo = clampIndex(raw, n)
	}
	hi, err := IndexArg(end, n, n)
	if err != nil {
		return "", 0, false, err
	}
	if lo > hi {
		return "", lo, false, nil
	}
	return s[ByteOffset(s, lo):ByteOffset(s, hi)], lo, true, nil
}

func strArg(fname string, v starlark.Value) (string, error) {
	s, ok := v.(starlark.String)
	if !ok {
		return "", Errorf(pyexc.TypeError, "%s arg must be None or str", fname)
	}
	return string(s), nil
}

func findImpl(fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple, last bool) (int, error) {
	var sub string
	var start, end starlark.Value
	if err := starlark.UnpackPositionalArgs(fn.Name(), args, kwargs, 1, &sub, &start, &end); err != nil {
		return 0, err
	}
	w, off, ok, err := window(s, start, end)
	if err != nil || !ok {
		return -1, err
	}
	var i int
	if last {
		i = strings.LastIndex(w, sub)
	} else {
		i = strings.Index(w, sub)
	}
	if i < 0 {
		return -1, nil
	}
	return off + PyLen(w[:i]), nil
}

func padArgs(fn *starlark.Builtin, th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (int, string, error) {
	var w starlark.Value
	fill := " "
	if err := starlark.UnpackPositionalArgs(fn.Name(), args, kwargs, 1, &w, &fill); err != nil {
		return 0, "", err
	}
	width, err := IndexInt(w)
	if err != nil {
		return 0, "", err
	}
	if PyLen(fill) != 1 {
		return 0, "", Errorf(pyexc.TypeError, "The fill character must be exactly one character long")
	}
	if err := Alloc(th, int64(max(width, 0))*int64(len(fill))); err != nil {
		return 0, "", err
	}
	return width, fill, nil
}

func SplitWhitespace(s string, maxsplit int, fromRight bool) []string {
	var out []string
	if !fromRight {
		for maxsplit != 0 {
			s = strings.TrimLeftFunc(s, IsPySpace)
			if s == "" {
				return out
			}
			i := strings.IndexFunc(s, IsPySpace)
			if i < 0 {
				return append(out, s)
			}
			out = append(out, s[:i])
			s = s[i:]
			maxsplit--
		}
		if s = strings.TrimLeftFunc(s, IsPySpace); s != "" {
			out = append(out, s)
		}
		return out
	}
	for maxsplit != 0 {
		s = strings.TrimRightFunc(s, IsPySpace)
		if s == "" {
			break
		}
		i := strings.LastIndexFunc(s, IsPySpace)
		if i < 0 {
			out = append(out, s)
			s = ""
			break
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		out = append(out, s[i+size:])
		s = s[:i]
		maxsplit--
	}
	if s = strings.TrimRightFunc(s, IsPySpace); s != "" {
		out = append(out, s)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

func StringList(th *starlark.Thread, parts []string) (starlark.Value, error) {
	if err := Alloc(th, int64(len(parts))*32); err != nil {
		return nil, err
	}
	vals := make([]starlark.Value, len(parts))
	for i, p := range parts {
		vals[i] = starlark.String(p)
	}
	return starlark.NewList(vals), nil
}

func IsLineBreak(r rune) bool {
	switch r {
	case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}

func allRunes(s string, f func(rune) bool) starlark.Bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !f(r) {
			return false
		}
	}
	return true
}

// defineStrMethods fills strMethods (called from the init in runtime.go).
func defineStrMethods() {
	noArgs := func(name string, f func(string) starlark.Value) {
		defStr(name, func(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackPositionalArgs(fn.Name(), args, kwargs, 0); err != nil {
				return nil, err
			}
			if err := Alloc(th, int64(len(s))); err != nil {
				return nil, err
			}
			return f(s), nil
		})
	}
	// A full case mapping can triple a character (ΐ upper is three code
	// points of two bytes each).
	caseMapping := func(name string, f func(string) string) {
		defStr(name, func(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackPositionalArgs(fn.Name(), args, kwargs, 0); err != nil {
				return nil, err
			}
			n := int64(len(s))
			if !isASCII(s) {
				n *= 3
			}
			if err := Alloc(th, n); err != nil {
				return nil, err
			}
			return starlark.String(f(s)), nil
		})
	}
	caseMapping("lower", PyLower)
	caseMapping("upper", PyUpper)
	caseMapping("casefold", PyCasefold)
	caseMapping("swapcase", pySwapcase)
	caseMapping("title", PyTitle)
	caseMapping("capitalize", PyCapitalize)
	noArgs("isalpha", func(s string) starlark.Value { return allRunes(s, IsPyAlpha) })
	noArgs("isalnum", func(s string) starlark.Value { return allRunes(s, IsPyAlnum) })
	noArgs("isdecimal", func(s string) starlark.Value { return allRunes(s, IsPyDecimal) })
	noArgs("isdigit", func(s string) starlark.Value { return allRunes(s, IsPyDigit) })
	noArgs("isnumeric", func(s string) starlark.Value { return allRunes(s, IsPyNumeric) })
	noArgs("isspace", func(s string) starlark.Value { return allRunes(s, IsPySpace) })
	noArgs("isascii", func(s string) starlark.Value { return starlark.Bool(isASCII(s)) })
	noArgs("isprintable", func(s string) starlark.Value {
		for _, r := range s {
			if !IsPyPrintable(r) {
				return starlark.False
			}
		}
		return starlark.True
	})
	noArgs("isidentifier", func(s string) starlark.Value { return starlark.Bool(IsIdentifier(s)) })
	noArgs("islower", func(s string) starlark.Value { return starlark.Bool(PyIsLower(s)) })
	noArgs("isupper", func(s string) starlark.Value { return starlark.Bool(PyIsUpper(s)) })
	noArgs("istitle", func(s string) starlark.Value { return starlark.Bool(pyIsTitle(s)) })

	strip := func(name string, left, right bool) {
		defStr(name, func(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var chars starlark.Value = starlark.None
			if err := starlark.UnpackPositionalArgs(fn.Name(), args, kwargs, 0, &chars); err != nil {
				return nil, err
			}
			pred := IsPySpace
			if chars != starlark.None {
				cs, err := strArg(name, chars)
				if err != nil {
					return nil, err
				}
				pred = func(r rune) bool { return strings.ContainsRune(cs, r) }
			}
			if left {
				s = strings.TrimLeftFunc(s, pred)
			}
			if right {
				s = strings.TrimRightFunc(s, pred)
			}
			return starlark.String(s), nil
		})
	}
	strip("strip", true, true)
	strip("lstrip", true, false)
	strip("rstrip", false, true)

	defStr("find", func(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		i, err := findImpl(fn, s, args, kwargs, false)
		return starlark.MakeInt(i), err
	})
	defStr("rfind", func(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		i, err := findImpl(fn, s, args, kwargs, true)
		return starlark.MakeInt(i), err
	})
	index := func(name string, last bool) {
		defStr(name, func(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			i, err := findImpl(fn, s, args, kwargs, last)
			if err != nil {
				return nil, err
			}
			if i < 0 {
				return nil, Errorf(pyexc.ValueError, "substring not found")
			}
			return starlark.MakeInt(i), nil
		})
	}
	index("index", false)
	index("rindex", true)
	defStr("count", func(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var sub string
		var start, end starlark.Value
		if err := starlark.UnpackPositionalArgs(fn.Name(), args, kwargs, 1, &sub, &start, &end); err != nil {
			return nil, err
		}
		w, _, ok, err := window(s, start, end)
		if err != nil || !ok {
			return starlark.MakeInt(0), err
		}
		if sub == "" {
			return starlark.MakeInt(PyLen(w) + 1), nil
		}
		return starlark.MakeInt(strings.Count(w, sub)), nil
	})
	affix := func(name string, suffix bool) {
		defStr(name, func(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x, start, end starlark.Value
			if err := starlark.UnpackPositionalArgs(fn.Name(), args, kwargs, 1, &x, &start, &end); err != nil {
				return nil, err
			}
			w, _, ok, err := window(s, start, end)
			if err != nil {
				return nil, err
			}
			var cands []starlark.Value
			switch x := x.(type) {
			case starlark.String:
				cands = []starlark.Value{x}
			case starlark.Tuple:
				cands = x
			default:
				return nil, Errorf(pyexc.TypeError, "%s first arg must be str or a tuple of str, not %s", name, TypeName(x))
			}
			for _, c := range cands {
				cs, isStr := c.(starlark.String)
				if !isStr {
					return nil, Errorf(pyexc.TypeError, "tuple for %s must only contain str, not %s", name, TypeName(c))
				}
				if !ok {
					continue
				}
				if (suffix && strings.HasSuffix(w, string(cs))) || (!suffix && strings.HasPrefix(w, string(cs))) {
					return starlark.True, nil
				}
			}
			return starlark.False, nil
		})
	}
	affix("startswith", false)
	affix("endswith", true)

	defStr("join", func(th *starlark.Thread, fn *starlark.Builtin, sep string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var it starlark.Value
		if err := starlark.UnpackPositionalArgs(fn.Name(), args, kwargs, 1, &it); err != nil {
			return nil, err
		}
		if seq, ok := it.(starlark.Indexable); ok && isListOrTuple(it) {
			return joinSeq(th, sep, seq)
		}
		// Collect the parts first: the result's exact size is then known,
		// charged once and allocated once (a growing builder would hold up
		// to three times the result while it doubles).
		var parts []string
		if n := starlark.Len(it); n > 0 {
			parts = make([]string, 0, n)
		}
		total := 0
		err := ForEach(th, it, func(v starlark.Value) error {
			s, ok := v.(starlark.String)
			if !ok {
				return Errorf(pyexc.TypeError, "sequence item %d: expected str instance, %s found", len(parts), TypeName(v))
			}
			// The parts of an endless iterator of empty strings add
			// nothing to total: the slice holding them is charged as it
			// grows.
			if len(parts) == cap(parts) {
				grown := max(2*cap(parts), 1024)
				if err := Alloc(th, int64(grown)*stringHeaderBytes); err != nil {
					return err
				}
				parts = append(make([]string, 0, grown), parts...)
			}
			parts = append(parts, string(s))
			total += len(s)
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(parts) > 1 {
			total += len(sep) * (len(parts) - 1)
		}
		if total > 1<<16 {
			if err := Alloc(th, int64(total)); err != nil {
				return nil, err
			}
		}
		var b strings.Builder
		b.Grow(total)
		for i, p := range parts {
			if i > 0 {
				b.WriteString(sep)
			}
			b.WriteString(p)
			if i%4096 == 4095 {
				if err := Interrupted(th); err != nil {
					return nil, err
				}
			}
		}
		return starlark.String(b.String()), nil
	})
	defStr("replace", func(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
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
	})
	split := func(name string, fromRight bool) {
		defStr(name, func(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var sep starlark.Value = starlark.None
			var maxArg starlark.Value = starlark.MakeInt(-1)
			if err := starlark.UnpackArgs(fn.Name(), args, kwargs, "sep?", &sep, "maxsplit?", &maxArg); err != nil {
				return nil, err
			}
			maxsplit, err := IndexInt(maxArg)
			if err != nil {
				return nil, err
			}
			if sep == starlark.None {
				if err := chargeSplit(th, s, "", maxsplit); err != nil {
					return nil, err
				}
				return StringList(th, SplitWhitespace(s, maxsplit, fromRight))
			}
			sp, err := strArg(name, sep)
			if err != nil {
				return nil, err
			}
			if sp == "" {
				return nil, Errorf(pyexc.ValueError, "empty separator")
			}
			if err := chargeSplit(th, s, sp, maxsplit); err != nil {
				return nil, err
			}
			if maxsplit < 0 {
				return StringList(th, strings.Split(s, sp))
			}
			if !fromRight {
				return StringList(th, strings.SplitN(s, sp, maxsplit+1))
			}
			var parts []string
			for maxsplit > 0 {
				i := strings.LastIndex(s, sp)
				if i < 0 {
					break
				}
				parts = append(parts, s[i+len(sp):])
				s = s[:i]
				maxsplit--
			}
			parts = append(parts, s)
			for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
				parts[i], parts[j] = parts[j], parts[i]
			}
			return StringList(th, parts)
		})
	}
	split("split", false)
	split("rsplit", true)
	defStr("splitlines", func(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		keep := false
		if err := starlark.UnpackArgs(fn.Name(), args, kwargs, "keepends?", &keep); err != nil {
			return nil, err
		}
		if err := chargeSplit(th, s, "\n", -1); err != nil {
			return nil, err
		}
		var parts []string
		for s != "" {
			i := strings.IndexFunc(s, IsLineBreak)
			if i < 0 {
				parts = append(parts, s)
				break
			}
			r, size := utf8.DecodeRuneInString(s[i:])
			end := i + size
			if r == '\r' && strings.HasPrefix(s[end:], "\n") {
				end++
			}
			if keep {
				parts = append(parts, s[:end])
			} else {
				parts = append(parts, s[:i])
			}
			s = s[end:]
		}
		return StringList(th, parts)
	})
	partition := func(name string, last bool) {
		defStr(name, func(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var sep string
			if err := starlark.UnpackPositionalArgs(fn.Name(), args, kwargs, 1, &sep); err != nil {
				return nil, err
			}
			if sep == "" {
				return nil, Errorf(pyexc.ValueError, "empty separator")
			}
			var i int
			if last {
				i = strings.LastIndex(s, sep)
			} else {
				i = strings.Index(s, sep)
			}
			if i < 0 {
				if last {
					return starlark.Tuple{starlark.String(""), starlark.String(""), starlark.String(s)}, nil
				}
				return starlark.Tuple{starlark.String(s), starlark.String(""), starlark.String("")}, nil
			}
			return starlark.Tuple{starlark.String(s[:i]), starlark.String(sep), starlark.String(s[i+len(sep):])}, nil
		})
	}
	partition("partition", false)
	partition("rpartition", true)
	defStr("removeprefix", func(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var p string
		if err := starlark.UnpackPositionalArgs(fn.Name(), args, kwargs, 1, &p); err != nil {
			return nil, err
		}
		return starlark.String(strings.TrimPrefix(s, p)), nil
	})
	defStr("removesuffix", func(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var p string
		if err := starlark.UnpackPositionalArgs(fn.Name(), args, kwargs, 1, &p); err != nil {
			return nil, err
		}
		return starlark.String(strings.TrimSuffix(s, p)), nil
	})
	defStr("ljust", func(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		w, fill, err := padArgs(fn, th, args, kwargs)
		if err != nil {
			return nil, err
		}
		if n := PyLen(s); w > n {
			s += strings.Repeat(fill, w-n)
		}
		return starlark.String(s), nil
	})
	defStr("rjust", func(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		w, fill, err := padArgs(fn, th, args, kwargs)
		if err != nil {
			return nil, err
		}
		if n := PyLen(s); w > n {
			s = strings.Repeat(fill, w-n) + s
		}
		return starlark.String(s), nil
	})
	defStr("center", func(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		w, fill, err := padArgs(fn, th, args, kwargs)
		if err != nil {
			return nil, err
		}
		if n := PyLen(s); w > n {
			// CPython's rounding: the odd cell goes left when width is odd.
			marg := w - n
			left := marg/2 + (marg & w & 1)
			s = strings.Repeat(fill, left) + s + strings.Repeat(fill, marg-left)
		}
		return starlark.String(s), nil
	})
	defStr("zfill", func(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var wArg starlark.Value
		if err := starlark.UnpackPositionalArgs(fn.Name(), args, kwargs, 1, &wArg); err != nil {
			return nil, err
		}
		w, err := IndexInt(wArg)
		if err != nil {
			return nil, err
		}
		if err := Alloc(th, int64(max(w, 0))); err != nil {
			return nil, err
		}
		n := PyLen(s)
		if w <= n {
			return starlark.String(s), nil
		}
		sign := ""
		if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
			sign, s = s[:1], s[1:]
		}
		return starlark.String(sign + strings.Repeat("0", w-n) + s), nil
	})
	defStr("expandtabs", func(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var tabArg starlark.Value = starlark.MakeInt(8)
		if err := starlark.UnpackArgs(fn.Name(), args, kwargs, "tabsize?", &tabArg); err != nil {
			return nil, err
		}
		tab, err := IndexInt(tabArg)
		if err != nil {
			return nil, err
		}
		if tab < 0 {
			tab = 0
		}
		if err := Alloc(th, int64(len(s))+int64(strings.Count(s, "\t"))*int64(tab)); err != nil {
			return nil, err
		}
		return starlark.String(ExpandTabs(s, tab)), nil
	})
	defStr("encode", func(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		enc, errs := "utf-8", "strict"
		if err := starlark.UnpackArgs(fn.Name(), args, kwargs, "encoding?", &enc, "errors?", &errs); err != nil {
			return nil, err
		}
		return encodeString(s, enc, errs)
	})
	defStr("format", func(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		out, err := strFormat(th, s, args, kwargs, nil)
		return starlark.String(out), err
	})
	defStr("format_map", func(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var m starlark.Mapping
		if err := starlark.UnpackPositionalArgs(fn.Name(), args, kwargs, 1, &m); err != nil {
			return nil, err
		}
		out, err := strFormat(th, s, nil, nil, m)
		return starlark.String(out), err
	})
	defStr("translate", func(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
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
	})
	TypeStr.Attrs = map[string]starlark.Value{"maketrans": starlark.NewBuiltin("maketrans", strMaketrans)}
	defStr("maketrans", func(th *starlark.Thread, fn *starlark.Builtin, _ string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return strMaketrans(th, fn, args, kwargs)
	})
	TypeStr.methods = strMethods
}

func strMaketrans(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
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

// DecimalValue is the value of a Unicode decimal digit (category Nd), or
// -1. Every range of Nd in the Unicode tables is made of whole runs of ten
// digits starting at a zero.
func DecimalValue(r rune) int {
	if r >= '0' && r <= '9' {
		return int(r - '0')
	}
	if r < 0x80 || !unicode.Is(unicode.Nd, r) {
		return -1
	}
	for _, rg := range unicode.Nd.R16 {
		if rune(rg.Lo) <= r && r <= rune(rg.Hi) {
			return int(r-rune(rg.Lo)) % 10
		}
	}
	for _, rg := range unicode.Nd.R32 {
		if rune(rg.Lo) <= r && r <= rune(rg.Hi) {
			return int(r-rune(rg.Lo)) % 10
		}
	}
	return -1
}

// ExpandTabs is str.expandtabs(tab): columns count code points and start
// again after \n and \r.
func ExpandTabs(s string, tab int) string {
	if strings.IndexByte(s, '\t') < 0 {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		switch {
		case r == '\t':
			if tab > 0 {
				n := tab - col%tab
				b.WriteString(strings.Repeat(" ", n))
				col += n
			}
		case r == '\n' || r == '\r':
			b.WriteRune(r)
			col = 0
		default:
			b.WriteRune(r)
			col++
		}
	}
	return b.String()
}

// stringHeaderBytes is the size of a Go string header, what each part
// collected by join holds besides its bytes.
const stringHeaderBytes = 16

func isListOrTuple(v starlark.Value) bool {
	switch v.(type) {
	case *starlark.List, starlark.Tuple:
		return true
	}
	return false
}

// joinSeq is sep.join(seq) for a list or tuple: one pass checks the items
// and sizes the result, which is charged once and built in one
// allocation by the second; no user code runs in between.
func joinSeq(th *starlark.Thread, sep string, seq starlark.Indexable) (starlark.Value, error) {
	n := seq.Len()
	total := 0
	for i := 0; i < n; i++ {
		s, ok := seq.Index(i).(starlark.String)
		if !ok {
			return nil, Errorf(pyexc.TypeError, "sequence item %d: expected str instance, %s found", i, TypeName(seq.Index(i)))
		}
		total += len(s)
		if i%CheckEvery == CheckEvery-1 {
			if err := Interrupted(th); err != nil {
				return nil, err
			}
		}
	}
	switch n {
	case 0:
		return starlark.String(""), nil
	case 1:
		return seq.Index(0), nil
	}
	total += len(sep) * (n - 1)
	if total > 1<<16 {
		if err := Alloc(th, int64(total)); err != nil {
			return nil, err
		}
	}
	var b strings.Builder
	b.Grow(total)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(string(seq.Index(i).(starlark.String)))
		if i%CheckEvery == CheckEvery-1 {
			if err := Interrupted(th); err != nil {
				return nil, err
			}
		}
	}
	return starlark.String(b.String()), nil
}
