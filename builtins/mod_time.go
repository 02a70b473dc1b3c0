package builtins

import (
	"fmt"
	"math"
	"strings"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// time: clocks, sleep, struct_time and the conversions between seconds
// since the epoch, struct_time and text, as CPython 3.11 on Linux has them
// (glibc's strftime and mktime, _strptime.py). The local time zone is the
// host's (time.Local), as it is for CPython.

// sleep waits for d, returning early with the interruption error if the
// execution is stopped.
func sleep(th *starlark.Thread, d time.Duration) error {
	b := BudgetOf(th)
	if d <= 0 {
		return Interrupted(th)
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
		return Interrupted(th)
	}
}

var typeStructTime = &Type{name: "time.struct_time", base: typeTuple}

var structTimeFields = []string{"tm_year", "tm_mon", "tm_mday", "tm_hour", "tm_min", "tm_sec", "tm_wday", "tm_yday", "tm_isdst"}

// structTime is a time.struct_time: a tuple of the nine fields, with the
// zone name and UTC offset as attributes only (None when unknown).
type structTime struct {
	starlark.Tuple
	zone, gmtoff starlark.Value
}

var (
	_ Representer         = (*structTime)(nil)
	_ starlark.HasAttrs   = (*structTime)(nil)
	_ starlark.Comparable = (*structTime)(nil)
	_ starlark.HasBinary  = (*structTime)(nil)
	_ starlark.Sliceable  = (*structTime)(nil)
)

// newStructTime makes the struct_time of t, a broken-down time whose
// zone is known (gmtime, localtime).
func newStructTime(t tm) *structTime {
	return &structTime{Tuple: tmTuple(t), zone: starlark.String(t.zone), gmtoff: starlark.MakeInt(t.gmtoff)}
}

// tmTuple is the nine Python fields of t (month from 1, Monday=0, day of
// the year from 1).
func tmTuple(t tm) starlark.Tuple {
	vals := []int{t.year, t.mon + 1, t.mday, t.hour, t.min, t.sec, (t.wday + 6) % 7, t.yday + 1, t.isdst}
	tup := make(starlark.Tuple, len(vals))
	for i, v := range vals {
		tup[i] = starlark.MakeInt(v)
	}
	return tup
}

func (s *structTime) Type() string           { return "time.struct_time" }
func (s *structTime) PyType() starlark.Value { return typeStructTime }
func (s *structTime) String() string         { return Repr(s) }

func (s *structTime) PyRepr(th *starlark.Thread) (string, error) {
	var b strings.Builder
	b.WriteString("time.struct_time(")
	for i, f := range structTimeFields {
		if i > 0 {
			b.WriteString(", ")
		}
		r, err := ReprValue(th, s.Tuple[i])
		if err != nil {
			return "", err
		}
		b.WriteString(f + "=" + r)
	}
	b.WriteString(")")
	return b.String(), nil
}

func (s *structTime) PyStr(th *starlark.Thread) (string, error) { return s.PyRepr(th) }

func (s *structTime) tupleItems() starlark.Tuple { return s.Tuple }

func (s *structTime) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	return compareTupleSubclass(s.Tuple, op, y, depth)
}

// Binary makes st + tuple and st * n plain tuples, as for any tuple.
func (s *structTime) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	return tupleBinary(s.Tuple, op, y, side)
}

func (s *structTime) AttrNames() []string {
	return append([]string{"count", "index", "n_fields", "n_sequence_fields", "n_unnamed_fields", "tm_gmtoff", "tm_zone"}, structTimeFields...)
}

func (s *structTime) Attr(name string) (starlark.Value, error) {
	for i, f := range structTimeFields {
		if f == name {
			return s.Tuple[i], nil
		}
	}
	switch name {
	case "tm_zone":
		return s.zone, nil
	case "tm_gmtoff":
		return s.gmtoff, nil
	case "n_fields":
		return starlark.MakeInt(11), nil
	case "n_sequence_fields":
		return starlark.MakeInt(9), nil
	case "n_unnamed_fields":
		return starlark.MakeInt(0), nil
	case "count", "index":
		return tupleMethods[name].BindReceiver(s.Tuple), nil
	}
	return nil, Errorf("AttributeError", "'time.struct_time' object has no attribute '%s'", name)
}

func init() {
	typeStructTime.new = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var seq starlark.Value
		var dict starlark.Value = starlark.None
		if err := starlark.UnpackArgs("struct_time", args, kwargs, "sequence", &seq, "dict?", &dict); err != nil {
			return nil, err
		}
		vals, err := collect(th, seq)
		if err != nil {
			return nil, Errorf("TypeError", "constructor requires a sequence")
		}
		switch {
		case len(vals) < 9:
			return nil, Errorf("TypeError", "time.struct_time() takes an at least 9-sequence (%d-sequence given)", len(vals))
		case len(vals) > 11:
			return nil, Errorf("TypeError", "time.struct_time() takes an at most 11-sequence (%d-sequence given)", len(vals))
		}
		st := &structTime{Tuple: starlark.Tuple(vals[:9]), zone: starlark.None, gmtoff: starlark.None}
		if len(vals) > 9 {
			st.zone = vals[9]
		}
		if len(vals) > 10 {
			st.gmtoff = vals[10]
		}
		return st, nil
	}
}

// cInt converts a struct_time field as PyArg_ParseTuple's "i" does.
func cInt(v starlark.Value) (int, error) {
	switch v.(type) {
	case starlark.Int, starlark.Bool:
	default:
		return 0, Errorf("TypeError", "'%s' object cannot be interpreted as an integer", TypeName(v))
	}
	b := intOf(v)
	n, ok := b.Int64(), b.IsInt64()
	switch {
	case !ok && b.Sign() > 0 || n > math.MaxInt32:
		return 0, Errorf("OverflowError", "signed integer is greater than maximum")
	case !ok || n < math.MinInt32:
		return 0, Errorf("OverflowError", "signed integer is less than minimum")
	}
	return int(n), nil
}

// gettmarg converts a time tuple to a tm as CPython's gettmarg does
// (month, weekday and day of the year shifted to C's ranges).
func gettmarg(v starlark.Value, fname string) (tm, error) {
	var items starlark.Tuple
	var st *structTime
	switch x := v.(type) {
	case starlark.Tuple:
		items = x
	case *structTime:
		items, st = x.Tuple, x
	case *namedtupleValue:
		items = x.Tuple
	default:
		return tm{}, Errorf("TypeError", "Tuple or struct_time argument required")
	}
	if len(items) != 9 {
		return tm{}, Errorf("TypeError", "%s(): illegal time tuple argument", fname)
	}
	var f [9]int
	for i, it := range items {
		n, err := cInt(it)
		if err != nil {
			return tm{}, err
		}
		f[i] = n
	}
	if f[0] < math.MinInt32+1900 {
		return tm{}, Errorf("OverflowError", "year out of range")
	}
	t := tm{year: f[0], mon: f[1] - 1, mday: f[2], hour: f[3], min: f[4], sec: f[5], wday: (f[6] + 1) % 7, yday: f[7] - 1, isdst: f[8]}
	if st != nil {
		if st.zone != starlark.None {
			z, ok := st.zone.(starlark.String)
			if !ok {
				return tm{}, Errorf("TypeError", "bad argument type for built-in operation")
			}
			t.zone = string(z)
		}
		if st.gmtoff != starlark.None {
			n, err := cInt(st.gmtoff)
			if err != nil {
				return tm{}, err
			}
			t.gmtoff = n
		}
	}
	return t, nil
}

// checktm is CPython's checktm: fields strftime and asctime index by must
// be in range (0 allowed for the month, day and year day).
func checktm(t *tm) error {
	if t.mon == -1 {
		t.mon = 0
	} else if t.mon < 0 || t.mon > 11 {
		return Errorf("ValueError", "month out of range")
	}
	if t.mday == 0 {
		t.mday = 1
	} else if t.mday < 0 || t.mday > 31 {
		return Errorf("ValueError", "day of month out of range")
	}
	if t.hour < 0 || t.hour > 23 {
		return Errorf("ValueError", "hour out of range")
	}
	if t.min < 0 || t.min > 59 {
		return Errorf("ValueError", "minute out of range")
	}
	if t.sec < 0 || t.sec > 61 {
		return Errorf("ValueError", "seconds out of range")
	}
	if t.wday < 0 {
		return Errorf("ValueError", "day of week out of range")
	}
	if t.yday == -1 {
		t.yday = 0
	} else if t.yday < 0 || t.yday > 365 {
		return Errorf("ValueError", "day of year out of range")
	}
	return nil
}

// asctime is CPython's _asctime.
func asctime(t tm) string {
	return fmt.Sprintf("%s %s%3d %02d:%02d:%02d %d", cWeekdays[t.wday][:3], monthNames[t.mon][:3], t.mday, t.hour, t.min, t.sec, t.year)
}

// timestampArg converts seconds since the epoch as
// _PyTime_ObjectToTime_t does (floats rounded down).
func timestampArg(v starlark.Value) (int64, error) {
	switch x := v.(type) {
	case starlark.Float:
		f := float64(x)
		if math.IsNaN(f) {
			return 0, Errorf("ValueError", "Invalid value NaN (not a number)")
		}
		f = math.Floor(f)
		if f < -9.223372036854775808e18 || f >= 9.223372036854775808e18 {
			return 0, Errorf("OverflowError", "timestamp out of range for platform time_t")
		}
		return int64(f), nil
	case starlark.Int, starlark.Bool:
		b := intOf(x)
		n, ok := b.Int64(), b.IsInt64()
		if !ok {
			return 0, Errorf("OverflowError", "timestamp out of range for platform time_t")
		}
		return n, nil
	}
	return 0, Errorf("TypeError", "'%s' object cannot be interpreted as an integer", TypeName(v))
}

// brokenDown is localtime_r or gmtime_r of secs (now when v is None or
// absent).
func brokenDown(args starlark.Tuple, kwargs []starlark.Tuple, fname string, loc *time.Location) (tm, error) {
	var v starlark.Value = starlark.None
	if err := starlark.UnpackPositionalArgs(fname, args, kwargs, 0, &v); err != nil {
		return tm{}, err
	}
	t := time.Now()
	if v != starlark.None {
		secs, err := timestampArg(v)
		if err != nil {
			return tm{}, err
		}
		t = time.Unix(secs, 0)
	}
	t = t.In(loc)
	if y := int64(t.Year()) - 1900; y > math.MaxInt32 || y < math.MinInt32 {
		return tm{}, Errorf("OSError", "[Errno 75] Value too large for defined data type")
	}
	r := tmOf(t)
	if loc == time.UTC {
		r.zone = "GMT" // glibc's gmtime
	}
	return r, nil
}

// timeTupleArg is the optional time tuple of strftime and asctime,
// checked (now, local, when absent or None).
func timeTupleArg(v starlark.Value, fname string) (tm, error) {
	if v == nil || v == starlark.None {
		return tmOf(time.Now().In(time.Local)), nil
	}
	t, err := gettmarg(v, fname)
	if err != nil {
		return tm{}, err
	}
	return t, checktm(&t)
}

func timeModule() starlark.StringDict {
	start := time.Now()
	clock := func(name string, f func() starlark.Value) *starlark.Builtin {
		return fn(name, func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 0); err != nil {
				return nil, err
			}
			return f(), nil
		})
	}
	since := func() starlark.Value { return starlark.Float(time.Since(start).Seconds()) }
	sinceNs := func() starlark.Value { return starlark.MakeInt64(time.Since(start).Nanoseconds()) }
	std, dst, daylight, stdOff, dstOff := localTZNames()
	dl := 0
	if daylight {
		dl = 1
	}
	return starlark.StringDict{
		"time": clock("time", func() starlark.Value {
			return starlark.Float(float64(time.Now().UnixNano()) / 1e9)
		}),
		"time_ns": clock("time_ns", func() starlark.Value {
			return starlark.MakeInt64(time.Now().UnixNano())
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
		"sleep": fn("sleep", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x starlark.Value
			if err := starlark.UnpackPositionalArgs("sleep", args, kwargs, 1, &x); err != nil {
				return nil, err
			}
			var f float64
			switch v := x.(type) {
			case starlark.Int, starlark.Bool:
				f, _ = floatArg(v)
			case starlark.Float:
				f = float64(v)
			default:
				return nil, Errorf("TypeError", "'%s' object cannot be interpreted as an integer", TypeName(x))
			}
			if math.IsNaN(f) {
				return nil, Errorf("ValueError", "Invalid value NaN (not a number)")
			}
			if f < 0 {
				return nil, Errorf("ValueError", "sleep length must be non-negative")
			}
			if f > math.MaxInt64/1e9 {
				return nil, Errorf("OverflowError", "timestamp too large to convert to C _PyTime_t")
			}
			return starlark.None, sleep(th, time.Duration(f*1e9))
		}),
		"gmtime": fn("gmtime", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			t, err := brokenDown(args, kwargs, "gmtime", time.UTC)
			if err != nil {
				return nil, err
			}
			return newStructTime(t), nil
		}),
		"localtime": fn("localtime", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			t, err := brokenDown(args, kwargs, "localtime", time.Local)
			if err != nil {
				return nil, err
			}
			return newStructTime(t), nil
		}),
		"ctime": fn("ctime", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			t, err := brokenDown(args, kwargs, "ctime", time.Local)
			if err != nil {
				return nil, err
			}
			return starlark.String(asctime(t)), nil
		}),
		"asctime": fn("asctime", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var v starlark.Value = starlark.None
			if err := starlark.UnpackPositionalArgs("asctime", args, kwargs, 0, &v); err != nil {
				return nil, err
			}
			t, err := timeTupleArg(v, "asctime")
			if err != nil {
				return nil, err
			}
			return starlark.String(asctime(t)), nil
		}),
		"mktime": fn("mktime", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
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
				return nil, Errorf("OverflowError", "mktime argument out of range")
			}
			return starlark.Float(float64(secs)), nil
		}),
		"strftime": fn("strftime", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var format string
			var v starlark.Value = starlark.None
			if err := starlark.UnpackPositionalArgs("strftime", args, kwargs, 1, &format, &v); err != nil {
				return nil, err
			}
			t, err := timeTupleArg(v, "strftime")
			if err != nil {
				return nil, err
			}
			if t.isdst < -1 {
				t.isdst = -1
			} else if t.isdst > 1 {
				t.isdst = 1
			}
			if err := Alloc(th, int64(strftimeLimit(len(format)))); err != nil {
				return nil, err
			}
			return starlark.String(strftimeTM(t, format, nil)), nil
		}),
		"strptime": fn("strptime", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var data, format starlark.Value = nil, starlark.String("%a %b %d %H:%M:%S %Y")
			if err := starlark.UnpackPositionalArgs("strptime", args, kwargs, 1, &data, &format); err != nil {
				return nil, err
			}
			s, f, err := strptimeArgs(data, format)
			if err != nil {
				return nil, err
			}
			r, err := parseStrptime(s, f)
			if err != nil {
				return nil, err
			}
			st := &structTime{Tuple: starlark.Tuple{
				starlark.MakeInt(r.year), starlark.MakeInt(r.month), starlark.MakeInt(r.day),
				starlark.MakeInt(r.hour), starlark.MakeInt(r.minute), starlark.MakeInt(r.second),
				starlark.MakeInt(r.weekday), starlark.MakeInt(r.julian), starlark.MakeInt(r.tz),
			}, zone: starlark.None, gmtoff: starlark.None}
			if r.tzname != nil {
				st.zone = starlark.String(*r.tzname)
			}
			if r.gmtoff != nil {
				st.gmtoff = starlark.MakeInt(*r.gmtoff)
			}
			return st, nil
		}),
	}
}

// strptimeArgs checks strptime's arguments as _strptime does.
func strptimeArgs(data, format starlark.Value) (string, string, error) {
	for i, v := range []starlark.Value{data, format} {
		if _, ok := v.(starlark.String); !ok {
			return "", "", Errorf("TypeError", "strptime() argument %d must be str, not %s", i, Str(typeOf(v)))
		}
	}
	return string(data.(starlark.String)), string(format.(starlark.String)), nil
}

func init() { register("time", timeModule) }
