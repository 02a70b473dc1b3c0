package core

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// The methods of bytes: decode, hex and those that classify bytes
// natively; the other text methods reuse str's on a str with one code
// point per byte (latin1), which keeps every byte and position.

var bytesMethodFuncs = map[string]BuiltinFn{
	"decode": bytesDecode,
	"hex":    bytesHex,
	// What depends on what a byte is (methods_bytes_ascii.go).
	"isalnum":    bytesIs(func(c byte) bool { return isASCIILetter(c) || isASCIIDigit(c) }),
	"isalpha":    bytesIs(isASCIILetter),
	"isdigit":    bytesIs(isASCIIDigit),
	"isspace":    bytesIs(isASCIISpace),
	"isascii":    bytesIsASCII,
	"islower":    bytesCased(false),
	"isupper":    bytesCased(true),
	"istitle":    bytesIstitle,
	"lower":      bytesMap(func(b []byte) { mapASCII(b, toLowerASCII) }),
	"upper":      bytesMap(func(b []byte) { mapASCII(b, toUpperASCII) }),
	"swapcase":   bytesMap(func(b []byte) { mapASCII(b, swapASCII) }),
	"title":      bytesMap(titleASCII),
	"capitalize": bytesMap(capitalizeASCII),
	"splitlines": bytesSplitlines,
	"expandtabs": bytesExpandtabs,
	"translate":  bytesTranslate,
	"maketrans":  bytesMaketrans,
	"split":      bytesSplitWS(false),
	"rsplit":     bytesSplitWS(true),
	"strip":      bytesStripWS("strip"),
	"lstrip":     bytesStripWS("lstrip"),
	"rstrip":     bytesStripWS("rstrip"),
}

// bytesTextMethods are the str methods bytes has too, bound to bytesViaStr.
var bytesTextMethods = []string{"count", "endswith", "find", "index", "join", "partition", "replace", "rfind", "rindex", "rpartition", "startswith", "zfill", "ljust", "rjust", "center", "removeprefix", "removesuffix"}

func bytesDecode(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	enc, errs := "utf-8", "strict"
	if err := starlark.UnpackArgs("decode", args, kwargs, "encoding?", &enc, "errors?", &errs); err != nil {
		return nil, err
	}
	return decodeBytes(string(fn.Receiver().(starlark.Bytes)), enc, errs)
}

func bytesHex(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	b := fn.Receiver().(starlark.Bytes)
	if err := Alloc(th, int64(2*len(b))); err != nil {
		return nil, err
	}
	return starlark.String(fmt.Sprintf("%x", string(b))), nil
}

// bytesViaStr is bytes method fn.Name(): str's method of that name on the
// receiver and the arguments as byte strings, its result back as bytes.
func bytesViaStr(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	name := fn.Name()
	conv := make(starlark.Tuple, len(args))
	for i, a := range args {
		b, err := bytesMethodArg(name, i, a)
		if err != nil {
			return nil, err
		}
		conv[i] = bytesToStr(b)
	}
	if name == "join" && len(args) == 1 {
		vals, err := Collect(th, args[0])
		if err != nil {
			return nil, err
		}
		for i, v := range vals {
			if _, ok := v.(starlark.Bytes); !ok {
				return nil, Errorf(pyexc.TypeError, "sequence item %d: expected a bytes-like object, %s found", i, TypeName(v))
			}
			vals[i] = bytesToStr(v)
		}
		conv[0] = starlark.NewList(vals)
	}
	r, err := starlark.Call(th, strMethods[name].BindReceiver(starlark.String(latin1(string(fn.Receiver().(starlark.Bytes))))), conv, kwargs)
	if err != nil {
		return nil, err
	}
	return strToBytes(r), nil
}

// bytesMethodArg checks argument i of bytes method name: a str is
// refused where CPython wants bytes; find, index and count also take a
// byte value as an int.
func bytesMethodArg(name string, i int, a starlark.Value) (starlark.Value, error) {
	switch x := a.(type) {
	case starlark.String:
		switch {
		case i == 0 && (name == "startswith" || name == "endswith"):
			return nil, Errorf(pyexc.TypeError, "%s first arg must be bytes or a tuple of bytes, not str", name)
		case i == 0 && (name == "find" || name == "rfind" || name == "index" || name == "rindex" || name == "count"):
			return nil, Errorf(pyexc.TypeError, "argument should be integer or bytes-like object, not 'str'")
		case i == 1 && (name == "center" || name == "ljust" || name == "rjust"):
			return nil, Errorf(pyexc.TypeError, "%s() argument 2 must be a byte string of length 1, not str", name)
		}
		return nil, Errorf(pyexc.TypeError, "a bytes-like object is required, not 'str'")
	case starlark.Tuple:
		for _, e := range x {
			if _, ok := e.(starlark.String); ok {
				return nil, Errorf(pyexc.TypeError, "a bytes-like object is required, not 'str'")
			}
		}
	case starlark.Int:
		if i == 0 && (name == "find" || name == "rfind" || name == "index" || name == "rindex" || name == "count") {
			n, ok := x.Int64()
			if !ok || n < 0 || n > 255 {
				return nil, Errorf(pyexc.ValueError, "byte must be in range(0, 256)")
			}
			return starlark.Bytes([]byte{byte(n)}), nil
		}
	}
	return a, nil
}

func bytesToStr(v starlark.Value) starlark.Value {
	switch x := v.(type) {
	case starlark.Bytes:
		return starlark.String(latin1(string(x)))
	case starlark.Tuple:
		out := make(starlark.Tuple, len(x))
		for i, e := range x {
			out[i] = bytesToStr(e)
		}
		return out
	}
	return v
}

func strToBytes(v starlark.Value) starlark.Value {
	switch x := v.(type) {
	case starlark.String:
		return starlark.Bytes(unlatin1(string(x)))
	case starlark.Tuple:
		out := make(starlark.Tuple, len(x))
		for i, e := range x {
			out[i] = strToBytes(e)
		}
		return out
	case *starlark.List:
		out := make([]starlark.Value, x.Len())
		for i := range out {
			out[i] = strToBytes(x.Index(i))
		}
		return starlark.NewList(out)
	}
	return v
}

func decodeBytes(b, enc, errs string) (starlark.Value, error) {
	switch strings.ReplaceAll(strings.ToLower(enc), "_", "-") {
	case "utf-8", "utf8":
		if utf8.ValidString(b) {
			return starlark.String(b), nil
		}
		return decodeInvalidUTF8(b, errs)
	case "ascii", "latin-1", "latin1", "iso-8859-1":
		rs := make([]rune, len(b))
		for i := 0; i < len(b); i++ {
			if b[i] > 0x7f && strings.HasPrefix(enc, "ascii") {
				return nil, Errorf(pyexc.UnicodeDecodeError, "'ascii' codec can't decode byte 0x%02x in position %d: ordinal not in range(128)", b[i], i)
			}
			rs[i] = rune(b[i])
		}
		return starlark.String(string(rs)), nil
	}
	return nil, Errorf(pyexc.LookupError, "unknown encoding: %s", enc)
}

// decodeInvalidUTF8 decodes b, which is not valid UTF-8, as CPython's
// decoder does with the error handler errs: each maximal invalid
// sequence (utf8Invalid) is an error, skipped, one U+FFFD or escaped.
func decodeInvalidUTF8(b, errs string) (starlark.Value, error) {
	var out strings.Builder
	out.Grow(len(b))
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRuneInString(b[i:])
		if r != utf8.RuneError || size > 1 {
			out.WriteString(b[i : i+size])
			i += size
			continue
		}
		end, reason := utf8Invalid(b, i)
		switch errs {
		case "strict":
			if end-i == 1 {
				return nil, Errorf(pyexc.UnicodeDecodeError, "'utf-8' codec can't decode byte 0x%02x in position %d: %s", b[i], i, reason)
			}
			return nil, Errorf(pyexc.UnicodeDecodeError, "'utf-8' codec can't decode bytes in position %d-%d: %s", i, end-1, reason)
		case "ignore":
		case "replace":
			out.WriteRune(utf8.RuneError)
		case "backslashreplace":
			for k := i; k < end; k++ {
				fmt.Fprintf(&out, "\\x%02x", b[k])
			}
		default:
			return nil, Errorf(pyexc.LookupError, "unknown error handler name '%s'", errs)
		}
		i = end
	}
	return starlark.String(out.String()), nil
}

// utf8Invalid describes the invalid UTF-8 sequence at b[i]: where it
// ends and CPython's reason. A lead byte followed by fewer valid
// continuation bytes than it needs is one sequence.
func utf8Invalid(b string, i int) (end int, reason string) {
	c := b[i]
	var n int
	lo, hi := byte(0x80), byte(0xbf) // the range of the second byte
	switch {
	case c >= 0xc2 && c <= 0xdf:
		n = 2
	case c >= 0xe0 && c <= 0xef:
		n = 3
		if c == 0xe0 {
			lo = 0xa0
		} else if c == 0xed {
			hi = 0x9f
		}
	case c >= 0xf0 && c <= 0xf4:
		n = 4
		if c == 0xf0 {
			lo = 0x90
		} else if c == 0xf4 {
			hi = 0x8f
		}
	default:
		return i + 1, "invalid start byte"
	}
	for k := 1; k < n; k++ {
		if i+k >= len(b) {
			return i + k, "unexpected end of data"
		}
		d := b[i+k]
		if k == 1 && (d < lo || d > hi) || k > 1 && (d < 0x80 || d > 0xbf) {
			return i + k, "invalid continuation byte"
		}
	}
	return i + n, "invalid continuation byte" // not reached: the sequence is valid
}

func bytesFromhex(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var s string
	if err := starlark.UnpackPositionalArgs("fromhex", args, kwargs, 1, &s); err != nil {
		return nil, err
	}
	return fromHex(th, s)
}

// fromHex is bytes.fromhex(s) as CPython 3.11 decodes it: pairs of hex
// digits, ASCII whitespace allowed before each pair, errors at the
// code-point position of the first bad character. The result is charged
// to the budget before it is allocated and built in place, so that a
// 200 MB argument costs its 100 MB result and nothing more.
func fromHex(th *starlark.Thread, s string) (starlark.Value, error) {
	if err := Alloc(th, int64(len(s)/2)); err != nil {
		return nil, err
	}
	var b strings.Builder
	b.Grow(len(s) / 2)
	bad := func(at int) error {
		// at is a byte offset; CPython counts code points.
		return Errorf(pyexc.ValueError, "non-hexadecimal number found in fromhex() arg at position %d", utf8.RuneCountInString(s[:at]))
	}
	for i := 0; i < len(s); {
		if i&(1<<20-1) == 0 && i > 0 {
			if err := Interrupted(th); err != nil {
				return nil, err
			}
		}
		if isHexSpace(s[i]) {
			i++
			continue
		}
		hi, ok := hexDigit(s[i])
		if !ok {
			return nil, bad(i)
		}
		if i+1 >= len(s) {
			return nil, bad(i + 1)
		}
		lo, ok := hexDigit(s[i+1])
		if !ok {
			return nil, bad(i + 1)
		}
		b.WriteByte(hi<<4 | lo)
		i += 2
	}
	return starlark.Bytes(b.String()), nil
}

// isHexSpace is CPython's Py_ISSPACE: ASCII whitespace only.
func isHexSpace(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\v', '\f':
		return true
	}
	return false
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
