package core

import (
	"strings"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// The methods of str that lay a string out: strip, padding, zfill,
// expandtabs and the prefix and suffix removers.

// strStrip is str.strip, str.lstrip and str.rstrip.
func strStrip(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	name := fn.Name()
	left, right := name != "rstrip", name != "lstrip"
	var chars starlark.Value = starlark.None
	if err := starlark.UnpackPositionalArgs(name, args, kwargs, 0, &chars); err != nil {
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
}

func strRemoveprefix(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var p string
	if err := starlark.UnpackPositionalArgs(fn.Name(), args, kwargs, 1, &p); err != nil {
		return nil, err
	}
	return starlark.String(strings.TrimPrefix(s, p)), nil
}

func strRemovesuffix(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var p string
	if err := starlark.UnpackPositionalArgs(fn.Name(), args, kwargs, 1, &p); err != nil {
		return nil, err
	}
	return starlark.String(strings.TrimSuffix(s, p)), nil
}

func strLjust(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	w, fill, err := padArgs(fn, th, args, kwargs)
	if err != nil {
		return nil, err
	}
	if n := PyLen(s); w > n {
		s += strings.Repeat(fill, w-n)
	}
	return starlark.String(s), nil
}

func strRjust(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	w, fill, err := padArgs(fn, th, args, kwargs)
	if err != nil {
		return nil, err
	}
	if n := PyLen(s); w > n {
		s = strings.Repeat(fill, w-n) + s
	}
	return starlark.String(s), nil
}

func strCenter(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
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
}

func strZfill(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
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
}

func strExpandtabs(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
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
