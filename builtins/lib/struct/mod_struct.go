package pystruct

import (
	"encoding/binary"
	"math"
	"math/big"

	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// The module follows CPython 3.11's _struct.c: the same format grammar
// (a byte-order character first, counts, whitespace between codes), the
// native sizes and alignments of x86-64 Linux for '@' (the default), the
// standard sizes without alignment for '=', '<', '>' and '!', and the
// same errors, struct.error with CPython's messages.

// maxSize bounds a format's total size, as Py_ssize_t does in CPython
// ("total struct size too long"); what pack allocates is charged to the
// execution's memory budget before it is allocated.
const maxSize = math.MaxInt64 / 2

// code is one format code with its count.
type code struct {
	c      byte
	count  int // items for most codes; bytes for s and p
	size   int // size of one item (for s and p: the whole field)
	offset int
}

// layout is a parsed format.
type layout struct {
	format string
	order  binary.ByteOrder
	native bool // '@': native sizes and alignment
	codes  []code
	size   int
	items  int // values pack takes and unpack returns
}

// nativeSize and standardSize give each code's size; alignment is the
// size in native mode (x86-64: every type is aligned to its size).
var nativeSize = map[byte]int{
	'x': 1, 'c': 1, 'b': 1, 'B': 1, '?': 1, 'h': 2, 'H': 2, 'i': 4, 'I': 4,
	'l': 8, 'L': 8, 'q': 8, 'Q': 8, 'n': 8, 'N': 8, 'e': 2, 'f': 4, 'd': 8,
	's': 1, 'p': 1, 'P': 8,
}

var standardSize = map[byte]int{
	'x': 1, 'c': 1, 'b': 1, 'B': 1, '?': 1, 'h': 2, 'H': 2, 'i': 4, 'I': 4,
	'l': 4, 'L': 4, 'q': 8, 'Q': 8, 'e': 2, 'f': 4, 'd': 8, 's': 1, 'p': 1,
}

func structErr(format string, args ...any) error {
	return core.Errorf(pyexc.StructError, format, args...)
}

// formatArg reads a format argument: a str or bytes.
func formatArg(v starlark.Value) (string, error) {
	switch f := v.(type) {
	case starlark.String:
		return string(f), nil
	case starlark.Bytes:
		return string(f), nil
	}
	return "", core.Errorf(pyexc.TypeError, "Struct() argument 1 must be a str or bytes object, not %s", core.TypeName(v))
}

func parse(format string) (*layout, error) {
	l := &layout{format: format, order: binary.LittleEndian, native: true}
	s := format
	if s != "" {
		switch s[0] {
		case '@':
			s = s[1:]
		case '=', '<':
			l.native = false
			s = s[1:]
		case '>', '!':
			l.native, l.order = false, binary.BigEndian
			s = s[1:]
		}
	}
	sizes := nativeSize
	if !l.native {
		sizes = standardSize
	}
	size := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' {
			i++
			continue
		}
		count := 1
		if c >= '0' && c <= '9' {
			count = 0
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				if count > (maxSize-9)/10 {
					return nil, structErr("total struct size too long")
				}
				count = count*10 + int(s[i]-'0')
				i++
			}
			if i == len(s) {
				return nil, structErr("repeat count given without format specifier")
			}
			c = s[i]
		}
		i++
		n, ok := sizes[c]
		if !ok {
			return nil, structErr("bad char in struct format")
		}
		if l.native && n > 1 {
			size = (size + n - 1) / n * n
		}
		switch c {
		case 's', 'p':
			l.codes = append(l.codes, code{c: c, count: count, size: count, offset: size})
			l.items++
			if size > maxSize-count {
				return nil, structErr("total struct size too long")
			}
			size += count
			continue
		case 'x':
			if size > maxSize-count {
				return nil, structErr("total struct size too long")
			}
			size += count
			continue
		}
		if count > 0 {
			if count > (maxSize-size)/n {
				return nil, structErr("total struct size too long")
			}
			l.codes = append(l.codes, code{c: c, count: count, size: n, offset: size})
			l.items += count
			size += count * n
		}
	}
	l.size = size
	return l, nil
}

// pack packs values into a new bytes value.
func (l *layout) pack(th *starlark.Thread, fn string, values starlark.Tuple) (starlark.Value, error) {
	if len(values) != l.items {
		return nil, structErr("%s expected %d items for packing (got %d)", fn, l.items, len(values))
	}
	if err := core.Alloc(th, int64(l.size)); err != nil {
		return nil, err
	}
	buf := make([]byte, l.size)
	v := 0
	for _, c := range l.codes {
		switch c.c {
		case 's', 'p':
			if err := l.packBytes(buf[c.offset:c.offset+c.size], c.c, values[v]); err != nil {
				return nil, err
			}
			v++
			continue
		}
		for k := 0; k < c.count; k++ {
			at := buf[c.offset+k*c.size : c.offset+(k+1)*c.size]
			if err := l.packOne(th, at, c.c, values[v]); err != nil {
				return nil, err
			}
			v++
		}
	}
	return starlark.Bytes(buf), nil
}

func (l *layout) packBytes(at []byte, c byte, x starlark.Value) error {
	b, ok := x.(starlark.Bytes)
	if !ok {
		return structErr("argument for '%c' must be a bytes object", c)
	}
	if c == 's' {
		copy(at, b)
		return nil
	}
	// A Pascal string: a length byte (at most 255), then the bytes.
	if len(at) == 0 {
		return nil
	}
	n := min(len(b), len(at)-1, 255)
	at[0] = byte(n)
	copy(at[1:], b[:n])
	return nil
}

func (l *layout) packOne(th *starlark.Thread, at []byte, c byte, x starlark.Value) error {
	switch c {
	case 'c':
		b, ok := x.(starlark.Bytes)
		if !ok || len(b) != 1 {
			return structErr("char format requires a bytes object of length 1")
		}
		at[0] = b[0]
		return nil
	case '?':
		t, err := core.Truth(th, x)
		if err != nil {
			return err
		}
		if t {
			at[0] = 1
		}
		return nil
	case 'e', 'f', 'd':
		f, err := floatArg(th, x)
		if err != nil {
			return err
		}
		return l.packFloat(at, c, f)
	}
	n, err := intArg(x)
	if err != nil {
		return err
	}
	return l.packInt(at, c, n)
}

// intArg is the integer a code packs: an int, a bool, or what __index__
// returns.
func intArg(x starlark.Value) (*big.Int, error) {
	switch x.(type) {
	case starlark.Int, starlark.Bool:
	case *core.Instance:
	default:
		return nil, structErr("required argument is not an integer")
	}
	n, err := core.Index(x)
	if err != nil {
		if e, ok := err.(*core.Error); ok && e.Type == pyexc.TypeError.Name() {
			return nil, structErr("required argument is not an integer")
		}
		return nil, err
	}
	return n.BigInt(), nil
}

func floatArg(th *starlark.Thread, x starlark.Value) (float64, error) {
	f, err := toFloat(th, x)
	if _, ok := err.(*core.Error); ok {
		// CPython replaces whatever the conversion raised.
		return 0, structErr("required argument is not a float")
	}
	return f, err
}

func toFloat(th *starlark.Thread, x starlark.Value) (float64, error) {
	if o, ok := x.(*core.Instance); ok {
		if r, ok, err := o.CallDunder(th, "__float__"); ok {
			if err != nil {
				return 0, err
			}
			if f, ok := r.(starlark.Float); ok {
				return float64(f), nil
			}
			return 0, core.Errorf(pyexc.TypeError, "%s.__float__ returned non-float (type %s)", core.TypeName(x), core.TypeName(r))
		}
		n, err := core.Index(x)
		if err != nil {
			return 0, err
		}
		return core.FloatArg(n)
	}
	return core.FloatArg(x)
}

var (
	minInt64  = big.NewInt(math.MinInt64)
	maxInt64  = big.NewInt(math.MaxInt64)
	maxUint64 = new(big.Int).SetUint64(math.MaxUint64)
)

// The range messages CPython gives for codes narrower than a C long.
var rangeNames = map[byte]string{'b': "byte", 'B': "ubyte", 'h': "short", 'H': "ushort"}

func (l *layout) packInt(at []byte, c byte, n *big.Int) error {
	size := len(at)
	unsigned := c == 'B' || c == 'H' || c == 'I' || c == 'L' || c == 'Q' || c == 'N' || c == 'P'
	// CPython packs '<' and '=' with the native functions where the
	// sizes agree; '>' and '!' have their own, with their own messages.
	big := !l.native && l.order == binary.BigEndian
	outOfRange := "argument out of range"
	if big && size == 8 {
		outOfRange = "int too large to convert"
	}
	var u uint64
	switch {
	case c == 'P':
		// PyLong_AsVoidPtr takes a negative int as a signed address.
		if n.Cmp(minInt64) < 0 || n.Cmp(maxUint64) > 0 {
			return structErr("argument out of range")
		}
		if n.Sign() < 0 {
			u = uint64(n.Int64())
		} else {
			u = n.Uint64()
		}
	case c == 'b' || c == 'B' || (!big && rangeNames[c] != ""):
		// b, B, h and H: a C long first, then the code's range.
		if n.Cmp(minInt64) < 0 || n.Cmp(maxInt64) > 0 {
			return structErr("argument out of range")
		}
		v := n.Int64()
		lo, hi := int64(0), int64(1)<<(8*size)-1
		if !unsigned {
			lo, hi = -(int64(1) << (8*size - 1)), int64(1)<<(8*size-1)-1
		}
		if v < lo || v > hi {
			return structErr("%s format requires %d <= number <= %d", rangeNames[c], lo, hi)
		}
		u = uint64(v)
	case unsigned:
		if n.Sign() < 0 || n.Cmp(maxUint64) > 0 {
			return structErr("%s", outOfRange)
		}
		u = n.Uint64()
		if size < 8 && u > uint64(1)<<(8*size)-1 {
			return structErr("'%c' format requires 0 <= number <= %d", c, uint64(1)<<(8*size)-1)
		}
	default:
		if n.Cmp(minInt64) < 0 || n.Cmp(maxInt64) > 0 {
			return structErr("%s", outOfRange)
		}
		v := n.Int64()
		if size < 8 {
			lo, hi := -(int64(1) << (8*size - 1)), int64(1)<<(8*size-1)-1
			if v < lo || v > hi {
				return structErr("'%c' format requires %d <= number <= %d", c, lo, hi)
			}
		}
		u = uint64(v)
	}
	switch size {
	case 1:
		at[0] = byte(u)
	case 2:
		l.order.PutUint16(at, uint16(u))
	case 4:
		l.order.PutUint32(at, uint32(u))
	case 8:
		l.order.PutUint64(at, u)
	}
	return nil
}

func (l *layout) packFloat(at []byte, c byte, f float64) error {
	switch c {
	case 'd':
		l.order.PutUint64(at, math.Float64bits(f))
	case 'f':
		g := float32(f)
		if math.IsInf(float64(g), 0) && !math.IsInf(f, 0) && !l.native {
			return core.Errorf(pyexc.OverflowError, "float too large to pack with f format")
		}
		l.order.PutUint32(at, math.Float32bits(g))
	case 'e':
		h, ok := halfBits(f)
		if !ok {
			return core.Errorf(pyexc.OverflowError, "float too large to pack with e format")
		}
		l.order.PutUint16(at, h)
	}
	return nil
}

// halfBits is f as an IEEE 754 binary16, rounded half to even as
// PyFloat_Pack2 rounds; false if it is too large for one.
func halfBits(f float64) (uint16, bool) {
	var sign uint16
	if math.Signbit(f) {
		sign = 0x8000
	}
	switch {
	case math.IsNaN(f):
		return sign | 0x7e00, true
	case math.IsInf(f, 0):
		return sign | 0x7c00, true
	case f == 0:
		return sign, true
	}
	frac, exp := math.Frexp(math.Abs(f)) // |f| = frac * 2**exp, frac in [0.5, 1)
	frac, exp = frac*2, exp-1            // frac in [1, 2)
	if exp >= 16 {
		return 0, false
	}
	var e int
	if exp < -14 {
		// Subnormal: a multiple of 2**-24.
		frac = math.Ldexp(frac, exp+14)
		e = 0
	} else {
		e = exp + 15
		frac--
	}
	m := frac * 1024
	bits := math.Floor(m)
	if r := m - bits; r > 0.5 || (r == 0.5 && int(bits)&1 == 1) {
		bits++
	}
	if bits == 1024 {
		bits = 0
		e++
		if e >= 31 {
			return 0, false
		}
	}
	return sign | uint16(e)<<10 | uint16(bits), true
}

func halfFloat(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	e := int(h>>10) & 0x1f
	m := float64(h & 0x3ff)
	switch e {
	case 0:
		return sign * math.Ldexp(m, -24)
	case 31:
		if m == 0 {
			return math.Inf(int(sign))
		}
		return math.NaN()
	}
	return sign * math.Ldexp(1+m/1024, e-15)
}

// unpack reads the values of buf, whose length is l.size.
func (l *layout) unpack(th *starlark.Thread, buf []byte) (starlark.Tuple, error) {
	if err := core.Alloc(th, int64(l.items)*core.ElemSize); err != nil {
		return nil, err
	}
	out := make(starlark.Tuple, 0, l.items)
	for _, c := range l.codes {
		switch c.c {
		case 's':
			out = append(out, starlark.Bytes(buf[c.offset:c.offset+c.size]))
			continue
		case 'p':
			field := buf[c.offset : c.offset+c.size]
			if len(field) == 0 {
				out = append(out, starlark.Bytes(""))
				continue
			}
			n := min(int(field[0]), len(field)-1)
			out = append(out, starlark.Bytes(field[1:1+n]))
			continue
		}
		for k := 0; k < c.count; k++ {
			out = append(out, l.unpackOne(c.c, buf[c.offset+k*c.size:c.offset+(k+1)*c.size]))
		}
	}
	return out, nil
}

func (l *layout) unpackOne(c byte, at []byte) starlark.Value {
	var u uint64
	switch len(at) {
	case 1:
		u = uint64(at[0])
	case 2:
		u = uint64(l.order.Uint16(at))
	case 4:
		u = uint64(l.order.Uint32(at))
	case 8:
		u = l.order.Uint64(at)
	}
	switch c {
	case 'c':
		return starlark.Bytes(at[:1])
	case '?':
		return starlark.Bool(u != 0)
	case 'e':
		return starlark.Float(halfFloat(uint16(u)))
	case 'f':
		return starlark.Float(math.Float32frombits(uint32(u)))
	case 'd':
		return starlark.Float(math.Float64frombits(u))
	case 'B', 'H', 'I', 'L', 'Q', 'N', 'P':
		return starlark.MakeUint64(u)
	}
	shift := 64 - 8*len(at)
	return starlark.MakeInt64(int64(u<<shift) >> shift)
}

// bufferArg is a bytes-like argument.
func bufferArg(v starlark.Value) ([]byte, error) {
	if b, ok := v.(starlark.Bytes); ok {
		return []byte(b), nil
	}
	return nil, core.Errorf(pyexc.TypeError, "a bytes-like object is required, not '%s'", core.TypeName(v))
}

func (l *layout) unpackBuffer(th *starlark.Thread, v starlark.Value) (starlark.Value, error) {
	buf, err := bufferArg(v)
	if err != nil {
		return nil, err
	}
	if len(buf) != l.size {
		return nil, structErr("unpack requires a buffer of %d bytes", l.size)
	}
	return l.unpack(th, buf)
}

func (l *layout) unpackFrom(th *starlark.Thread, v starlark.Value, offset int) (starlark.Value, error) {
	buf, err := bufferArg(v)
	if err != nil {
		return nil, err
	}
	if offset < 0 {
		if offset+len(buf) < 0 {
			return nil, structErr("offset %d out of range for %d-byte buffer", offset, len(buf))
		}
		offset += len(buf)
	}
	if len(buf)-offset < l.size {
		return nil, structErr("unpack_from requires a buffer of at least %d bytes for unpacking %d bytes at offset %d (actual buffer size is %d)", l.size+offset, l.size, offset, len(buf))
	}
	return l.unpack(th, buf[offset:offset+l.size])
}

func (l *layout) iterUnpack(th *starlark.Thread, v starlark.Value) (starlark.Value, error) {
	buf, err := bufferArg(v)
	if err != nil {
		return nil, err
	}
	if l.size == 0 {
		return nil, structErr("cannot iteratively unpack with a struct of length 0")
	}
	if len(buf)%l.size != 0 {
		return nil, structErr("iterative unpacking requires a buffer of a multiple of %d bytes", l.size)
	}
	return core.NewStepIterator(th, "unpack_iterator", func(th *starlark.Thread) (starlark.Value, bool, error) {
		if len(buf) == 0 {
			return nil, false, nil
		}
		t, err := l.unpack(th, buf[:l.size])
		if err != nil {
			return nil, false, err
		}
		buf = buf[l.size:]
		return t, true, nil
	}), nil
}

// The layouts of recent formats, as CPython caches its Struct objects:
// code that packs in a loop parses its format once.
type cache struct {
	m map[string]*layout
}

func (c *cache) get(v starlark.Value) (*layout, error) {
	f, err := formatArg(v)
	if err != nil {
		return nil, err
	}
	if l, ok := c.m[f]; ok {
		return l, nil
	}
	l, err := parse(f)
	if err != nil {
		return nil, err
	}
	if len(c.m) >= 100 {
		clear(c.m)
	}
	c.m[f] = l
	return l, nil
}

// Struct is a struct.Struct object.
type Struct struct{ l *layout }

// StructType is struct.Struct.
var StructType = &core.Type{PyName: "_struct.Struct", Base: core.TypeObject}

func init() {
	StructType.New = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var format starlark.Value
		if err := starlark.UnpackArgs("Struct", args, kwargs, "format", &format); err != nil {
			return nil, err
		}
		f, err := formatArg(format)
		if err != nil {
			return nil, err
		}
		l, err := parse(f)
		if err != nil {
			return nil, err
		}
		return &Struct{l: l}, nil
	}
}

var _ core.Typed = (*Struct)(nil)

func (s *Struct) String() string         { return "<_struct.Struct object at " + core.Address(s) + ">" }
func (s *Struct) Type() string           { return "Struct" }
func (s *Struct) Freeze()                {}
func (s *Struct) Truth() starlark.Bool   { return true }
func (s *Struct) Hash() (uint32, error)  { return uint32(core.UintptrOf(s)), nil }
func (s *Struct) PyType() starlark.Value { return StructType }

func (s *Struct) AttrNames() []string {
	return []string{"format", "iter_unpack", "pack", "pack_into", "size", "unpack", "unpack_from"}
}

func (s *Struct) Attr(name string) (starlark.Value, error) {
	l := s.l
	switch name {
	case "format":
		return starlark.String(l.format), nil
	case "size":
		return starlark.MakeInt(l.size), nil
	case "pack":
		return core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(kwargs) > 0 {
				return nil, core.Errorf(pyexc.TypeError, "pack() takes no keyword arguments")
			}
			return l.pack(th, "pack", args)
		}), nil
	case "unpack":
		return core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var buf starlark.Value
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &buf); err != nil {
				return nil, err
			}
			return l.unpackBuffer(th, buf)
		}), nil
	case "unpack_from":
		return core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var buf starlark.Value
			offset := 0
			if err := starlark.UnpackArgs(name, args, kwargs, "buffer", &buf, "offset?", &offset); err != nil {
				return nil, err
			}
			return l.unpackFrom(th, buf, offset)
		}), nil
	case "iter_unpack":
		return core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var buf starlark.Value
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &buf); err != nil {
				return nil, err
			}
			return l.iterUnpack(th, buf)
		}), nil
	case "pack_into":
		return core.Fn(name, packInto), nil
	}
	return nil, nil
}

// packInto needs a writable buffer, which the engine does not have yet
// (bytearray, memoryview): every buffer it is given is read-only, as
// bytes is in CPython.
func packInto(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
	for _, a := range args {
		if _, ok := a.(starlark.Bytes); ok {
			return nil, core.Errorf(pyexc.TypeError, "argument must be read-write bytes-like object, not bytes")
		}
	}
	return nil, core.Errorf(pyexc.NotImplementedError, "struct.pack_into needs a writable buffer (bytearray), which this engine does not provide: use struct.pack and concatenate bytes")
}

func members() starlark.StringDict {
	c := &cache{m: map[string]*layout{}}
	return starlark.StringDict{
		"error":  core.ExceptionClass(pyexc.StructError),
		"Struct": StructType,
		"calcsize": core.Fn("calcsize", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var f starlark.Value
			if err := starlark.UnpackPositionalArgs("calcsize", args, kwargs, 1, &f); err != nil {
				return nil, err
			}
			l, err := c.get(f)
			if err != nil {
				return nil, err
			}
			return starlark.MakeInt(l.size), nil
		}),
		"pack": core.Fn("pack", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(kwargs) > 0 {
				return nil, core.Errorf(pyexc.TypeError, "pack() takes no keyword arguments")
			}
			if len(args) == 0 {
				return nil, core.Errorf(pyexc.TypeError, "pack expected at least 1 argument, got 0")
			}
			l, err := c.get(args[0])
			if err != nil {
				return nil, err
			}
			return l.pack(th, "pack", args[1:])
		}),
		"unpack": core.Fn("unpack", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var f, buf starlark.Value
			if err := starlark.UnpackPositionalArgs("unpack", args, kwargs, 2, &f, &buf); err != nil {
				return nil, err
			}
			l, err := c.get(f)
			if err != nil {
				return nil, err
			}
			return l.unpackBuffer(th, buf)
		}),
		"unpack_from": core.Fn("unpack_from", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var f, buf starlark.Value
			offset := 0
			if err := starlark.UnpackArgs("unpack_from", args, kwargs, "format", &f, "buffer", &buf, "offset?", &offset); err != nil {
				return nil, err
			}
			l, err := c.get(f)
			if err != nil {
				return nil, err
			}
			return l.unpackFrom(th, buf, offset)
		}),
		"iter_unpack": core.Fn("iter_unpack", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var f, buf starlark.Value
			if err := starlark.UnpackPositionalArgs("iter_unpack", args, kwargs, 2, &f, &buf); err != nil {
				return nil, err
			}
			l, err := c.get(f)
			if err != nil {
				return nil, err
			}
			return l.iterUnpack(th, buf)
		}),
		"pack_into": core.Fn("pack_into", packInto),
	}
}

// Module returns a new struct module.
func Module() *core.PyModule { return core.NewModule("struct", members()) }
