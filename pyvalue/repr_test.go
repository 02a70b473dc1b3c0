package pyvalue

import (
	"encoding/json"
	"math"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/internal/cpythontest"
)

// reprCases pair a Go value with the Python expression it stands for.
// What CPython prints for each expression is stored in testdata/repr.txt
// (go test -run TestRepr -update rewrites it with python3).
var reprCases = []struct {
	py string
	v  any
}{
	{"None", nil},
	{"True", true},
	{"False", false},
	{"0", 0},
	{"-5", int64(-5)},
	{"7", uint8(7)},
	{"2**63 - 1", int64(math.MaxInt64)},
	{"2**64 - 1", uint64(math.MaxUint64)},
	{"2**100", new(big.Int).Lsh(big.NewInt(1), 100)},
	{"-(2**100)", new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 100))},

	{"0.0", 0.0},
	{"-0.0", math.Copysign(0, -1)},
	{"1.0", 1.0},
	{"1.5", 1.5},
	{"0.1 + 0.2", 0.30000000000000004},
	{"0.0001", 0.0001},
	{"0.00001", 0.00001},
	{"1234567.5", 1234567.5},
	{"1e6", 1e6},
	{"9999999999999998.0", 9999999999999998.0},
	{"1e16", 1e16},
	{"1e22", 1e22},
	{"-1.5e-300", -1.5e-300},
	{"1.7976931348623157e308", math.MaxFloat64},
	{"5e-324", 5e-324},
	{"float('inf')", math.Inf(1)},
	{"float('-inf')", math.Inf(-1)},
	{"float('nan')", math.NaN()},
	{"0.5 # float32", float32(0.5)},

	{"''", ""},
	{"'a b'", "a b"},
	{`"it's"`, "it's"},
	{`'say "hi"'`, `say "hi"`},
	{`'both \' and "'`, `both ' and "`},
	{`'back\\slash'`, `back\slash`},
	{`'\n\t\r'`, "\n\t\r"},
	{`'a\nb'`, "a\nb"},
	{`'\x00\x1f\x7f'`, "\x00\x1f\x7f"},
	{`'\x80\x85\xa0\xad'`, "\u0080\u0085\u00a0\u00ad"},
	{`'é ü ß ñ'`, "é ü ß ñ"},
	{`'e\u0301'`, "e\u0301"},
	{`'\u200b\u2028\u2029\u3000\ufeff'`, "\u200b\u2028\u2029\u3000\ufeff"},
	{`'\ue000'`, "\ue000"},
	{`'日本語 \U0001f600'`, "日本語 \U0001f600"},
	{`'\U000e0001\U0010ffff'`, "\U000e0001\U0010ffff"},
	{`'\ufffd'`, "\ufffd"},
	{`b'\xff'.decode('utf-8', 'surrogateescape')`, "\xff"},

	{"b''", []byte{}},
	{"b'abc'", []byte("abc")},
	{`b"it's"`, []byte("it's")},
	{`b'both \' and "'`, []byte(`both ' and "`)},
	{`b'\x00\n\t\r\\\x7f\x80\xff'`, []byte("\x00\n\t\r\\\x7f\x80\xff")},

	{"[]", []any{}},
	{"[1, 'a', [None, (2,)]]", []any{int64(1), "a", []any{nil, Tuple{int64(2)}}}},
	{"()", Tuple{}},
	{"(1,)", Tuple{int64(1)}},
	{"(1, 'a', ())", Tuple{int64(1), "a", Tuple{}}},
	{"set()", Set{}},
	{"{1, 2, 3}", Set{int64(1), int64(2), int64(3)}},
	{"frozenset()", FrozenSet{}},
	{"frozenset({'x'})", FrozenSet{"x"}},
	{"{}", map[string]any{}},
	{"{'a': 1, 'b': [None, 2.5], 'c': {'d': True}}", map[string]any{"c": map[string]any{"d": true}, "b": []any{nil, 2.5}, "a": int64(1)}},
	{"{1: 'one', (1, 2): None, 'k': b'v'}", Dict{{int64(1), "one"}, {Tuple{int64(1), int64(2)}, nil}, {"k", []byte("v")}}},
	{"['a', 'b']", []string{"a", "b"}},
	{"{'x': 1, 'y': 2}", map[string]int{"y": 2, "x": 1}},

	{"datetime.datetime(2024, 5, 1, 13, 45)", time.Date(2024, 5, 1, 13, 45, 0, 0, Naive)},
	{"datetime.datetime(2024, 5, 1, 13, 45, 7)", time.Date(2024, 5, 1, 13, 45, 7, 0, Naive)},
	{"datetime.datetime(2024, 5, 1, 0, 0, 0, 250000)", time.Date(2024, 5, 1, 0, 0, 0, 250000000, Naive)},
	{"datetime.datetime(2024, 5, 1, 13, 45, tzinfo=datetime.timezone.utc)", time.Date(2024, 5, 1, 13, 45, 0, 0, time.UTC)},
	{"datetime.datetime.fromisoformat('2024-05-01T13:45:00+02:00')", time.Date(2024, 5, 1, 13, 45, 0, 0, time.FixedZone("", 7200))},
	{"datetime.datetime.fromisoformat('0001-01-01T00:00:00.000001-02:30')", time.Date(1, 1, 1, 0, 0, 0, 1000, time.FixedZone("", -9000))},
	{"datetime.date(2024, 5, 1)", Date("2024-05-01")},
	{"datetime.time(13, 45)", Time("13:45:00")},
	{"datetime.time(13, 45, 7)", Time("13:45:07")},
	{"datetime.time.fromisoformat('13:45:00.250000+02:00')", Time("13:45:00.250000+02:00")},
	{"datetime.time.fromisoformat('23:59:59.999999+00:00')", Time("23:59:59.999999+00:00")},
	{"datetime.timedelta(0)", time.Duration(0)},
	{"datetime.timedelta(days=1, seconds=5, microseconds=3)", 24*time.Hour + 5*time.Second + 3*time.Microsecond},
	{"datetime.timedelta(seconds=-1)", -time.Second},
	{"datetime.timedelta(microseconds=-1)", -time.Microsecond},
	{"decimal.Decimal('1.10')", Opaque{Type: "Decimal", Repr: "Decimal('1.10')"}},

	{"12 # json.Number", json.Number("12")},
	{"1.50 # json.Number", json.Number("1.50")},
	{"10**30 # json.Number", json.Number("1000000000000000000000000000000")},
}

func TestRepr(t *testing.T) {
	golden := cpythontest.Golden(t, "testdata/repr.txt", func(py string) ([]byte, error) {
		exprs := make([]string, len(reprCases))
		for i, c := range reprCases {
			exprs[i] = c.py
		}
		data, _ := json.Marshal(exprs)
		return cpythontest.Run(py, `import datetime, decimal, json, os
for e in json.loads(os.environ["REPR_CASES"]):
    print(e + "\t" + repr(eval(e)))
`, "REPR_CASES="+string(data), "PYTHONIOENCODING=utf-8")
	})
	want := map[string]string{}
	for _, line := range strings.Split(strings.TrimSuffix(string(golden), "\n"), "\n") {
		py, repr, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("testdata/repr.txt: line without a tab: %q", line)
		}
		want[py] = repr
	}
	for _, c := range reprCases {
		w, ok := want[c.py]
		if !ok {
			t.Errorf("%s: no CPython output stored (go test -run TestRepr -update)", c.py)
			continue
		}
		if got := Repr(c.v); got != w {
			t.Errorf("Repr(%#v) = %s, CPython's repr(%s) = %s", c.v, got, c.py, w)
		}
	}
}

// TestReprGo covers what has no Python literal: values only Go makes.
func TestReprGo(t *testing.T) {
	deep := []any{}
	for range 1100 {
		deep = []any{deep}
	}
	cases := []struct {
		v    any
		want string
	}{
		{struct{ A int }{1}, "{1}"},
		{[]int(nil), "[]"},
		{map[string]any(nil), "{}"},
		{(*big.Int)(nil), "None"},
		{Time("25:00"), "datetime.time.fromisoformat('25:00')"},
		{Date("May 1st"), "datetime.date.fromisoformat('May 1st')"},
		{json.Number("x"), "x"},
	}
	for _, c := range cases {
		if got := Repr(c.v); got != c.want {
			t.Errorf("Repr(%#v) = %s, want %s", c.v, got, c.want)
		}
	}
	if got := Repr(deep); !strings.Contains(got, "[...]") || len(got) > 2100 {
		t.Errorf("Repr of 1100 nested lists: %.60s... (%d bytes), want it cut short with ...", got, len(got))
	}
}

func TestStr(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{"it's", "it's"},
		{"", ""},
		{int64(3), "3"},
		{[]any{"a"}, "['a']"},
		{nil, "None"},
	} {
		if got := Str(c.v); got != c.want {
			t.Errorf("Str(%#v) = %q, want %q", c.v, got, c.want)
		}
	}
}

// TestReprUnicode14 checks that repr escapes what CPython 3.11's Unicode
// 14 had not assigned, though Go's newer tables print it (U+1F6DC came
// in Unicode 15), and the engine's repr agrees on the table.
func TestReprUnicode14(t *testing.T) {
	if got, want := Repr("\U0001f6dc é"), `'\U0001f6dc é'`; got != want {
		t.Errorf("Repr = %s, want %s", got, want)
	}
}
