package pyvalue

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"
)

// wire marshals Encode(v) as the runner protocol sends it.
func wire(t *testing.T, v any) string {
	t.Helper()
	enc, err := Encode(v)
	if err != nil {
		t.Fatalf("Encode(%#v): %v", v, err)
	}
	b, err := json.Marshal(enc)
	if err != nil {
		t.Fatalf("json.Marshal(Encode(%#v)): %v", v, err)
	}
	return string(b)
}

// unwire reads what wire wrote back as runner messages are read.
func unwire(t *testing.T, s string) any {
	t.Helper()
	var raw any
	if err := DecodeJSON([]byte(s), &raw); err != nil {
		t.Fatalf("DecodeJSON(%s): %v", s, err)
	}
	v, err := Decode(raw)
	if err != nil {
		t.Fatalf("Decode(%s): %v", s, err)
	}
	return v
}

// TestWire pins the tagged JSON runner.py reads and writes: a change here
// is a change of the protocol, on both sides.
func TestWire(t *testing.T) {
	naive := time.Date(2024, 5, 1, 13, 45, 0, 500000000, Naive)
	cases := []struct {
		v    any
		want string
		back any // what Decode gives back, when not v itself
	}{
		{nil, `null`, nil},
		{true, `true`, nil},
		{int64(-3), `-3`, nil},
		{42, `42`, int64(42)},
		{uint64(math.MaxUint64), `{"$int":"18446744073709551615"}`, new(big.Int).SetUint64(math.MaxUint64)},
		{new(big.Int).Lsh(big.NewInt(1), 70), `{"$int":"1180591620717411303424"}`, nil},
		{big.NewInt(5), `5`, int64(5)},
		{4.0, `4.0`, nil},
		{1e100, `1e+100`, nil},
		{float32(0.5), `0.5`, 0.5},
		{math.Inf(1), `{"$float":"inf"}`, nil},
		{math.Inf(-1), `{"$float":"-inf"}`, nil},
		{"a\"b<", `"a\"b\u003c"`, nil},
		{[]byte("hi\x00"), `{"$bytes":"aGkA"}`, nil},
		{[]any{int64(1), "x"}, `[1,"x"]`, nil},
		{[]string{"a"}, `["a"]`, []any{"a"}},
		{Tuple{int64(1), Tuple{}}, `{"$tuple":[1,{"$tuple":[]}]}`, nil},
		{Set{int64(3)}, `{"$set":[3]}`, nil},
		{FrozenSet{"x"}, `{"$frozenset":["x"]}`, nil},
		{Date("2024-05-01"), `{"$date":"2024-05-01"}`, nil},
		{Time("13:45:00.500000"), `{"$time":"13:45:00.500000"}`, nil},
		{naive, `{"$datetime":"2024-05-01T13:45:00.500000"}`, nil},
		{time.Date(2024, 5, 1, 13, 45, 0, 0, time.FixedZone("", 7200)), `{"$datetime":"2024-05-01T13:45:00+02:00"}`, nil},
		{24*time.Hour + 1500*time.Millisecond, `{"$timedelta":[1,1,500000]}`, nil},
		{-time.Microsecond, `{"$timedelta":[-1,86399,999999]}`, nil},
		{Dict{{int64(1), "one"}, {Tuple{int64(1)}, nil}}, `{"$dict":[[1,"one"],[{"$tuple":[1]},null]]}`, nil},
		{map[string]any{"$tuple": int64(1)}, `{"$dict":[["$tuple",1]]}`, nil},
		{map[string]any{"a": int64(1), "b": nil}, `{"a":1,"b":null}`, nil},
		{Opaque{Type: "Decimal", Repr: "Decimal('1')"}, `{"$repr":"Decimal('1')","type":"Decimal"}`, nil},
		{struct {
			N int `json:"n"`
		}{7}, `{"n":7}`, map[string]any{"n": int64(7)}},
	}
	for _, c := range cases {
		got := wire(t, c.v)
		if got != c.want {
			t.Errorf("wire(%#v) = %s, want %s", c.v, got, c.want)
			continue
		}
		want := c.back
		if want == nil {
			want = c.v
		}
		back := unwire(t, got)
		if tv, ok := want.(time.Time); ok {
			if bt, ok := back.(time.Time); !ok || !bt.Equal(tv) || (tv.Location() == Naive) != (bt.Location() == Naive) {
				t.Errorf("round trip of %v: got %#v", tv, back)
			}
			continue
		}
		if !reflect.DeepEqual(back, want) {
			t.Errorf("round trip of %s: got %#v, want %#v", got, back, want)
		}
	}
}

func TestNaNRoundTrip(t *testing.T) {
	if got := wire(t, math.NaN()); got != `{"$float":"nan"}` {
		t.Fatalf("wire(NaN) = %s", got)
	}
	if f, ok := unwire(t, `{"$float":"nan"}`).(float64); !ok || !math.IsNaN(f) {
		t.Errorf("NaN came back as %v", f)
	}
}

// TestHostile: data a runner must not send, and values Go code must not
// pass, fail with an error that says what is wrong.
func TestHostile(t *testing.T) {
	for _, c := range []struct{ json, err string }{
		{`{"$nope":1}`, `unknown value tag "$nope"`},
		{`{"$tuple":"x"}`, "tag $tuple: want a list, got string"},
		{`{"$bytes":"!!"}`, "illegal base64"},
		{`{"$bytes":1}`, "tag $bytes: want a string, got json.Number"},
		{`{"$int":"12x"}`, `tag $int: bad integer "12x"`},
		{`{"$int":"` + strings.Repeat("9", 5000) + `"}`, "tag $int: integer of 5000 digits, more than 4301"},
		{strings.Repeat("9", 5000), "integer of 5000 digits, more than 4301"},
		{`1e400`, "value out of range"},
		{`{"$float":"Infinity"}`, `tag $float: bad value "Infinity"`},
		{`{"$timedelta":[1,2]}`, "tag $timedelta: want [days, seconds, microseconds]"},
		{`{"$timedelta":[1.5,2,3]}`, "tag $timedelta: want integers"},
		{`{"$timedelta":[999999999,0,0]}`, "timedelta of 999999999 days is too large for Go"},
		{`{"$datetime":"yesterday"}`, "tag $datetime:"},
		{`{"$dict":[[1]]}`, "tag $dict: want [key, value] pairs"},
		{`{"$repr":1,"type":"X"}`, "tag $repr: want a string"},
		{`[[{"$set":[{"$nope":0}]}]]`, `unknown value tag "$nope"`},
	} {
		var raw any
		if err := DecodeJSON([]byte(c.json), &raw); err != nil {
			t.Fatalf("DecodeJSON(%.40s): %v", c.json, err)
		}
		v, err := Decode(raw)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("Decode(%.40s) = %#v, %v; want an error with %q", c.json, v, err, c.err)
		}
	}

	// Nesting: Encode stops at 100 levels, Decode at encoding/json's
	// 10000, which JSON itself cannot pass.
	var deep any = "x"
	for range 101 {
		deep = []any{deep}
	}
	if _, err := Encode(deep); err == nil || !strings.Contains(err.Error(), "nested too deeply") {
		t.Errorf("Encode of 101 nested lists: %v, want nested too deeply", err)
	}
	for range 10000 {
		deep = []any{deep}
	}
	if _, err := Decode(deep); err == nil || !strings.Contains(err.Error(), "nested more than 10000 levels") {
		t.Errorf("Decode of 10101 nested lists: %v", err)
	}
	var raw any
	if err := DecodeJSON([]byte(strings.Repeat("[", 10001)+strings.Repeat("]", 10001)), &raw); err == nil {
		t.Errorf("DecodeJSON of 10001 nested lists: no error")
	}
	if _, err := Decode(complex(1, 2)); err == nil || !strings.Contains(err.Error(), "unexpected JSON value of type complex128") {
		t.Errorf("Decode(complex): %v", err)
	}
	if _, err := Encode(make(chan int)); err == nil || !strings.Contains(err.Error(), "value of type chan int cannot be sent to Python") {
		t.Errorf("Encode(chan): %v", err)
	}
}

// TestEncodeLimit: the budget is spent as the value is encoded, so a
// value that repeats one big list many times fails before it is expanded.
func TestEncodeLimit(t *testing.T) {
	inner := make([]any, 1000)
	for i := range inner {
		inner[i] = int64(0)
	}
	outer := make([]any, 1000)
	for i := range outer {
		outer[i] = inner
	}
	if _, _, err := EncodeLimit(outer, 1<<20); !errors.Is(err, ErrTooBig) {
		t.Errorf("EncodeLimit of 10^6 items under 1 MiB: %v, want ErrTooBig", err)
	}
	_, cost, err := EncodeLimit(inner, 1<<20)
	if err != nil || cost != 17*1001 {
		t.Errorf("EncodeLimit of 1000 zeros: cost %d, %v; want %d", cost, err, 17*1001)
	}
}

func TestPlain(t *testing.T) {
	in := map[string]any{
		"t": Tuple{int64(1), Set{"a"}},
		"d": Dict{{int64(1), FrozenSet{}}},
		"b": []byte("xy"),
		"i": new(big.Int).Lsh(big.NewInt(1), 70),
		"w": time.Date(2024, 5, 1, 0, 0, 0, 0, Naive),
		"s": 90 * time.Second,
		"o": Opaque{Type: "P", Repr: "P()"},
	}
	want := map[string]any{
		"t": []any{int64(1), []any{"a"}},
		"d": map[string]any{"1": []any{}},
		"b": "xy",
		"i": 1180591620717411303424.0,
		"w": "2024-05-01T00:00:00",
		"s": 90.0,
		"o": "P()",
	}
	if got := Plain(in); !reflect.DeepEqual(got, want) {
		t.Errorf("Plain = %#v, want %#v", got, want)
	}
}

func TestNumbers(t *testing.T) {
	var v any
	if err := DecodeJSON([]byte(`{"a":[1,2.5,-0,1e3,99999999999999999999,1e400],"b":{"c":7}}`), &v); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"a": []any{int64(1), 2.5, int64(0), 1000.0, 1e20, math.Inf(1)},
		"b": map[string]any{"c": int64(7)},
	}
	if got := Numbers(v); !reflect.DeepEqual(got, want) {
		t.Errorf("Numbers = %#v, want %#v", got, want)
	}
	if got := Numbers(map[string]any(nil)); got.(map[string]any) != nil {
		t.Errorf("Numbers(nil map) = %#v", got)
	}
}
