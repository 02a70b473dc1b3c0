package core

import (
	"unicode"

	"github.com/star-agent/star-agent/vm/starlark"
)

// The case mappings and the is* tests of str.

func strLower(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return strCaseMapping(th, fn, s, args, kwargs, PyLower)
}

func strUpper(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return strCaseMapping(th, fn, s, args, kwargs, PyUpper)
}

func strCasefold(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return strCaseMapping(th, fn, s, args, kwargs, PyCasefold)
}

func strSwapcase(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return strCaseMapping(th, fn, s, args, kwargs, pySwapcase)
}

func strTitle(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return strCaseMapping(th, fn, s, args, kwargs, PyTitle)
}

func strCapitalize(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return strCaseMapping(th, fn, s, args, kwargs, PyCapitalize)
}

// strCaseMapping is a case mapping f of s. A full case mapping can triple
// a character (ΐ upper is three code points of two bytes each).
func strCaseMapping(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple, f func(string) string) (starlark.Value, error) {
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
}

func strIsalpha(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return strTest(th, fn, s, args, kwargs, allOf(IsPyAlpha))
}

func strIsalnum(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return strTest(th, fn, s, args, kwargs, allOf(IsPyAlnum))
}

func strIsdecimal(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return strTest(th, fn, s, args, kwargs, allOf(IsPyDecimal))
}

func strIsdigit(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return strTest(th, fn, s, args, kwargs, allOf(IsPyDigit))
}

func strIsnumeric(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return strTest(th, fn, s, args, kwargs, allOf(IsPyNumeric))
}

func strIsspace(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return strTest(th, fn, s, args, kwargs, allOf(IsPySpace))
}

func strIsascii(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return strTest(th, fn, s, args, kwargs, isASCII)
}

func strIsprintable(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return strTest(th, fn, s, args, kwargs, isPrintableStr)
}

func strIsidentifier(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return strTest(th, fn, s, args, kwargs, IsIdentifier)
}

func strIslower(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return strTest(th, fn, s, args, kwargs, PyIsLower)
}

func strIsupper(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return strTest(th, fn, s, args, kwargs, PyIsUpper)
}

func strIstitle(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return strTest(th, fn, s, args, kwargs, pyIsTitle)
}

// strTest is a test f of s that takes no arguments.
func strTest(th *starlark.Thread, fn *starlark.Builtin, s string, args starlark.Tuple, kwargs []starlark.Tuple, f func(string) bool) (starlark.Value, error) {
	if err := starlark.UnpackPositionalArgs(fn.Name(), args, kwargs, 0); err != nil {
		return nil, err
	}
	if err := Alloc(th, int64(len(s))); err != nil {
		return nil, err
	}
	return starlark.Bool(f(s)), nil
}

// allOf is the test that s is not empty and f holds for its every
// character.
func allOf(f func(rune) bool) func(string) bool {
	return func(s string) bool { return bool(allRunes(s, f)) }
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

func isPrintableStr(s string) bool {
	for _, r := range s {
		if !IsPyPrintable(r) {
			return false
		}
	}
	return true
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
