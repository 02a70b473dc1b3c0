package core

import (
	"strings"
	"unicode/utf8"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// bytes methods whose answer depends on what a byte is (a letter, a
// digit, a space, a line break): bytes knows only ASCII, where str's
// methods know Unicode (b'\xe9' is no letter, b'\x85' and b'\x1c' break
// no line, b'\xa0' is no space). They run on the bytes themselves; the
// other text methods run on str's (bytesViaStr) over a str with one code
// point per byte (U+0000 to U+00FF), which keeps every byte and every
// position.

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isASCIIDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isASCIISpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}
func isASCIIUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isASCIILower(c byte) bool { return c >= 'a' && c <= 'z' }

func toLowerASCII(c byte) byte {
	if isASCIIUpper(c) {
		return c + 32
	}
	return c
}

func toUpperASCII(c byte) byte {
	if isASCIILower(c) {
		return c - 32
	}
	return c
}

func swapASCII(c byte) byte {
	if isASCIIUpper(c) {
		return c + 32
	}
	return toUpperASCII(c)
}

func mapASCII(b []byte, f func(byte) byte) {
	for i, c := range b {
		b[i] = f(c)
	}
}

func titleASCII(b []byte) {
	prevCased := false
	for i, c := range b {
		if prevCased {
			b[i] = toLowerASCII(c)
		} else {
			b[i] = toUpperASCII(c)
		}
		prevCased = isASCIILetter(c)
	}
}

func capitalizeASCII(b []byte) {
	for i, c := range b {
		if i == 0 {
			b[i] = toUpperASCII(c)
		} else {
			b[i] = toLowerASCII(c)
		}
	}
}

func bytesReceiver(fn *starlark.Builtin) []byte { return []byte(fn.Receiver().(starlark.Bytes)) }

// noArgs refuses arguments to a bytes method that takes none, in
// CPython's words.
func noArgs(name string, args starlark.Tuple, kwargs []starlark.Tuple) error {
	if len(kwargs) > 0 {
		return Errorf(pyexc.TypeError, "bytes.%s() takes no keyword arguments", name)
	}
	if len(args) > 0 {
		return Errorf(pyexc.TypeError, "bytes.%s() takes no arguments (%d given)", name, len(args))
	}
	return nil
}

// bytesIs is isalpha and the like: true when b is not empty and every
// byte passes.
func bytesIs(pass func(byte) bool) BuiltinFn {
	return func(_ *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if err := noArgs(fn.Name(), args, kwargs); err != nil {
			return nil, err
		}
		b := bytesReceiver(fn)
		for _, c := range b {
			if !pass(c) {
				return starlark.False, nil
			}
		}
		return starlark.Bool(len(b) > 0), nil
	}
}

func bytesIsASCII(_ *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := noArgs(fn.Name(), args, kwargs); err != nil {
		return nil, err
	}
	for _, c := range bytesReceiver(fn) {
		if c >= 0x80 {
			return starlark.False, nil
		}
	}
	return starlark.True, nil
}

// bytesCased is islower (upper false) and isupper: some cased byte, and
// none of the other case.
func bytesCased(upper bool) BuiltinFn {
	return func(_ *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if err := noArgs(fn.Name(), args, kwargs); err != nil {
			return nil, err
		}
		cased := false
		for _, c := range bytesReceiver(fn) {
			if isASCIIUpper(c) != upper && isASCIILetter(c) {
				return starlark.False, nil
			}
			cased = cased || isASCIILetter(c)
		}
		return starlark.Bool(cased), nil
	}
}

func bytesIstitle(_ *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := noArgs(fn.Name(), args, kwargs); err != nil {
		return nil, err
	}
	cased, prevCased := false, false
	for _, c := range bytesReceiver(fn) {
		switch {
		case isASCIIUpper(c):
			if prevCased {
				return starlark.False, nil
			}
			prevCased, cased = true, true
		case isASCIILower(c):
			if !prevCased {
				return starlark.False, nil
			}
			prevCased, cased = true, true
		default:
			prevCased = false
		}
	}
	return starlark.Bool(cased), nil
}

// bytesMap is lower and the like: a copy of the receiver changed by f.
func bytesMap(f func([]byte)) BuiltinFn {
	return func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if err := noArgs(fn.Name(), args, kwargs); err != nil {
			return nil, err
		}
		b := bytesReceiver(fn)
		if err := Alloc(th, int64(len(b))); err != nil {
			return nil, err
		}
		f(b)
		return starlark.Bytes(b), nil
	}
}

func bytesSplitlines(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var keep starlark.Value = starlark.False
	if err := starlark.UnpackArgs("splitlines", args, kwargs, "keepends?", &keep); err != nil {
		return nil, err
	}
	keepends, err := Truth(th, keep)
	if err != nil {
		return nil, err
	}
	b := string(fn.Receiver().(starlark.Bytes))
	var out []starlark.Value
	for i := 0; i < len(b); {
		j := i
		for j < len(b) && b[j] != '\n' && b[j] != '\r' {
			j++
		}
		end := j
		if j < len(b) {
			end = j + 1
			if b[j] == '\r' && j+1 < len(b) && b[j+1] == '\n' {
				end = j + 2
			}
		}
		if keepends {
			j = end
		}
		if len(out)%1024 == 1023 {
			if err := Alloc(th, 1024*ElemSize); err != nil {
				return nil, err
			}
		}
		out = append(out, starlark.Bytes(b[i:j]))
		i = end
	}
	return starlark.NewList(out), nil
}

func bytesExpandtabs(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var size starlark.Value = starlark.MakeInt(8)
	if err := starlark.UnpackArgs("expandtabs", args, kwargs, "tabsize?", &size); err != nil {
		return nil, err
	}
	tab, err := IndexInt(size)
	if err != nil {
		return nil, err
	}
	b := fn.Receiver().(starlark.Bytes)
	// The result's length first, so that it is charged before it is built.
	n, col := int64(0), int64(0)
count:
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '\t':
			if tab > 0 {
				k := int64(tab) - col%int64(tab)
				n, col = n+k, col+k
			}
		case c == '\n' || c == '\r':
			n, col = n+1, 0
		default:
			n, col = n+1, col+1
		}
		if n > 1<<40 {
			break count // far past any budget; Alloc refuses it below
		}
	}
	if err := Alloc(th, n); err != nil {
		return nil, err
	}
	out := make([]byte, 0, n)
	col = 0
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '\t':
			if tab > 0 {
				k := int64(tab) - col%int64(tab)
				for ; k > 0; k-- {
					out = append(out, ' ')
					col++
				}
			}
		case c == '\n' || c == '\r':
			out = append(out, c)
			col = 0
		default:
			out = append(out, c)
			col++
		}
	}
	return starlark.Bytes(out), nil
}

// bytesMaketrans is bytes.maketrans(frm, to): the 256-byte table that
// maps each byte of frm to the byte of to at the same place.
func bytesMaketrans(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var frm, to starlark.Value
	if err := starlark.UnpackPositionalArgs("maketrans", args, kwargs, 2, &frm, &to); err != nil {
		return nil, err
	}
	f, ok1 := frm.(starlark.Bytes)
	t, ok2 := to.(starlark.Bytes)
	if !ok1 || !ok2 {
		bad := frm
		if ok1 {
			bad = to
		}
		return nil, Errorf(pyexc.TypeError, "a bytes-like object is required, not '%s'", TypeName(bad))
	}
	if len(f) != len(t) {
		return nil, Errorf(pyexc.ValueError, "maketrans arguments must have same length")
	}
	table := make([]byte, 256)
	for i := range table {
		table[i] = byte(i)
	}
	for i := 0; i < len(f); i++ {
		table[f[i]] = t[i]
	}
	return starlark.Bytes(table), nil
}

func bytesTranslate(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var table starlark.Value
	var del starlark.Value = starlark.Bytes("")
	if len(args) > 0 {
		table = args[0]
		args = args[1:]
	}
	if err := starlark.UnpackArgs("translate", args, kwargs, "delete?", &del); err != nil {
		return nil, err
	}
	if table == nil {
		return nil, Errorf(pyexc.TypeError, "translate() takes at least 1 argument (0 given)")
	}
	var tab starlark.Bytes
	switch t := table.(type) {
	case starlark.NoneType:
	case starlark.Bytes:
		if len(t) != 256 {
			return nil, Errorf(pyexc.ValueError, "translation table must be 256 characters long")
		}
		tab = t
	default:
		return nil, Errorf(pyexc.TypeError, "a bytes-like object is required, not '%s'", TypeName(table))
	}
	d, ok := del.(starlark.Bytes)
	if !ok {
		return nil, Errorf(pyexc.TypeError, "a bytes-like object is required, not '%s'", TypeName(del))
	}
	var drop [256]bool
	for i := 0; i < len(d); i++ {
		drop[d[i]] = true
	}
	b := fn.Receiver().(starlark.Bytes)
	if err := Alloc(th, int64(len(b))); err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if drop[c] {
			continue
		}
		if tab != "" {
			c = tab[c]
		}
		out = append(out, c)
	}
	return starlark.Bytes(out), nil
}

// bytesSplitWS is split and rsplit: on runs of ASCII whitespace when sep
// is None, else str's split over the bytes (bytesViaStr).
func bytesSplitWS(right bool) BuiltinFn {
	return func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var sep starlark.Value = starlark.None
		var maxv starlark.Value = starlark.MakeInt(-1)
		if err := starlark.UnpackArgs(fn.Name(), args, kwargs, "sep?", &sep, "maxsplit?", &maxv); err != nil {
			return nil, err
		}
		if sep != starlark.None {
			return bytesViaStr(th, fn, args, kwargs)
		}
		maxsplit, err := IndexInt(maxv)
		if err != nil {
			return nil, err
		}
		b := string(fn.Receiver().(starlark.Bytes))
		var out []starlark.Value
		add := func(s string) error {
			if len(out)%1024 == 1023 {
				if err := Alloc(th, 1024*ElemSize); err != nil {
					return err
				}
			}
			out = append(out, starlark.Bytes(s))
			return nil
		}
		if !right {
			i := 0
			for {
				for i < len(b) && isASCIISpace(b[i]) {
					i++
				}
				if i == len(b) {
					break
				}
				if maxsplit >= 0 && len(out) == maxsplit {
					if err := add(b[i:]); err != nil {
						return nil, err
					}
					break
				}
				j := i
				for j < len(b) && !isASCIISpace(b[j]) {
					j++
				}
				if err := add(b[i:j]); err != nil {
					return nil, err
				}
				i = j
			}
			return starlark.NewList(out), nil
		}
		j := len(b)
		for {
			for j > 0 && isASCIISpace(b[j-1]) {
				j--
			}
			if j == 0 {
				break
			}
			if maxsplit >= 0 && len(out) == maxsplit {
				if err := add(b[:j]); err != nil {
					return nil, err
				}
				break
			}
			i := j
			for i > 0 && !isASCIISpace(b[i-1]) {
				i--
			}
			if err := add(b[i:j]); err != nil {
				return nil, err
			}
			j = i
		}
		for l, r := 0, len(out)-1; l < r; l, r = l+1, r-1 {
			out[l], out[r] = out[r], out[l]
		}
		return starlark.NewList(out), nil
	}
}

// bytesStripWS is strip, lstrip and rstrip: of ASCII whitespace when no
// bytes to strip are given, else str's over the bytes.
func bytesStripWS(name string) BuiltinFn {
	return func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var chars starlark.Value = starlark.None
		if err := starlark.UnpackPositionalArgs(name, args, kwargs, 0, &chars); err != nil {
			return nil, err
		}
		if chars != starlark.None {
			return bytesViaStr(th, fn, args, kwargs)
		}
		b := string(fn.Receiver().(starlark.Bytes))
		const ws = " \t\n\r\v\f"
		switch name {
		case "strip":
			b = strings.Trim(b, ws)
		case "lstrip":
			b = strings.TrimLeft(b, ws)
		default:
			b = strings.TrimRight(b, ws)
		}
		return starlark.Bytes(b), nil
	}
}

// latin1 is b as a str with one code point per byte; ASCII is itself.
func latin1(b string) string {
	for i := 0; i < len(b); i++ {
		if b[i] >= 0x80 {
			rs := make([]rune, len(b))
			for k := 0; k < len(b); k++ {
				rs[k] = rune(b[k])
			}
			return string(rs)
		}
	}
	return b
}

// unlatin1 is latin1's inverse: each code point below 256 one byte.
func unlatin1(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			out := make([]byte, 0, len(s))
			for _, r := range s {
				if r < 256 {
					out = append(out, byte(r))
				} else {
					out = utf8.AppendRune(out, r)
				}
			}
			return string(out)
		}
	}
	return s
}
