package core

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"slices"

	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
)

// FromGo converts a Go value to a Starlark value. It accepts JSON-shaped
// values and, through encoding/json, any value that marshals to JSON
// (structs, typed slices and maps). Map keys are sorted so that the
// resulting dict's order is deterministic.
func FromGo(x any) (starlark.Value, error) {
	switch x := x.(type) {
	case nil:
		return starlark.None, nil
	case starlark.Value:
		return x, nil
	case bool:
		return starlark.Bool(x), nil
	case int:
		return starlark.MakeInt(x), nil
	case int64:
		return starlark.MakeInt64(x), nil
	case int32:
		return starlark.MakeInt64(int64(x)), nil
	case uint64:
		return starlark.MakeUint64(x), nil
	case *big.Int:
		return starlark.MakeBigInt(x), nil
	case float64:
		return starlark.Float(x), nil
	case float32:
		return starlark.Float(x), nil
	case string:
		return starlark.String(x), nil
	case []byte:
		return starlark.Bytes(x), nil
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return starlark.MakeInt64(i), nil
		}
		f, err := x.Float64()
		if err != nil {
			return nil, fmt.Errorf("invalid number %q", x)
		}
		return starlark.Float(f), nil
	case []any:
		elems := make([]starlark.Value, len(x))
		for i, e := range x {
			v, err := FromGo(e)
			if err != nil {
				return nil, err
			}
			elems[i] = v
		}
		return starlark.NewList(elems), nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		d := starlark.NewDict(len(x))
		for _, k := range keys {
			v, err := FromGo(x[k])
			if err != nil {
				return nil, err
			}
			if err := d.SetKey(starlark.String(k), v); err != nil {
				return nil, err
			}
		}
		return d, nil
	}
	// Anything else: through JSON, which handles structs, typed slices and maps.
	rv := reflect.ValueOf(x)
	if rv.Kind() == reflect.Func || rv.Kind() == reflect.Chan {
		return nil, fmt.Errorf("cannot convert Go %T to a Python value", x)
	}
	data, err := json.Marshal(x)
	if err != nil {
		return nil, fmt.Errorf("cannot convert Go %T to a Python value: %w", x, err)
	}
	var generic any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&generic); err != nil {
		return nil, err
	}
	return FromGo(generic)
}

// PyAbser is a value of a module's type with its own abs(): the numeric
// types (PyRounder) and datetime.timedelta.
type PyAbser interface {
	PyAbs() (starlark.Value, error)
}

func PyAbs(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, err := oneArg("abs", args, kwargs)
	if err != nil {
		return nil, err
	}
	switch x := x.(type) {
	case *Instance:
		// Before PyAbser, which *Instance implements without a thread.
		v, ok, err := x.CallDunder(th, "__abs__")
		if !ok {
			return nil, Errorf(pyexc.TypeError, "bad operand type for abs(): '%s'", x.class.PyName)
		}
		return v, err
	case PyAbser:
		return x.PyAbs()
	case starlark.Int:
		if x.Sign() < 0 {
			return starlark.MakeInt(0).Sub(x), nil
		}
		return x, nil
	case starlark.Bool:
		return BoolInt(x), nil
	case starlark.Float:
		return starlark.Float(math.Abs(float64(x))), nil
	}
	return nil, Errorf(pyexc.TypeError, "bad operand type for abs(): '%s'", TypeName(x))
}

func Abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func FloatToInt(f float64) (starlark.Value, error) {
	if math.IsInf(f, 0) {
		return nil, Errorf(pyexc.OverflowError, "cannot convert float infinity to integer")
	}
	if math.IsNaN(f) {
		return nil, Errorf(pyexc.ValueError, "cannot convert float NaN to integer")
	}
	if math.Abs(f) < 1<<62 {
		return starlark.MakeInt64(int64(f)), nil
	}
	n, _ := big.NewFloat(f).Int(nil)
	return starlark.MakeBigInt(n), nil
}

// MaxIntDigits is CPython 3.11's limit on int/str conversion, which also
// bounds the cost of parsing and printing huge numbers.
const MaxIntDigits = 4300

func NewFloat(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value = starlark.Float(0)
	if err := starlark.UnpackPositionalArgs("float", args, kwargs, 0, &x); err != nil {
		return nil, err
	}
	switch v := x.(type) {
	case starlark.Float:
		return v, nil
	case starlark.Bool:
		if v {
			return starlark.Float(1), nil
		}
		return starlark.Float(0), nil
	case starlark.Int:
		f := v.Float()
		if math.IsInf(float64(f), 0) {
			return nil, Errorf(pyexc.OverflowError, "int too large to convert to float")
		}
		return f, nil
	case starlark.String:
		return parseFloat(string(v))
	case PyNumber:
		f, err := v.PyFloat()
		return starlark.Float(f), err
	case *Instance:
		// An IntEnum member is its value; a class converts with
		// __float__, else __index__.
		if n := enumOperand(v); n != starlark.Value(v) {
			return NewFloat(th, starlark.Tuple{n}, nil)
		}
		if r, ok, err := v.CallDunder(th, "__float__"); ok {
			if err != nil {
				return nil, err
			}
			if f, isFloat := r.(starlark.Float); isFloat {
				return f, nil
			}
			return nil, Errorf(pyexc.TypeError, "%s.__float__ returned non-float (type %s)", TypeName(x), TypeName(r))
		}
		if r, ok, err := v.CallDunder(th, "__index__"); ok {
			if err != nil {
				return nil, err
			}
			return NewFloat(th, starlark.Tuple{r}, nil)
		}
	}
	return nil, Errorf(pyexc.TypeError, "float() argument must be a string or a real number, not '%s'", TypeName(x))
}

func IsDigit(c byte) bool { return c >= '0' && c <= '9' }

// FloatArg converts a real number argument as CPython's math functions do.
func FloatArg(v starlark.Value) (float64, error) {
	switch x := v.(type) {
	case starlark.Float:
		return float64(x), nil
	case starlark.Int:
		f := float64(x.Float())
		if math.IsInf(f, 0) {
			return 0, Errorf(pyexc.OverflowError, "int too large to convert to float")
		}
		return f, nil
	case starlark.Bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case PyNumber:
		return x.PyFloat()
	}
	return 0, Errorf(pyexc.TypeError, "must be real number, not %s", TypeName(v))
}

// BigIntCheck refuses integer results estimated above maxIntBits.
func BigIntCheck(bits float64) error {
	if math.IsInf(bits, 1) {
		return Errorf(pyexc.MemoryError, "integer result too large (the limit is %d bits)", MaxIntBits)
	}
	if bits > MaxIntBits {
		return Errorf(pyexc.MemoryError, "integer result too large: about %.0f bits (the limit is %d bits)", bits, MaxIntBits)
	}
	return nil
}
