package builtins

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"slices"

	"go.starlark.net/starlark"
)

// ToGo converts a Starlark value to a JSON-shaped Go value (nil, bool,
// int64 or *big.Int, float64, string, []any, map[string]any), the form in
// which values cross to tools and out of the engine. Dict keys that are not
// strings are rendered with Str, as json.dumps does. Values with no such
// form (functions, modules) are an error that names their type.
func ToGo(v starlark.Value) (any, error) {
	return toGo(v, 0)
}

func toGo(v starlark.Value, depth int) (any, error) {
	if depth > 100 {
		return nil, Errorf("ValueError", "value is nested too deeply (or contains itself) to be converted")
	}
	switch v := v.(type) {
	case starlark.NoneType:
		return nil, nil
	case starlark.Bool:
		return bool(v), nil
	case starlark.Int:
		if i, ok := v.Int64(); ok {
			return i, nil
		}
		return v.BigInt(), nil
	case starlark.Float:
		return float64(v), nil
	case starlark.String:
		return string(v), nil
	case starlark.Bytes:
		return string(v), nil
	case *starlark.Dict:
		out := make(map[string]any, v.Len())
		for _, kv := range v.Items() {
			k, ok := kv[0].(starlark.String)
			key := string(k)
			if !ok {
				key = Str(kv[0])
			}
			x, err := toGo(kv[1], depth+1)
			if err != nil {
				return nil, err
			}
			out[key] = x
		}
		return out, nil
	case starlark.Iterable:
		if _, ok := v.(starlark.Indexable); !ok {
			if _, isSet := asSet(v); !isSet {
				break
			}
		}
		var out []any
		iter := v.Iterate()
		defer iter.Done()
		var x starlark.Value
		for iter.Next(&x) {
			g, err := toGo(x, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, g)
		}
		if out == nil {
			out = []any{}
		}
		return out, nil
	}
	return nil, Errorf("TypeError", "a value of type '%s' cannot leave the engine (only None, bool, int, float, str, list, tuple, set and dict can)", v.Type())
}

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
