package time_test

import (
	"strings"
	"testing"

	"github.com/star-agent/star-agent/builtins"
	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/internal/builtinstest"
	"github.com/star-agent/star-agent/vm/starlark"
)

// outcome is a result or "!Type: message".
func outcome(v starlark.Value, err error) string {
	if err != nil {
		typ, msg := core.Classify(err)
		return "!" + typ + ": " + msg
	}
	return core.Repr(v)
}

const pyOutcome = `
import json, time, datetime
def outcome(f):
    try:
        return repr(f())
    except Exception as e:
        return "!" + type(e).__name__ + ": " + str(e)
`

// TestStrftimeMatrixWithCPython compares every conversion letter with
// every flag, width and modifier combination against glibc through
// CPython's time.strftime.
func TestStrftimeMatrixWithCPython(t *testing.T) {
	if time0() != "UTC" {
		t.Skip("the engine's local zone is not UTC: the comparison needs TZ=UTC")
	}
	var formats []string
	prefixes := []string{"", "E", "O", "-", "_", "0", "^", "#", "5", "-5", "_5", "05", "^5", "#5", "^#", "010", "_E", "-O", "3E"}
	for c := 0x21; c < 0x7f; c++ {
		for _, p := range prefixes {
			formats = append(formats, "%"+p+string(rune(c)))
		}
	}
	formats = append(formats, "%", "%-", "%5", "%E", "%%%", "a%", "%Y-%m-%dT%H:%M:%S%z", "é %A ü", "%1000Y", "%300Y%300Y")
	tuples := []string{
		"(2024, 1, 15, 9, 5, 3, 0, 15, 0)", "(5, 12, 31, 23, 59, 60, 6, 366, 1)", "(-45, 1, 1, 0, 0, 0, 2, 1, -1)",
		"(1999, 1, 3, 12, 0, 0, 6, 3, 0)", "(12345, 6, 7, 8, 9, 10, 2, 158, 0)", "(2021, 1, 1, 0, 0, 0, 4, 1, 0)",
		"(2020, 12, 31, 0, 0, 0, 3, 366, 0)", "(2024, 0, 0, 0, 0, 0, 0, 0, 0)", "(2024, 13, 1, 0, 0, 0, 0, 1, 0)",
		"(2024, 1, 32, 0, 0, 0, 0, 1, 0)", "(2024, 1, 1, 24, 0, 0, 0, 1, 0)", "(2024, 1, 1, 0, 0, 62, 0, 1, 0)",
		"(2024, 1, 1, 0, 0, 0, -2, 1, 0)", "(2024, 1, 1, 0, 0, 0, 0, 367, 0)", "(2024, 1, 1)", "[2024, 1, 1, 0, 0, 0, 0, 1, 0]",
		"(2024, 1, 1, 0, 0, 0, 0, 1.5, 0)", "(2**40, 1, 1, 0, 0, 0, 0, 1, 0)", "time.gmtime(1000000000)", "time.localtime(1000000000)",
		"time.strptime('2024 +0130 UTC', '%Y %z %Z')", "time.struct_time((2024, 1, 1, 0, 0, 0, 0, 1, 0, 'ABC', 3600))",
		"(2024, 1, 1, 0, 0, 0, 0, 1, 7)", "(2024, 1, 1, 0, 0, 0, 0, 1, -5)",
	}
	var want [][]string
	prog := pyOutcome + "formats = " + pyList(formats) + "\nprint(json.dumps([[outcome(lambda: time.strftime(f, " + "t)) for f in formats] for t in [" + strings.Join(tuples, ", ") + "]]))"
	builtinstest.PythonJSON(t, prog, &want)
	m, _ := builtins.Module("time")
	strftime, _ := m.(*core.PyModule).Attr("strftime")
	env := starlark.StringDict{"time": m}
	failed := 0
	for i, tup := range tuples {
		th := &starlark.Thread{}
		core.SetBudget(th, &core.Budget{Limit: 1 << 30})
		tv, err := starlark.EvalOptions(builtinstest.FileOptions, th, "t", strings.ReplaceAll(tup, "2**40", "1099511627776"), env)
		if err != nil {
			t.Fatalf("%s: %v", tup, err)
		}
		for j, f := range formats {
			got := outcome(starlark.Call(th, strftime, starlark.Tuple{starlark.String(f), tv}, nil))
			if got != want[i][j] && failed < 400 {
				failed++
				t.Errorf("time.strftime(%q, %s) = %s, CPython %s", f, tup, got, want[i][j])
			}
		}
	}
}

func time0() string {
	m, _ := builtins.Module("time")
	v, _ := m.(*core.PyModule).Attr("tzname")
	return core.Str(v.(starlark.Tuple)[0])
}

func pyList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = core.QuoteString(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// TestStrptimeWithCPython compares time.strptime and
// datetime.datetime.strptime with CPython's _strptime on inputs that
// exercise its regular expressions, backtracking and errors.
func TestStrptimeWithCPython(t *testing.T) {
	if time0() != "UTC" {
		t.Skip("the engine's local zone is not UTC: the comparison needs TZ=UTC")
	}
	cases := [][2]string{
		{"2024-03-15 10:20:30", "%Y-%m-%d %H:%M:%S"}, {"15-01-2024", "%Y-%m-%d"}, {"2024-13-01", "%Y-%m-%d"},
		{"2024-02-30", "%Y-%m-%d"}, {"2024-01-15 extra", "%Y-%m-%d"}, {"2024115", "%Y%m%d"}, {"20241231", "%Y%m%d"},
		{"2024111", "%Y%m%d"}, {"24-1-5", "%y-%m-%d"}, {"69-1-5", "%y-%m-%d"}, {"68-1-5", "%y-%m-%d"},
		{"Monday, January 15, 2024", "%A, %B %d, %Y"}, {"mon jan 15 2024", "%a %b %d %Y"}, {"SEPT 1 2024", "%b %d %Y"},
		{"12:30 AM", "%I:%M %p"}, {"12:30 pm", "%I:%M %p"}, {"1:05 PM", "%I:%M %p"}, {"13:05 PM", "%I:%M %p"},
		{"2024-01-15T10:30:00.123Z", "%Y-%m-%dT%H:%M:%S.%f%z"}, {"2024-01-15 10:30:00+05:30", "%Y-%m-%d %H:%M:%S%z"},
		{"2024-01-15 10:30:00 -0800", "%Y-%m-%d %H:%M:%S %z"}, {"2024-01-15 +01:3045", "%Y-%m-%d %z"},
		{"2024-01-15 +013045", "%Y-%m-%d %z"}, {"2024-01-15 +0130:45", "%Y-%m-%d %z"}, {"2024-01-15 +25:00", "%Y-%m-%d %z"},
		{"2024 UTC", "%Y %Z"}, {"2024 gmt", "%Y %Z"}, {"2024 EST", "%Y %Z"}, {"2024 366", "%Y %j"}, {"2023 366", "%Y %j"},
		{"2024 10 3", "%Y %U %w"}, {"2024 0 0", "%Y %W %w"}, {"2024 0 1", "%Y %U %u"}, {"2024 52 7", "%G %V %u"},
		{"2024 52", "%G %V"}, {"2024 52 1", "%Y %V %u"}, {"2024 1 1 1", "%G %V %u %j"}, {"Feb 29", "%b %d"},
		{"Tue Mar  5 10:20:30 2024", "%c"}, {"03/05/24", "%x"}, {"10:20:30", "%X"}, {"Tue Mar 5 10:20:30 2024", ""},
		{"5%", "%d%%"}, {"x", "%Q"}, {"x", "%"}, {"x", "% d"}, {"x", "%.d"}, {"x", "%Y %Y"}, {"x", "%c %Y"}, {"x", "%Z%Z"},
		{"2024  \t 01", "%Y %m"}, {"2024-1", "%Y\t%m"}, {"0000 1", "%Y %m"}, {"9999 366", "%Y %j"}, {"10:61", "%H:%S"},
		{"10:60", "%M:%S"}, {" 5/1/2024", "%d/%m/%Y"}, {"a.b 2024", "a.b %Y"}, {"a(b) 2024", "a(b) %Y"}, {"axb 2024", "a.b %Y"},
		{"T10", "t%H"}, {"2024-06-01 12:00:00 Z", "%Y-%m-%d %H:%M:%S %z"}, {"2024-06-01 12:00:00 z", "%Y-%m-%d %H:%M:%S %z"},
		{"1.5", "%S.%f"}, {"1.1234567", "%S.%f"}, {"é2024", "é%Y"}, {"2024", "%é"},
	}
	var data, formats []string
	for _, c := range cases {
		data = append(data, c[0])
		formats = append(formats, c[1])
	}
	var want [][2]string
	prog := pyOutcome + "data = " + pyList(data) + "\nformats = " + pyList(formats) + `
def tp(s, f):
    st = time.strptime(s, f) if f else time.strptime(s)
    return (st, st.tm_zone, st.tm_gmtoff)
print(json.dumps([[outcome(lambda: tp(s, f)), outcome(lambda: datetime.datetime.strptime(s, f or "%a %b %d %H:%M:%S %Y"))] for s, f in zip(data, formats)]))`
	builtinstest.PythonJSON(t, prog, &want)
	tm, _ := builtins.Module("time")
	dt, _ := builtins.Module("datetime")
	env := starlark.StringDict{"time": tm, "datetime": dt}
	for i, c := range cases {
		th := &starlark.Thread{}
		env["s"], env["f"] = starlark.String(c[0]), starlark.String(c[1])
		expr := "(lambda st: (st, st.tm_zone, st.tm_gmtoff))(time.strptime(s, f))"
		if c[1] == "" {
			expr = "(lambda st: (st, st.tm_zone, st.tm_gmtoff))(time.strptime(s))"
		}
		got := outcome(starlark.EvalOptions(builtinstest.FileOptions, th, "t", expr, env))
		if got != want[i][0] {
			t.Errorf("time.strptime(%q, %q) = %s, CPython %s", c[0], c[1], got, want[i][0])
		}
		env["f"] = starlark.String(c[1])
		if c[1] == "" {
			env["f"] = starlark.String("%a %b %d %H:%M:%S %Y")
		}
		got = outcome(starlark.EvalOptions(builtinstest.FileOptions, th, "t", "datetime.datetime.strptime(s, f)", env))
		if got != want[i][1] {
			t.Errorf("datetime.strptime(%q, %q) = %s, CPython %s", c[0], c[1], got, want[i][1])
		}
	}
}
