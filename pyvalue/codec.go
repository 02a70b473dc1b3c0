package pyvalue

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

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
	e := encoder{left: max}
	enc, err := e.encode(v, 0)
	if err != nil {
		return nil, 0, err
	}
	return enc, max - e.left, nil
}

// encoder converts values to tagged JSON data under a budget.
type encoder struct {
	left int64 // what the JSON form may still cost
	// exact tags integers JSON readers that hold numbers as doubles
	// (JavaScript, jq) would round: those beyond ±2^53 (see Marshal).
	exact bool
}

// charge takes n from the budget and fails once it is spent.
func (e *encoder) charge(n int) error {
	e.left -= int64(n)
	if e.left < 0 {
		return fmt.Errorf("%w: its JSON form costs more than the budget", ErrTooBig)
	}
	return nil
}

// maxExactInt is 2^53: every integer up to it in magnitude is exactly a
// float64, the only number type of JavaScript and of many JSON readers.
const maxExactInt = 1 << 53

func (e *encoder) encode(v any, depth int) (any, error) {
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
	if err := e.charge(cost); err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case nil, bool, string, int32, int16, int8, uint8, uint16, uint32:
		return x, nil
	case int64:
		return e.int(x), nil
	case int:
		return e.int(int64(x)), nil
	case uint:
		return e.encode(new(big.Int).SetUint64(uint64(x)), depth)
	case uint64:
		return e.encode(new(big.Int).SetUint64(x), depth)
	case float32:
		return e.encode(float64(x), depth)
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
		if e.exact && !strings.ContainsAny(string(x), ".eE") {
			switch n, err := decodeNumber(x); n := n.(type) {
			case int64:
				if err == nil {
					return e.int(n), nil
				}
			case *big.Int:
				return map[string]any{"$int": n.String()}, nil
			}
		}
		return x, nil
	case *big.Int:
		if x == nil {
			return nil, nil
		}
		if x.IsInt64() {
			return e.int(x.Int64()), nil
		}
		return map[string]any{"$int": x.String()}, nil
	case []any:
		return e.list(x, depth)
	case Tuple:
		return e.tagList("$tuple", x, depth)
	case Set:
		return e.tagList("$set", x, depth)
	case FrozenSet:
		return e.tagList("$frozenset", x, depth)
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
			k, err := e.encode(it.Key, depth+1)
			if err != nil {
				return nil, err
			}
			val, err := e.encode(it.Value, depth+1)
			if err != nil {
				return nil, err
			}
			pairs[i] = []any{k, val}
		}
		return map[string]any{"$dict": pairs}, nil
	case JSON:
		return e.encode(x.V, depth)
	case Opaque:
		if err := e.charge(len(x.Repr) + len(x.Type)); err != nil {
			return nil, err
		}
		return map[string]any{"$repr": x.Repr, "type": x.Type}, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			if err := e.charge(len(k)); err != nil {
				return nil, err
			}
			enc, err := e.encode(val, depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = enc
		}
		if _, _, ok := tagOf(x); ok {
			// A map that would read as a tag ({"$tuple": 1}, or
			// {"$repr": ..., "type": ...}) goes as a $dict, so that it is
			// not mistaken for one.
			pairs := make([]any, 0, len(x))
			for _, k := range slices.Sorted(maps.Keys(x)) {
				pairs = append(pairs, []any{k, out[k]})
			}
			return map[string]any{"$dict": pairs}, nil
		}
		return out, nil
	}
	// Other slices, maps and structs: through encoding/json, then again.
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
		if err := e.charge(rv.Len() * 17); err != nil {
			return nil, err
		}
		list := make([]any, rv.Len())
		for i := range list {
			list[i] = rv.Index(i).Interface()
		}
		return e.list(list, depth)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("value of type %T cannot be sent to Python: %w", v, err)
	}
	var plain any
	if err := DecodeJSON(data, &plain); err != nil {
		return nil, err
	}
	return e.encode(plain, depth+1)
}

// int is an integer as JSON: a number, or with exact past ±2^53 the tag
// {"$int": "digits"}.
func (e *encoder) int(x int64) any {
	if e.exact && (x > maxExactInt || x < -maxExactInt) {
		return map[string]any{"$int": strconv.FormatInt(x, 10)}
	}
	return x
}

func (e *encoder) list(x []any, depth int) ([]any, error) {
	out := make([]any, len(x))
	for i, elem := range x {
		var err error
		if out[i], err = e.encode(elem, depth+1); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (e *encoder) tagList(tag string, x []any, depth int) (any, error) {
	l, err := e.list(x, depth)
	if err != nil {
		return nil, err
	}
	return map[string]any{tag: l}, nil
}

// isoDateTime is t as Python's datetime.isoformat() writes it: six
// digits of microseconds unless they are zero, the UTC offset unless the
// time is Naive.
func isoDateTime(t time.Time) string {
	layout := "2006-01-02T15:04:05"
	if t.Nanosecond()/1000 != 0 {
		layout += ".000000"
	}
	if t.Location() == Naive {
		return t.Format(layout)
	}
	return t.Format(layout + "-07:00")
}

// Decode converts JSON-decoded data (numbers as json.Number, or already
// int64 and float64) with tags to Go values: int64 or *big.Int, float64,
// Tuple, Set, []byte, time.Time, ...
// Data nested deeper than maxDecodeDepth fails; encoding/json refuses
// such JSON too, so only data built in Go can reach the limit.
func Decode(v any) (any, error) { return decode(v, 0) }

// maxDecodeDepth is encoding/json's own limit on nesting.
const maxDecodeDepth = 10000

func decode(v any, depth int) (any, error) {
	if depth > maxDecodeDepth {
		return nil, fmt.Errorf("value nested more than %d levels deep", maxDecodeDepth)
	}
	switch x := v.(type) {
	case nil, bool, string, int64, float64:
		// Numbers already read (by Numbers) are taken as they are.
		return x, nil
	case json.Number:
		return decodeNumber(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			var err error
			if out[i], err = decode(e, depth+1); err != nil {
				return nil, err
			}
		}
		return out, nil
	case map[string]any:
		if tag, payload, ok := tagOf(x); ok {
			return decodeTag(tag, payload, x, depth)
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			d, err := decode(e, depth+1)
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
		if len(s) > maxIntDigits {
			return nil, fmt.Errorf("integer of %d digits, more than %d", len(s), maxIntDigits)
		}
		if b, ok := new(big.Int).SetString(s, 10); ok {
			return b, nil
		}
	}
	return strconv.ParseFloat(s, 64)
}

func decodeTag(tag string, payload any, m map[string]any, depth int) (any, error) {
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
		d, err := decode(l, depth+1)
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
		if b.IsInt64() {
			// Marshal tags integers past 2^53 that an int64 holds.
			return b.Int64(), nil
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
		// A $dict whose keys are all strings is an escaped ordinary map
		// (one that would read as a tag).
		m := make(map[string]any, len(d))
		for _, it := range d {
			k, ok := it.Key.(string)
			if !ok {
				return d, nil
			}
			m[k] = it.Value
		}
		if len(m) == len(d) && len(d) > 0 {
			return m, nil
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

// maxIntDigits is CPython's default limit for int-to-string conversion
// (sys.get_int_max_str_digits), with room for a sign.
const maxIntDigits = 4301

// DecodeJSON unmarshals data into v with numbers as json.Number, the
// form Decode and Numbers expect.
func DecodeJSON(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return d.Decode(v)
}
