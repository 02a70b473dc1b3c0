package pyvalue

import (
	"encoding/json"
	"math"
	"math/big"
	"reflect"
	"testing"
	"time"
)

// TestMarshal pins the JSON form documented in docs/json.md: a change
// here is a change of what exec --json, RunResult and serve print.
func TestMarshal(t *testing.T) {
	big53 := int64(1) << 53
	cases := []struct {
		v    any
		want string
		back any // what Unmarshal gives back, when not v itself
	}{
		{32.0, `32.0`, nil},
		{0.0, `0.0`, nil},
		{math.Copysign(0, -1), `-0.0`, nil},
		{1e100, `1e+100`, nil},
		{0.1, `0.1`, nil},
		{math.Inf(1), `{"$float":"inf"}`, nil},
		{math.Inf(-1), `{"$float":"-inf"}`, nil},
		{big53, `9007199254740992`, nil},
		{-big53, `-9007199254740992`, nil},
		{big53 + 1, `{"$int":"9007199254740993"}`, nil},
		{-big53 - 1, `{"$int":"-9007199254740993"}`, nil},
		{new(big.Int).Lsh(big.NewInt(1), 64), `{"$int":"18446744073709551616"}`, nil},
		{Tuple{int64(1), 2.0}, `{"$tuple":[1,2.0]}`, nil},
		{Set{}, `{"$set":[]}`, nil},
		{FrozenSet{"a"}, `{"$frozenset":["a"]}`, nil},
		{[]byte("\x00<"), `{"$bytes":"ADw="}`, nil},
		{Dict{{int64(2), "b"}, {int64(1), "a"}}, `{"$dict":[[2,"b"],[1,"a"]]}`, nil},
		{map[string]any{"b": 1.5, "a": "<&>"}, `{"a":"<&>","b":1.5}`, nil},
		{map[string]any{"$repr": "x", "type": "y"}, `{"$dict":[["$repr","x"],["type","y"]]}`, nil},
		{map[string]any{"$float": "nan"}, `{"$dict":[["$float","nan"]]}`, nil},
		{Opaque{Type: "P", Repr: "P(1)"}, `{"$repr":"P(1)","type":"P"}`, nil},
		{time.Date(2024, 5, 1, 13, 45, 0, 0, Naive), `{"$datetime":"2024-05-01T13:45:00"}`, nil},
		{Date("2024-05-01"), `{"$date":"2024-05-01"}`, nil},
		{90 * time.Second, `{"$timedelta":[0,90,0]}`, nil},
		{[]any{nil, true, "s"}, `[null,true,"s"]`, nil},
	}
	for _, c := range cases {
		data, err := Marshal(c.v)
		if err != nil {
			t.Errorf("Marshal(%#v): %v", c.v, err)
			continue
		}
		if string(data) != c.want {
			t.Errorf("Marshal(%#v) = %s, want %s", c.v, data, c.want)
			continue
		}
		back, err := Unmarshal(data)
		if err != nil {
			t.Errorf("Unmarshal(%s): %v", data, err)
			continue
		}
		want := c.back
		if want == nil {
			want = c.v
		}
		if tv, ok := want.(time.Time); ok {
			if bt, ok := back.(time.Time); !ok || !bt.Equal(tv) {
				t.Errorf("round trip of %v: got %#v", tv, back)
			}
			continue
		}
		if !reflect.DeepEqual(back, want) {
			t.Errorf("round trip of %s: got %#v, want %#v", data, back, want)
		}
	}
	data, err := Marshal(math.NaN())
	if err != nil || string(data) != `{"$float":"nan"}` {
		t.Errorf("Marshal(NaN) = %s, %v", data, err)
	}
	if _, err := Marshal(make(chan int)); err == nil {
		t.Errorf("Marshal(chan): no error")
	}
}

// TestMarshalWireUnchanged: the runner protocol keeps plain numbers up
// to the int64 range; only Marshal tags those past 2^53.
func TestMarshalWireUnchanged(t *testing.T) {
	if got := wire(t, int64(1)<<60); got != `1152921504606846976` {
		t.Errorf("wire(2**60) = %s", got)
	}
}

// TestJSONField: a JSON field carries a value through encoding/json.
func TestJSONField(t *testing.T) {
	type row struct {
		Out JSON `json:"out"`
	}
	data, err := json.Marshal(row{Out: JSON{Tuple{math.Inf(1), 3.0}}})
	if err != nil || string(data) != `{"out":{"$tuple":[{"$float":"inf"},3.0]}}` {
		t.Fatalf("marshal: %s, %v", data, err)
	}
	var r row
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if tu, ok := r.Out.V.(Tuple); !ok || len(tu) != 2 || !math.IsInf(tu[0].(float64), 1) || tu[1] != 3.0 {
		t.Errorf("read back %#v", r.Out.V)
	}
}
