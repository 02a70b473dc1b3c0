package time

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// time: clocks, sleep, struct_time and the conversions between seconds
// since the epoch, struct_time and text, as CPython 3.11 on Linux has them
// (glibc's strftime and mktime, _strptime.py). The local time zone is the
// host's (time.Local), as it is for CPython.

// sleep waits for d, returning early with the interruption error if the
// execution is stopped.
func sleep(th *starlark.Thread, d time.Duration) error {
	b := core.BudgetOf(th)
	if d <= 0 {
		return core.Interrupted(th)
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	if b == nil || b.Done == nil {
		<-timer.C
		return nil
	}
	select {
	case <-timer.C:
		return nil
	case <-b.Done:
		return core.Interrupted(th)
	}
}

var typeStructTime = &core.Type{PyName: "time.struct_time", Base: core.TypeTuple}

var structTimeFields = []string{"tm_year", "tm_mon", "tm_mday", "tm_hour", "tm_min", "tm_sec", "tm_wday", "tm_yday", "tm_isdst"}

// StructTime is a time.struct_time: a tuple of the nine fields, with the
// zone name and UTC offset as attributes only (None when unknown).
type StructTime struct {
	starlark.Tuple
	Zone, Gmtoff starlark.Value
}

var (
	_ core.Representer    = (*StructTime)(nil)
	_ starlark.HasAttrs   = (*StructTime)(nil)
	_ starlark.Comparable = (*StructTime)(nil)
	_ starlark.HasBinary  = (*StructTime)(nil)
	_ starlark.Sliceable  = (*StructTime)(nil)
)

// newStructTime makes the struct_time of t, a broken-down time whose
// zone is known (gmtime, localtime).
func newStructTime(t Tm) *StructTime {
	return &StructTime{Tuple: TmTuple(t), Zone: starlark.String(t.zone), Gmtoff: starlark.MakeInt(t.gmtoff)}
}

// TmTuple is the nine Python fields of t (month from 1, Monday=0, day of
// the year from 1).
func TmTuple(t Tm) starlark.Tuple {
	vals := []int{t.Year, t.Mon + 1, t.Mday, t.Hour, t.Min, t.Sec, (t.Wday + 6) % 7, t.Yday + 1, t.Isdst}
	tup := make(starlark.Tuple, len(vals))
	for i, v := range vals {
		tup[i] = starlark.MakeInt(v)
	}
	return tup
}

func (s *StructTime) Type() string           { return "time.struct_time" }
func (s *StructTime) PyType() starlark.Value { return typeStructTime }
func (s *StructTime) String() string         { return core.Repr(s) }

func (s *StructTime) PyRepr(th *starlark.Thread) (string, error) {
	var b strings.Builder
	b.WriteString("time.struct_time(")
	for i, f := range structTimeFields {
		if i > 0 {
			b.WriteString(", ")
		}
		r, err := core.ReprValue(th, s.Tuple[i])
		if err != nil {
			return "", err
		}
		b.WriteString(f + "=" + r)
	}
	b.WriteString(")")
	return b.String(), nil
}

func (s *StructTime) PyStr(th *starlark.Thread) (string, error) { return s.PyRepr(th) }

func (s *StructTime) TupleItems() starlark.Tuple { return s.Tuple }

func (s *StructTime) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	return core.CompareTupleSubclass(s.Tuple, op, y, depth)
}

// Binary makes st + tuple and st * n plain tuples, as for any tuple.
func (s *StructTime) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	return core.TupleBinary(s.Tuple, op, y, side)
}

func (s *StructTime) AttrNames() []string {
	return append([]string{"count", "index", "n_fields", "n_sequence_fields", "n_unnamed_fields", "tm_gmtoff", "tm_zone"}, structTimeFields...)
}

func (s *StructTime) Attr(name string) (starlark.Value, error) {
	for i, f := range structTimeFields {
		if f == name {
			return s.Tuple[i], nil
		}
	}
	switch name {
	case "tm_zone":
		return s.Zone, nil
	case "tm_gmtoff":
		return s.Gmtoff, nil
	case "n_fields":
		return starlark.MakeInt(11), nil
	case "n_sequence_fields":
		return starlark.MakeInt(9), nil
	case "n_unnamed_fields":
		return starlark.MakeInt(0), nil
	case "count", "index":
		return core.TupleMethods[name].BindReceiver(s.Tuple), nil
	}
	return nil, core.Errorf(pyexc.AttributeError, "'time.struct_time' object has no attribute '%s'", name)
}

func init() {
	typeStructTime.New = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var seq starlark.Value
		var dict starlark.Value = starlark.None
		if err := starlark.UnpackArgs("struct_time", args, kwargs, "sequence", &seq, "dict?", &dict); err != nil {
			return nil, err
		}
		vals, err := core.Collect(th, seq)
		if err != nil {
			return nil, core.Errorf(pyexc.TypeError, "constructor requires a sequence")
		}
		switch {
		case len(vals) < 9:
			return nil, core.Errorf(pyexc.TypeError, "time.struct_time() takes an at least 9-sequence (%d-sequence given)", len(vals))
		case len(vals) > 11:
			return nil, core.Errorf(pyexc.TypeError, "time.struct_time() takes an at most 11-sequence (%d-sequence given)", len(vals))
		}
		st := &StructTime{Tuple: starlark.Tuple(vals[:9]), Zone: starlark.None, Gmtoff: starlark.None}
		if len(vals) > 9 {
			st.Zone = vals[9]
		}
		if len(vals) > 10 {
			st.Gmtoff = vals[10]
		}
		return st, nil
	}
}

// cInt converts a struct_time field as PyArg_ParseTuple's "i" does.
func cInt(v starlark.Value) (int, error) {
	b, err := core.Index(v)
	if err != nil {
		return 0, err
	}
	n, ok := b.Int64()
	switch {
	case !ok && b.Sign() > 0 || n > math.MaxInt32:
		return 0, core.Errorf(pyexc.OverflowError, "signed integer is greater than maximum")
	case !ok || n < math.MinInt32:
		return 0, core.Errorf(pyexc.OverflowError, "signed integer is less than minimum")
	}
	return int(n), nil
}

// gettmarg converts a time tuple to a tm as CPython's gettmarg does
// (month, weekday and day of the year shifted to C's ranges).
func gettmarg(v starlark.Value, fname string) (Tm, error) {
	var items starlark.Tuple
	var st *StructTime
	switch x := v.(type) {
	case starlark.Tuple:
		items = x
	case *StructTime:
		items, st = x.Tuple, x
	case *core.NamedtupleValue:
		items = x.Tuple
	default:
		return Tm{}, core.Errorf(pyexc.TypeError, "Tuple or struct_time argument required")
	}
	if len(items) != 9 {
		return Tm{}, core.Errorf(pyexc.TypeError, "%s(): illegal time tuple argument", fname)
	}
	var f [9]int
	for i, it := range items {
		n, err := cInt(it)
		if err != nil {
			return Tm{}, err
		}
		f[i] = n
	}
	if f[0] < math.MinInt32+1900 {
		return Tm{}, core.Errorf(pyexc.OverflowError, "year out of range")
	}
	t := Tm{Year: f[0], Mon: f[1] - 1, Mday: f[2], Hour: f[3], Min: f[4], Sec: f[5], Wday: (f[6] + 1) % 7, Yday: f[7] - 1, Isdst: f[8]}
	if st != nil {
		if st.Zone != starlark.None {
			z, ok := st.Zone.(starlark.String)
			if !ok {
				return Tm{}, core.Errorf(pyexc.TypeError, "bad argument type for built-in operation")
			}
			t.zone = string(z)
		}
		if st.Gmtoff != starlark.None {
			n, err := cInt(st.Gmtoff)
			if err != nil {
				return Tm{}, err
			}
			t.gmtoff = n
		}
	}
	return t, nil
}

// checktm is CPython's checktm: fields strftime and asctime index by must
// be in range (0 allowed for the month, day and year day).
func checktm(t *Tm) error {
	if t.Mon == -1 {
		t.Mon = 0
	} else if t.Mon < 0 || t.Mon > 11 {
		return core.Errorf(pyexc.ValueError, "month out of range")
	}
	if t.Mday == 0 {
		t.Mday = 1
	} else if t.Mday < 0 || t.Mday > 31 {
		return core.Errorf(pyexc.ValueError, "day of month out of range")
	}
	if t.Hour < 0 || t.Hour > 23 {
		return core.Errorf(pyexc.ValueError, "hour out of range")
	}
	if t.Min < 0 || t.Min > 59 {
		return core.Errorf(pyexc.ValueError, "minute out of range")
	}
	if t.Sec < 0 || t.Sec > 61 {
		return core.Errorf(pyexc.ValueError, "seconds out of range")
	}
	if t.Wday < 0 {
		return core.Errorf(pyexc.ValueError, "day of week out of range")
	}
	if t.Yday == -1 {
		t.Yday = 0
	} else if t.Yday < 0 || t.Yday > 365 {
		return core.Errorf(pyexc.ValueError, "day of year out of range")
	}
	return nil
}

// asctime is CPython's _asctime.
func asctime(t Tm) string {
	return fmt.Sprintf("%s %s%3d %02d:%02d:%02d %d", cWeekdays[t.Wday][:3], MonthNames[t.Mon][:3], t.Mday, t.Hour, t.Min, t.Sec, t.Year)
}

// timestampArg converts seconds since the epoch as
// _PyTime_ObjectToTime_t does (floats rounded down).
func timestampArg(v starlark.Value) (int64, error) {
	switch x := v.(type) {
	case starlark.Float:
		f := float64(x)
		if math.IsNaN(f) {
			return 0, core.Errorf(pyexc.ValueError, "Invalid value NaN (not a number)")
		}
		f = math.Floor(f)
		if f < -9.223372036854775808e18 || f >= 9.223372036854775808e18 {
			return 0, core.Errorf(pyexc.OverflowError, "timestamp out of range for platform time_t")
		}
		return int64(f), nil
	}
	b, err := core.Index(v)
	if err != nil {
		return 0, err
	}
	n, ok := b.Int64()
	if !ok {
		return 0, core.Errorf(pyexc.OverflowError, "timestamp out of range for platform time_t")
	}
	return n, nil
}

// brokenDown is localtime_r or gmtime_r of secs (now when v is None or
// absent).
func brokenDown(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple, fname string, loc *time.Location) (Tm, error) {
	var v starlark.Value = starlark.None
	if err := starlark.UnpackPositionalArgs(fname, args, kwargs, 0, &v); err != nil {
		return Tm{}, err
	}
	var t time.Time
	if v == starlark.None {
		t = core.Now(th)
	} else {
		secs, err := timestampArg(v)
		if err != nil {
			return Tm{}, err
		}
		t = time.Unix(secs, 0)
	}
	t = t.In(loc)
	if y := int64(t.Year()) - 1900; y > math.MaxInt32 || y < math.MinInt32 {
		return Tm{}, core.Errorf(pyexc.OSError, "[Errno 75] Value too large for defined data type")
	}
	r := tmOf(t)
	if loc == time.UTC {
		r.zone = "GMT" // glibc's gmtime
	}
	return r, nil
}

// timeTupleArg is the optional time tuple of strftime and asctime,
// checked (now, local, when absent or None).
func timeTupleArg(th *starlark.Thread, v starlark.Value, fname string) (Tm, error) {
	if v == nil || v == starlark.None {
		return tmOf(core.Now(th).In(time.Local)), nil
	}
	t, err := gettmarg(v, fname)
	if err != nil {
		return Tm{}, err
	}
	return t, checktm(&t)
}

func members() starlark.StringDict {
	start := time.Now()
	// Every clock is read through core.Reading, so that a replayed
	// execution reads what it read the first time.
	clock := func(name string, f func(th *starlark.Thread) starlark.Value) *starlark.Builtin {
		return core.Fn(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 0); err != nil {
				return nil, err
			}
			return f(th), nil
		})
	}
	elapsed := func(th *starlark.Thread) int64 {
		return core.Reading(th, func() int64 { return time.Since(start).Nanoseconds() })
	}
	since := func(th *starlark.Thread) starlark.Value { return starlark.Float(float64(elapsed(th)) / 1e9) }
	sinceNs := func(th *starlark.Thread) starlark.Value { return starlark.MakeInt64(elapsed(th)) }
	std, dst, daylight, stdOff, dstOff := localTZNames()
	dl := 0
	if daylight {
		dl = 1
	}
	return starlark.StringDict{
		"time": clock("time", func(th *starlark.Thread) starlark.Value {
			return starlark.Float(float64(core.Now(th).UnixNano()) / 1e9)
		}),
		"time_ns": clock("time_ns", func(th *starlark.Thread) starlark.Value {
			return starlark.MakeInt64(core.Now(th).UnixNano())
		}),
		"perf_counter":     clock("perf_counter", since),
		"perf_counter_ns":  clock("perf_counter_ns", sinceNs),
		"monotonic":        clock("monotonic", since),
		"monotonic_ns":     clock("monotonic_ns", sinceNs),
		"process_time":     clock("process_time", since),
		"process_time_ns":  clock("process_time_ns", sinceNs),
		"thread_time":      clock("thread_time", since),
		"thread_time_ns":   clock("thread_time_ns", sinceNs),
		"struct_time":      typeStructTime,
		"timezone":         starlark.MakeInt(-stdOff),
		"altzone":          starlark.MakeInt(-dstOff),
		"daylight":         starlark.MakeInt(dl),
		"tzname":           starlark.Tuple{starlark.String(std), starlark.String(dst)},
		"_STRUCT_TM_ITEMS": starlark.MakeInt(11),
		"sleep": core.Fn("sleep", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x starlark.Value
			if err := starlark.UnpackPositionalArgs("sleep", args, kwargs, 1, &x); err != nil {
				return nil, err
			}
			var f float64
			if v, ok := x.(starlark.Float); ok {
				f = float64(v)
			} else {
				n, err := core.Index(x)
				if err != nil {
					return nil, err
				}
				f = float64(n.Float()) // huge ints become +Inf, refused below
			}
			if math.IsNaN(f) {
				return nil, core.Errorf(pyexc.ValueError, "Invalid value NaN (not a number)")
			}
			if f < 0 {
				return nil, core.Errorf(pyexc.ValueError, "sleep length must be non-negative")
			}
			if f > math.MaxInt64/1e9 {
				return nil, core.Errorf(pyexc.OverflowError, "timestamp too large to convert to C _PyTime_t")
			}
			return starlark.None, sleep(th, time.Duration(f*1e9))
		}),
		"gmtime": core.Fn("gmtime", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			t, err := brokenDown(th, args, kwargs, "gmtime", time.UTC)
			if err != nil {
				return nil, err
			}
			return newStructTime(t), nil
		}),
		"localtime": core.Fn("localtime", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			t, err := brokenDown(th, args, kwargs, "localtime", time.Local)
			if err != nil {
				return nil, err
			}
			return newStructTime(t), nil
		}),
		"ctime": core.Fn("ctime", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			t, err := brokenDown(th, args, kwargs, "ctime", time.Local)
			if err != nil {
				return nil, err
			}
			return starlark.String(asctime(t)), nil
		}),
		"asctime": core.Fn("asctime", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var v starlark.Value = starlark.None
			if err := starlark.UnpackPositionalArgs("asctime", args, kwargs, 0, &v); err != nil {
				return nil, err
			}
			t, err := timeTupleArg(th, v, "asctime")
			if err != nil {
				return nil, err
			}
			return starlark.String(asctime(t)), nil
		}),
		"mktime": core.Fn("mktime", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var v starlark.Value
			if err := starlark.UnpackPositionalArgs("mktime", args, kwargs, 1, &v); err != nil {
				return nil, err
			}
			t, err := gettmarg(v, "mktime")
			if err != nil {
				return nil, err
			}
			secs, ok := mktimeTM(t)
			if !ok {
				return nil, core.Errorf(pyexc.OverflowError, "mktime argument out of range")
			}
			return starlark.Float(float64(secs)), nil
		}),
		"strftime": core.Fn("strftime", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var format string
			var v starlark.Value = starlark.None
			if err := starlark.UnpackPositionalArgs("strftime", args, kwargs, 1, &format, &v); err != nil {
				return nil, err
			}
			t, err := timeTupleArg(th, v, "strftime")
			if err != nil {
				return nil, err
			}
			if t.Isdst < -1 {
				t.Isdst = -1
			} else if t.Isdst > 1 {
				t.Isdst = 1
			}
			if err := core.Alloc(th, int64(StrftimeLimit(len(format)))); err != nil {
				return nil, err
			}
			return starlark.String(StrftimeTM(t, format, nil)), nil
		}),
		"strptime": core.Fn("strptime", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var data, format starlark.Value = nil, starlark.String("%a %b %d %H:%M:%S %Y")
			if err := starlark.UnpackPositionalArgs("strptime", args, kwargs, 1, &data, &format); err != nil {
				return nil, err
			}
			s, f, err := StrptimeArgs(data, format)
			if err != nil {
				return nil, err
			}
			r, err := ParseStrptime(s, f)
			if err != nil {
				return nil, err
			}
			st := &StructTime{Tuple: starlark.Tuple{
				starlark.MakeInt(r.Year), starlark.MakeInt(r.Month), starlark.MakeInt(r.Day),
				starlark.MakeInt(r.Hour), starlark.MakeInt(r.Minute), starlark.MakeInt(r.Second),
				starlark.MakeInt(r.weekday), starlark.MakeInt(r.julian), starlark.MakeInt(r.tz),
			}, Zone: starlark.None, Gmtoff: starlark.None}
			if r.Tzname != nil {
				st.Zone = starlark.String(*r.Tzname)
			}
			if r.Gmtoff != nil {
				st.Gmtoff = starlark.MakeInt(*r.Gmtoff)
			}
			return st, nil
		}),
	}
}

// StrptimeArgs checks strptime's arguments as _strptime does.
func StrptimeArgs(data, format starlark.Value) (string, string, error) {
	for i, v := range []starlark.Value{data, format} {
		if _, ok := v.(starlark.String); !ok {
			return "", "", core.Errorf(pyexc.TypeError, "strptime() argument %d must be str, not %s", i, core.Str(core.TypeOf(v)))
		}
	}
	return string(data.(starlark.String)), string(format.(starlark.String)), nil
}

// Module returns a new time module.
func Module() *core.PyModule { return core.NewModule("time", members()) }
