package runner

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Go types for the Python values that JSON has no word for. Decoding a
// runner message produces them; encoding accepts them (and plain JSON-shaped
// values, time.Time, time.Duration, []byte and *big.Int) so that values
// survive a round trip through Python unchanged.
type (
	// Tuple is a Python tuple.
	Tuple []any
	// Set is a Python set (element order as Python iterated it).
	Set []any
	// FrozenSet is a Python frozenset.
	FrozenSet []any
	// Date is a Python datetime.date in ISO form, "2024-05-01".
	Date string
	// Time is a Python datetime.time in ISO form, "13:45:00.250000+02:00".
	Time string
	// Dict is a Python dict whose keys are not all strings, in order.
	Dict []Item
	// Opaque stands for a Python object JSON cannot carry: its type name and
	// repr. Sent back to Python it becomes an object whose repr is Repr.
	Opaque struct {
		Type string
		Repr string
	}
)

// Item is one key and value of a Dict.
type Item struct{ Key, Value any }

// Naive is the location of time.Time values decoded from naive Python
// datetimes (no tzinfo); such values encode back to naive datetimes.
// Any other location encodes as an aware datetime with its UTC offset.
var Naive = time.FixedZone("naive", 0)

// MarshalJSON writes an Opaque as its repr.
func (o Opaque) MarshalJSON() ([]byte, error) { return json.Marshal(o.Repr) }

// MarshalJSON writes a Dict as a list of [key, value] pairs.
func (d Dict) MarshalJSON() ([]byte, error) {
	pairs := make([][2]any, len(d))
	for i, it := range d {
		pairs[i] = [2]any{it.Key, it.Value}
	}
	return json.Marshal(pairs)
}

// Encode converts a Go value to JSON-ready data with the runner's tags
// ({"$tuple": [...]}, {"$bytes": "base64"}, ...). Maps must have string
// keys; structs and other types go through encoding/json first. The
// result may cost at most DefaultMaxEncoded (see EncodeLimit).
func Encode(v any) (any, error) {
	enc, _, err := EncodeLimit(v, DefaultMaxEncoded)
	return enc, err
}

// DefaultMaxEncoded is the cost Encode allows: 32 MiB.
const DefaultMaxEncoded = 32 << 20

// ErrTooBig reports a value whose JSON form passes the budget it was given.
var ErrTooBig = errors.New("value too big")

// EncodeLimit is Encode with a budget: max is the most the JSON form may
// cost, counted as messageCost counts a message (its bytes plus 16 per
// item). The count runs while the value is encoded, so a value that
// repeats one list many times ([a] * 1000 where a is [0] * 1000, cheap in
// memory) fails with ErrTooBig as soon as the budget runs out, before it
// is expanded. It returns the encoded value and its estimated cost.
func EncodeLimit(v any, max int64) (any, int64, error) {
	left := max
	enc, err := encode(v, 0, &left)
	if err != nil {
		return nil, 0, err
	}
	return enc, max - left, nil
}

// charge takes n from the budget and fails once it is spent.
func charge(left *int64, n int) error {
	*left -= int64(n)
	if *left < 0 {
		return fmt.Errorf("%w: its JSON form costs more than the budget", ErrTooBig)
	}
	return nil
}

func encode(v any, depth int, left *int64) (any, error) {
	if depth > 100 {
		return nil, errors.New("value nested too deeply")
	}
	cost := 17
	switch x := v.(type) {
	case string:
		cost += len(x)
	case []byte:
		cost += len(x) * 4 / 3
	}
	if err := charge(left, cost); err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case nil, bool, string, int64, int, int32, int16, int8, uint8, uint16, uint32:
		return x, nil
	case uint:
		return encode(new(big.Int).SetUint64(uint64(x)), depth, left)
	case uint64:
		return encode(new(big.Int).SetUint64(x), depth, left)
	case float32:
		return encode(float64(x), depth, left)
	case float64:
		switch {
		case math.IsNaN(x):
			return map[string]any{"$float": "nan"}, nil
		case math.IsInf(x, 1):
			return map[string]any{"$float": "inf"}, nil
		case math.IsInf(x, -1):
			return map[string]any{"$float": "-inf"}, nil
		}
		// Written as a float even when whole: json.Marshal(4.0) is "4",
		// which Python would read back as an int.
		n := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(n, ".eE") {
			n += ".0"
		}
		return json.Number(n), nil
	case json.Number:
		return x, nil
	case *big.Int:
		if x.IsInt64() {
			return x.Int64(), nil
		}
		return map[string]any{"$int": x.String()}, nil
	case []any:
		return encodeList(x, depth, left)
	case Tuple:
		return tagList("$tuple", x, depth, left)
	case Set:
		return tagList("$set", x, depth, left)
	case FrozenSet:
		return tagList("$frozenset", x, depth, left)
	case []byte:
		return map[string]any{"$bytes": base64.StdEncoding.EncodeToString(x)}, nil
	case time.Time:
		return map[string]any{"$datetime": isoDateTime(x)}, nil
	case Date:
		return map[string]any{"$date": string(x)}, nil
	case Time:
		return map[string]any{"$time": string(x)}, nil
	case time.Duration:
		us := x.Microseconds()
		days := us / (86400 * 1e6)
		rest := us - days*86400*1e6
		if rest < 0 {
			days--
			rest += 86400 * 1e6
		}
		return map[string]any{"$timedelta": []any{days, rest / 1e6, rest % 1e6}}, nil
	case Dict:
		pairs := make([]any, len(x))
		for i, it := range x {
			k, err := encode(it.Key, depth+1, left)
			if err != nil {
				return nil, err
			}
			val, err := encode(it.Value, depth+1, left)
			if err != nil {
				return nil, err
			}
			pairs[i] = []any{k, val}
		}
		return map[string]any{"$dict": pairs}, nil
	case Opaque:
		if err := charge(left, len(x.Repr)+len(x.Type)); err != nil {
			return nil, err
		}
		return map[string]any{"$repr": x.Repr, "type": x.Type}, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			if err := charge(left, len(k)); err != nil {
				return nil, err
			}
			e, err := encode(val, depth+1, left)
			if err != nil {
				return nil, err
			}
			out[k] = e
		}
		if len(x) == 1 {
			for k := range x {
				if strings.HasPrefix(k, "$") {
					// A one-key map whose key looks like a tag goes as a $dict
					// so that Python does not mistake it for one.
					return map[string]any{"$dict": []any{[]any{k, out[k]}}}, nil
				}
			}
		}
		return out, nil
	}
	// Other slices, maps and structs: through encoding/json, then again.
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
		if err := charge(left, rv.Len()*17); err != nil {
			return nil, err
		}
		list := make([]any, rv.Len())
		for i := range list {
			list[i] = rv.Index(i).Interface()
		}
		return encodeList(list, depth, left)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("value of type %T cannot be sent to Python: %w", v, err)
	}
	var plain any
	if err := decodeJSON(data, &plain); err != nil {
		return nil, err
	}
	return encode(plain, depth+1, left)
}

func encodeList(x []any, depth int, left *int64) ([]any, error) {
	out := make([]any, len(x))
	for i, e := range x {
		var err error
		if out[i], err = encode(e, depth+1, left); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func tagList(tag string, x []any, depth int, left *int64) (any, error) {
	l, err := encodeList(x, depth, left)
	if err != nil {
		return nil, err
	}
	return map[string]any{tag: l}, nil
}

func isoDateTime(t time.Time) string {
	const layout = "2006-01-02T15:04:05.999999"
	if t.Location() == Naive {
		return t.Format(layout)
	}
	return t.Format(layout + "-07:00")
}

// Decode converts JSON-decoded data (numbers as json.Number) with tags to
// Go values: int64 or *big.Int, float64, Tuple, Set, []byte, time.Time, ...
func Decode(v any) (any, error) {
	switch x := v.(type) {
	case nil, bool, string:
		return x, nil
	case json.Number:
		return decodeNumber(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			var err error
			if out[i], err = Decode(e); err != nil {
				return nil, err
			}
		}
		return out, nil
	case map[string]any:
		if tag, payload, ok := tagOf(x); ok {
			return decodeTag(tag, payload, x)
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			d, err := Decode(e)
			if err != nil {
				return nil, err
			}
			out[k] = d
		}
		return out, nil
	}
	return nil, fmt.Errorf("unexpected JSON value of type %T", v)
}

func tagOf(m map[string]any) (string, any, bool) {
	if len(m) == 2 {
		if r, ok := m["$repr"]; ok {
			if _, ok := m["type"]; ok {
				return "$repr", r, true
			}
		}
		return "", nil, false
	}
	if len(m) != 1 {
		return "", nil, false
	}
	for k, val := range m {
		if strings.HasPrefix(k, "$") {
			return k, val, true
		}
	}
	return "", nil, false
}

func decodeNumber(n json.Number) (any, error) {
	s := n.String()
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i, nil
		}
		if b, ok := new(big.Int).SetString(s, 10); ok {
			return b, nil
		}
	}
	return strconv.ParseFloat(s, 64)
}

func decodeTag(tag string, payload any, m map[string]any) (any, error) {
	str := func() (string, error) {
		s, ok := payload.(string)
		if !ok {
			return "", fmt.Errorf("tag %s: want a string, got %T", tag, payload)
		}
		return s, nil
	}
	list := func() ([]any, error) {
		l, ok := payload.([]any)
		if !ok {
			return nil, fmt.Errorf("tag %s: want a list, got %T", tag, payload)
		}
		d, err := Decode(l)
		if err != nil {
			return nil, err
		}
		return d.([]any), nil
	}
	switch tag {
	case "$tuple":
		l, err := list()
		return Tuple(l), err
	case "$set":
		l, err := list()
		return Set(l), err
	case "$frozenset":
		l, err := list()
		return FrozenSet(l), err
	case "$bytes":
		s, err := str()
		if err != nil {
			return nil, err
		}
		return base64.StdEncoding.DecodeString(s)
	case "$datetime":
		s, err := str()
		if err != nil {
			return nil, err
		}
		return parseDateTime(s)
	case "$date":
		s, err := str()
		return Date(s), err
	case "$time":
		s, err := str()
		return Time(s), err
	case "$timedelta":
		l, err := list()
		if err != nil {
			return nil, err
		}
		if len(l) != 3 {
			return nil, fmt.Errorf("tag $timedelta: want [days, seconds, microseconds]")
		}
		var parts [3]int64
		for i, p := range l {
			n, ok := p.(int64)
			if !ok {
				return nil, fmt.Errorf("tag $timedelta: want integers")
			}
			parts[i] = n
		}
		const maxDays = math.MaxInt64 / int64(24*time.Hour)
		if parts[0] > maxDays || parts[0] < -maxDays {
			return nil, fmt.Errorf("timedelta of %d days is too large for Go", parts[0])
		}
		return time.Duration(parts[0])*24*time.Hour + time.Duration(parts[1])*time.Second +
			time.Duration(parts[2])*time.Microsecond, nil
	case "$int":
		s, err := str()
		if err != nil {
			return nil, err
		}
		if len(s) > maxIntDigits {
			// Parsing is quadratic in the length; CPython itself refuses
			// to print such numbers.
			return nil, fmt.Errorf("tag $int: integer of %d digits, more than %d", len(s), maxIntDigits)
		}
		b, ok := new(big.Int).SetString(s, 10)
		if !ok {
			return nil, fmt.Errorf("tag $int: bad integer %q", s)
		}
		return b, nil
	case "$float":
		s, err := str()
		if err != nil {
			return nil, err
		}
		switch s {
		case "nan":
			return math.NaN(), nil
		case "inf":
			return math.Inf(1), nil
		case "-inf":
			return math.Inf(-1), nil
		}
		return nil, fmt.Errorf("tag $float: bad value %q", s)
	case "$dict":
		l, err := list()
		if err != nil {
			return nil, err
		}
		d := make(Dict, len(l))
		for i, p := range l {
			pair, ok := p.([]any)
			if !ok || len(pair) != 2 {
				return nil, fmt.Errorf("tag $dict: want [key, value] pairs")
			}
			d[i] = Item{pair[0], pair[1]}
		}
		// A $dict with one string key is an escaped ordinary map.
		if len(d) == 1 {
			if k, ok := d[0].Key.(string); ok {
				return map[string]any{k: d[0].Value}, nil
			}
		}
		return d, nil
	case "$repr":
		s, err := str()
		if err != nil {
			return nil, err
		}
		t, _ := m["type"].(string)
		return Opaque{Type: t, Repr: s}, nil
	}
	return nil, fmt.Errorf("unknown value tag %q", tag)
}

func parseDateTime(s string) (time.Time, error) {
	for _, layout := range []string{"2006-01-02T15:04:05.999999-07:00", "2006-01-02T15:04:05.999999-07:00:00"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	t, err := time.ParseInLocation("2006-01-02T15:04:05.999999", s, Naive)
	if err != nil {
		return time.Time{}, fmt.Errorf("tag $datetime: %w", err)
	}
	return t, nil
}

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

// maxIntDigits is CPython's default limit for int-to-string conversion
// (sys.get_int_max_str_digits), with room for a sign.
const maxIntDigits = 4301

func decodeJSON(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return d.Decode(v)
}
