package core

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// The methods of int and float.

var intMethodFuncs = map[string]BuiltinFn{
	"as_integer_ratio": intAsIntegerRatio,
	"bit_count":        intBitCount,
	"bit_length":       intBitLength,
	"conjugate":        intConjugate,
	"is_integer":       intIsInteger,
	"to_bytes":         intToBytes,
}

var floatMethodFuncs = map[string]BuiltinFn{
	"as_integer_ratio": floatAsIntegerRatio,
	"conjugate":        floatConjugate,
	"hex":              floatHex,
	"is_integer":       floatIsInteger,
}

func intBitLength(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return starlark.MakeInt(new(big.Int).Abs(receiverInt(fn)).BitLen()), nil
}

func intBitCount(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	n := 0
	for _, w := range new(big.Int).Abs(receiverInt(fn)).Bits() {
		for ; w != 0; w &= w - 1 {
			n++
		}
	}
	return starlark.MakeInt(n), nil
}

func intConjugate(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return starlark.MakeBigInt(receiverInt(fn)), nil
}

func intIsInteger(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return starlark.True, nil
}

func intAsIntegerRatio(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return starlark.Tuple{starlark.MakeBigInt(receiverInt(fn)), starlark.MakeInt(1)}, nil
}

func intToBytes(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	length, order, signed := 1, "big", false
	if err := starlark.UnpackArgs("to_bytes", args, kwargs, "length?", &length, "byteorder?", &order, "signed?", &signed); err != nil {
		return nil, err
	}
	if err := Alloc(th, int64(length)); err != nil {
		return nil, err
	}
	x := receiverInt(fn)
	if x.Sign() < 0 && !signed {
		return nil, Errorf(pyexc.OverflowError, "can't convert negative int to unsigned")
	}
	v := new(big.Int).Set(x)
	if v.Sign() < 0 {
		v.Add(v, new(big.Int).Lsh(big.NewInt(1), uint(8*length)))
	}
	b := v.Bytes()
	if len(b) > length || (signed && x.Sign() >= 0 && len(b) == length && length > 0 && b[0]&0x80 != 0) {
		return nil, Errorf(pyexc.OverflowError, "int too big to convert")
	}
	out := make([]byte, length)
	copy(out[length-len(b):], b)
	if order == "little" {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return starlark.Bytes(out), nil
}

func intFromBytes(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var b starlark.Value
	order, signed := "big", false
	if err := starlark.UnpackArgs("from_bytes", args, kwargs, "bytes", &b, "byteorder?", &order, "signed?", &signed); err != nil {
		return nil, err
	}
	var raw []byte
	switch x := b.(type) {
	case starlark.Bytes:
		raw = []byte(x)
	default:
		vals, err := Collect(th, b)
		if err != nil {
			return nil, err
		}
		for _, v := range vals {
			n, err := IndexInt(v)
			if err != nil || n < 0 || n > 255 {
				return nil, Errorf(pyexc.ValueError, "bytes must be in range(0, 256)")
			}
			raw = append(raw, byte(n))
		}
	}
	if order == "little" {
		raw = append([]byte(nil), raw...)
		for i, j := 0, len(raw)-1; i < j; i, j = i+1, j-1 {
			raw[i], raw[j] = raw[j], raw[i]
		}
	}
	v := new(big.Int).SetBytes(raw)
	if err := checkBuiltIntBits(int64(v.BitLen())); err != nil {
		return nil, err
	}
	if signed && len(raw) > 0 && raw[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(raw))))
	}
	return starlark.MakeBigInt(v), nil
}

func floatIsInteger(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	f := float64(fn.Receiver().(starlark.Float))
	return starlark.Bool(f == math.Trunc(f) && !math.IsInf(f, 0)), nil
}

func floatConjugate(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return fn.Receiver(), nil
}

func floatAsIntegerRatio(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	f := float64(fn.Receiver().(starlark.Float))
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, Errorf(pyexc.OverflowError, "cannot convert Infinity to integer ratio")
	}
	r := new(big.Rat).SetFloat64(f)
	return starlark.Tuple{starlark.MakeBigInt(r.Num()), starlark.MakeBigInt(r.Denom())}, nil
}

func floatHex(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return starlark.String(FloatHex(float64(fn.Receiver().(starlark.Float)))), nil
}

// receiverInt is the value of an int method's receiver, an int or a
// bool.
func receiverInt(fn *starlark.Builtin) *big.Int {
	n, _ := Int(fn.Receiver())
	return n.BigInt()
}

func FloatHex(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return FloatRepr(f)
	}
	if f == 0 {
		if math.Signbit(f) {
			return "-0x0.0p+0"
		}
		return "0x0.0p+0"
	}
	s := fmt.Sprintf("%x", f) // e.g. 0x1.8p+01
	mant, exp, _ := strings.Cut(s, "p")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	// Python pads the mantissa to 13 hex digits.
	if i := strings.Index(mant, "."); i >= 0 {
		frac := mant[i+1:]
		for len(frac) < 13 {
			frac += "0"
		}
		mant = mant[:i+1] + frac
	}
	sign := exp[:1]
	digits := strings.TrimLeft(exp[1:], "0")
	if digits == "" {
		digits = "0"
	}
	return mant + "p" + sign + digits
}

// floatFromhex is float.fromhex(s): [sign] [0x] hexdigits [. hexdigits]
// [p exponent], or inf / nan, correctly rounded.
func floatFromhex(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var s string
	if err := starlark.UnpackPositionalArgs("fromhex", args, kwargs, 1, &s); err != nil {
		return nil, err
	}
	t := strings.TrimFunc(s, IsPySpace)
	bad := Errorf(pyexc.ValueError, "invalid hexadecimal floating-point string")
	sign := ""
	if strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+") {
		sign, t = t[:1], t[1:]
	}
	switch strings.ToLower(t) {
	case "nan":
		return starlark.Float(math.NaN()), nil
	case "inf", "infinity":
		f, _ := strconv.ParseFloat(sign+t, 64)
		return starlark.Float(f), nil
	}
	lower := strings.ToLower(t)
	lower = strings.TrimPrefix(lower, "0x")
	mant, exp, hasExp := strings.Cut(lower, "p")
	if mant == "" || mant == "." || strings.Count(mant, ".") > 1 || strings.Trim(mant, "0123456789abcdef.") != "" {
		return nil, bad
	}
	if hasExp {
		e := strings.TrimLeft(exp, "+-")
		if e == "" || strings.Trim(e, "0123456789") != "" || len(exp)-len(e) > 1 {
			return nil, bad
		}
	} else {
		exp = "0"
	}
	f, err := strconv.ParseFloat(sign+"0x"+mant+"p"+exp, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange && math.IsInf(f, 0) {
			return nil, Errorf(pyexc.OverflowError, "hexadecimal value too large to represent as a float")
		}
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return starlark.Float(f), nil // underflow rounds to zero, as in CPython
		}
		return nil, bad
	}
	return starlark.Float(f), nil
}
