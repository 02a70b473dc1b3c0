package core

import (
	"unicode/utf8"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// Python's str methods. go.starlark.net's own string methods index by
// UTF-8 byte; these count code points, as Python does, and bound every
// result whose size depends on the arguments. Each method is a named
// function listed in strMethodFuncs, as go.starlark.net's library.go lists
// its own; one bound under several names (strip, lstrip, rstrip) reads
// fn.Name(). The methods live by theme: str_methods_case.go (case mapping
// and the is* tests), str_methods_search.go, str_methods_split.go (split,
// partition, join), str_methods_layout.go (strip, padding, tabs) and
// str_methods_transform.go (replace, translate, encode, format).

type strMethod func(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)

var strMethods = map[string]*starlark.Builtin{}

var strMethodFuncs = map[string]strMethod{
	"capitalize":   strCapitalize,
	"casefold":     strCasefold,
	"center":       strCenter,
	"count":        strCount,
	"encode":       strEncode,
	"endswith":     strStartswith,
	"expandtabs":   strExpandtabs,
	"find":         strFind,
	"format":       strFormat,
	"format_map":   strFormatMap,
	"index":        strIndex,
	"isalnum":      strIsalnum,
	"isalpha":      strIsalpha,
	"isascii":      strIsascii,
	"isdecimal":    strIsdecimal,
	"isdigit":      strIsdigit,
	"isidentifier": strIsidentifier,
	"islower":      strIslower,
	"isnumeric":    strIsnumeric,
	"isprintable":  strIsprintable,
	"isspace":      strIsspace,
	"istitle":      strIstitle,
	"isupper":      strIsupper,
	"join":         strJoin,
	"ljust":        strLjust,
	"lower":        strLower,
	"lstrip":       strStrip,
	"maketrans":    strMaketrans,
	"partition":    strPartition,
	"removeprefix": strRemoveprefix,
	"removesuffix": strRemovesuffix,
	"replace":      strReplace,
	"rfind":        strFind,
	"rindex":       strIndex,
	"rjust":        strRjust,
	"rpartition":   strPartition,
	"rsplit":       strSplit,
	"rstrip":       strStrip,
	"split":        strSplit,
	"splitlines":   strSplitlines,
	"startswith":   strStartswith,
	"strip":        strStrip,
	"swapcase":     strSwapcase,
	"title":        strTitle,
	"translate":    strTranslate,
	"upper":        strUpper,
	"zfill":        strZfill,
}

// defineStrMethods fills strMethods (called from the init in
// helpers_impl.go).
func defineStrMethods() {
	for name, f := range strMethodFuncs {
		defStr(name, f)
	}
	TypeStr.Attrs = map[string]starlark.Value{"maketrans": starlark.NewBuiltin("maketrans", maketrans)}
	TypeStr.methods = strMethods
}

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
