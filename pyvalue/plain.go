package pyvalue

import (
	"encoding/json"
	"fmt"
	"math/big"
	"time"
)

// Plain converts a decoded value to the JSON-shaped values tools receive
// (nil, bool, int64, float64, string, []any, map[string]any): tuples and
// sets become lists, bytes and dates ISO or UTF-8 strings, big integers
// float64 and dicts with other keys maps keyed by the key's text.
func Plain(v any) any {
	switch x := v.(type) {
	case Tuple:
		return plainList(x)
	case Set:
		return plainList(x)
	case FrozenSet:
		return plainList(x)
	case []any:
		return plainList(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = Plain(e)
		}
		return out
	case Dict:
		out := make(map[string]any, len(x))
		for _, it := range x {
			out[fmt.Sprint(Plain(it.Key))] = Plain(it.Value)
		}
		return out
	case []byte:
		return string(x)
	case time.Time:
		return isoDateTime(x)
	case Date:
		return string(x)
	case Time:
		return string(x)
	case time.Duration:
		return x.Seconds()
	case *big.Int:
		f, _ := new(big.Float).SetInt(x).Float64()
		return f
	case Opaque:
		return x.Repr
	}
	return v
}

func plainList(x []any) []any {
	out := make([]any, len(x))
	for i, e := range x {
		out[i] = Plain(e)
	}
	return out
}

// Numbers turns the json.Number values of JSON decoded with UseNumber into
// int64 (when integral and in range) or float64, in place, so that a value
// has the shapes tools return and receive. A number too big for float64
// becomes ±Inf. Unlike Decode it keeps no big integers and reads no tags:
// it is for plain JSON, such as a tool's result or a request body.
func Numbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	case []any:
		for i := range v {
			v[i] = Numbers(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = Numbers(v[k])
		}
	}
	return v
}
