package builtins

import (
	"fmt"
	"math"
	"strings"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// datetime: date, datetime, time, timedelta and timezone with CPython's
// reprs, str forms, arithmetic and comparisons. Values are immutable.

var (
	typeTimedelta = &Type{name: "datetime.timedelta", base: typeObject}
	typeDate      = &Type{name: "datetime.date", base: typeObject}
	typeDatetime  = &Type{name: "datetime.datetime", base: typeDate}
	typeTimeOfDay = &Type{name: "datetime.time", base: typeObject}
	typeTimezone  = &Type{name: "datetime.timezone", base: typeObject}
)

const usPerDay = 86400 * 1000000

// maxTimedeltaDays is the largest timedelta in days. CPython allows
// 999999999; microseconds in an int64 allow about 106 million days, which
// covers every date datetime can represent.
const maxTimedeltaDays = 100000000

// timedelta is a duration in microseconds.
type timedelta struct{ us int64 }

func (d timedelta) parts() (days, secs, us int64) {
	days = floorDiv(d.us, usPerDay)
	rem := d.us - days*usPerDay
	return days, rem / 1000000, rem % 1000000
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func (d timedelta) String() string {
	days, secs, us := d.parts()
	s := fmt.Sprintf("%d:%02d:%02d", secs/3600, secs/60%60, secs%60)
	if us != 0 {
		s += fmt.Sprintf(".%06d", us)
	}
	if days != 0 {
		plural := "s"
		if days == 1 || days == -1 {
			plural = ""
		}
		s = fmt.Sprintf("%d day%s, %s", days, plural, s)
	}
	return s
}

func (d timedelta) PyRepr(*starlark.Thread) (string, error) {
	days, secs, us := d.parts()
	var parts []string
	if days != 0 {
		parts = append(parts, fmt.Sprintf("days=%d", days))
	}
	if secs != 0 {
		parts = append(parts, fmt.Sprintf("seconds=%d", secs))
	}
	if us != 0 {
		parts = append(parts, fmt.Sprintf("microseconds=%d", us))
	}
	if len(parts) == 0 {
		return "datetime.timedelta(0)", nil
	}
	return "datetime.timedelta(" + strings.Join(parts, ", ") + ")", nil
}
func (d timedelta) PyStr(*starlark.Thread) (string, error) { return d.String(), nil }
func (d timedelta) Type() string                           { return "datetime.timedelta" }
func (d timedelta) PyType() starlark.Value                 { return typeTimedelta }
func (d timedelta) Freeze()                                {}
func (d timedelta) Truth() starlark.Bool                   { return d.us != 0 }
func (d timedelta) Hash() (uint32, error)                  { return uint32(d.us ^ d.us>>32), nil }
func (d timedelta) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	return cmpInt(op, d.us, y.(timedelta).us), nil
}

func cmpInt(op syntax.Token, a, b int64) bool {
	switch op {
	case syntax.LT:
		return a < b
	case syntax.LE:
		return a <= b
	case syntax.GT:
		return a > b
	case syntax.GE:
		return a >= b
	case syntax.EQL:
		return a == b
	}
	return a != b
}

func (d timedelta) Attr(name string) (starlark.Value, error) {
	days, secs, us := d.parts()
	switch name {
	case "days":
		return starlark.MakeInt64(days), nil
	case "seconds":
		return starlark.MakeInt64(secs), nil
	case "microseconds":
		return starlark.MakeInt64(us), nil
	case "total_seconds":
		return fn(name, func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			return starlark.Float(float64(d.us) / 1e6), nil
		}), nil
	}
	return nil, Errorf("AttributeError", "'datetime.timedelta' object has no attribute '%s'", name)
}
func (d timedelta) AttrNames() []string {
	return []string{"days", "microseconds", "seconds", "total_seconds"}
}

func (d timedelta) Unary(op syntax.Token) (starlark.Value, error) {
	switch op {
	case syntax.MINUS:
		return timedelta{-d.us}, nil
	case syntax.PLUS:
		return d, nil
	}
	return nil, nil
}

func (d timedelta) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	switch y := y.(type) {
	case timedelta:
		a, b := d.us, y.us
		if side == starlark.Right {
			a, b = b, a
		}
		switch op {
		case syntax.PLUS:
			return timedelta{a + b}, nil
		case syntax.MINUS:
			return timedelta{a - b}, nil
		case syntax.SLASH:
			if b == 0 {
				return nil, Errorf("ZeroDivisionError", "division by zero")
			}
			return starlark.Float(float64(a) / float64(b)), nil
		case syntax.SLASHSLASH:
			if b == 0 {
				return nil, Errorf("ZeroDivisionError", "integer division or modulo by zero")
			}
			return starlark.MakeInt64(floorDiv(a, b)), nil
		case syntax.PERCENT:
			if b == 0 {
				return nil, Errorf("ZeroDivisionError", "integer division or modulo by zero")
			}
			return timedelta{a - floorDiv(a, b)*b}, nil
		}
	case starlark.Int, starlark.Float, starlark.Bool:
		f, _ := floatArg(y)
		switch {
		case op == syntax.STAR:
			if n, ok := numArg(y).(starlark.Int); ok {
				k, _ := n.Int64()
				return timedelta{d.us * k}, nil
			}
			return timedelta{int64(math.RoundToEven(float64(d.us) * f))}, nil
		case side == starlark.Left && (op == syntax.SLASH || op == syntax.SLASHSLASH):
			if f == 0 {
				return nil, Errorf("ZeroDivisionError", "division by zero")
			}
			if op == syntax.SLASHSLASH {
				if n, ok := numArg(y).(starlark.Int); ok {
					k, _ := n.Int64()
					return timedelta{floorDiv(d.us, k)}, nil
				}
			}
			return timedelta{int64(math.RoundToEven(float64(d.us) / f))}, nil
		}
	}
	return nil, nil
}

// tzone is a fixed-offset timezone (datetime.timezone).
type tzone struct {
	offset int64 // seconds
	name   string
}

func (z *tzone) loc() *time.Location {
	if z.offset == 0 && z.name == "" {
		return time.UTC
	}
	return time.FixedZone(z.tzname(), int(z.offset))
}

func (z *tzone) tzname() string {
	if z.name != "" {
		return z.name
	}
	if z.offset == 0 {
		return "UTC"
	}
	return "UTC" + offsetString(z.offset, true)
}

func offsetString(off int64, colon bool) string {
	sign := "+"
	if off < 0 {
		sign, off = "-", -off
	}
	sep := ""
	if colon {
		sep = ":"
	}
	s := fmt.Sprintf("%s%02d%s%02d", sign, off/3600, sep, off/60%60)
	if off%60 != 0 {
		s += fmt.Sprintf("%s%02d", sep, off%60)
	}
	return s
}

func (z *tzone) String() string { r, _ := z.PyRepr(nil); return r }
func (z *tzone) PyRepr(*starlark.Thread) (string, error) {
	if z.offset == 0 && z.name == "" {
		return "datetime.timezone.utc", nil
	}
	td, _ := timedelta{z.offset * 1000000}.PyRepr(nil)
	if z.name != "" {
		return "datetime.timezone(" + td + ", " + quoteString(z.name) + ")", nil
	}
	return "datetime.timezone(" + td + ")", nil
}
func (z *tzone) PyStr(*starlark.Thread) (string, error) { return z.tzname(), nil }
func (z *tzone) Type() string                           { return "datetime.timezone" }
func (z *tzone) PyType() starlark.Value                 { return typeTimezone }
func (z *tzone) Freeze()                                {}
func (z *tzone) Truth() starlark.Bool                   { return true }
func (z *tzone) Hash() (uint32, error)                  { return uint32(z.offset), nil }
func (z *tzone) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	return cmpInt(op, z.offset, y.(*tzone).offset), nil
}

var utc = &tzone{}

// dt is a date (kind 'd'), a datetime ('t') or a time of day ('c'). For
// naive values t is in UTC and tz is nil.
type dt struct {
	kind byte
	t    time.Time
	tz   *tzone
}

func (v *dt) typ() *Type {
	switch v.kind {
	case 'd':
		return typeDate
	case 'c':
		return typeTimeOfDay
	}
	return typeDatetime
}

func (v *dt) Type() string           { return v.typ().name }
func (v *dt) PyType() starlark.Value { return v.typ() }
func (v *dt) Freeze()                {}
func (v *dt) Truth() starlark.Bool   { return true }
func (v *dt) Hash() (uint32, error)  { return uint32(v.t.UnixNano() ^ v.t.UnixNano()>>32), nil }
func (v *dt) String() string         { s, _ := v.PyStr(nil); return s }

func (v *dt) isoformat(sep string) string {
	t := v.t
	var s string
	switch v.kind {
	case 'd':
		return fmt.Sprintf("%04d-%02d-%02d", t.Year(), t.Month(), t.Day())
	case 't':
		s = fmt.Sprintf("%04d-%02d-%02d%s", t.Year(), t.Month(), t.Day(), sep)
	}
	s += fmt.Sprintf("%02d:%02d:%02d", t.Hour(), t.Minute(), t.Second())
	if us := t.Nanosecond() / 1000; us != 0 {
		s += fmt.Sprintf(".%06d", us)
	}
	if v.tz != nil {
		s += offsetString(v.tz.offset, true)
	}
	return s
}

func (v *dt) PyStr(*starlark.Thread) (string, error) { return v.isoformat(" "), nil }
func (v *dt) PyRepr(*starlark.Thread) (string, error) {
	t := v.t
	var fields []int
	switch v.kind {
	case 'd':
		fields = []int{t.Year(), int(t.Month()), t.Day()}
	case 't':
		fields = []int{t.Year(), int(t.Month()), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond() / 1000}
		for len(fields) > 5 && fields[len(fields)-1] == 0 {
			fields = fields[:len(fields)-1]
		}
	case 'c':
		fields = []int{t.Hour(), t.Minute(), t.Second(), t.Nanosecond() / 1000}
		for len(fields) > 2 && fields[len(fields)-1] == 0 {
			fields = fields[:len(fields)-1]
		}
	}
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = fmt.Sprint(f)
	}
	s := v.typ().name + "(" + strings.Join(parts, ", ")
	if v.tz != nil {
		r, _ := v.tz.PyRepr(nil)
		s += ", tzinfo=" + r
	}
	return s + ")", nil
}

// PyFormat makes f"{d:%Y-%m-%d}" use strftime, as date.__format__ does.
func (v *dt) PyFormat(th *starlark.Thread, spec string) (string, error) {
	if spec == "" {
		return v.PyStr(th)
	}
	return v.strftime(th, spec)
}

// timetuple is v.timetuple() as a C struct tm (tm_isdst -1: the fixed
// offsets of datetime.timezone have no DST).
func (v *dt) timetuple() tm {
	t := v.t
	return tm{year: t.Year(), mon: int(t.Month()) - 1, mday: t.Day(), hour: t.Hour(), min: t.Minute(), sec: t.Second(),
		wday: int(t.Weekday()), yday: t.YearDay() - 1, isdst: -1}
}

// strftime is CPython's wrap_strftime: %z, %Z and %f are replaced by the
// value's offset, zone name and microseconds, then time.strftime formats
// the rest with the value's timetuple.
func (v *dt) strftime(th *starlark.Thread, format string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 == len(format) {
			b.WriteByte(c)
			continue
		}
		i++
		switch format[i] {
		case 'z':
			if v.tz != nil {
				b.WriteString(offsetString(v.tz.offset, false))
			}
		case 'Z':
			if v.tz != nil {
				b.WriteString(strings.ReplaceAll(v.tz.tzname(), "%", "%%"))
			}
		case 'f':
			fmt.Fprintf(&b, "%06d", v.t.Nanosecond()/1000)
		default:
			b.WriteByte('%')
			b.WriteByte(format[i])
		}
	}
	f := b.String()
	if err := Alloc(th, int64(strftimeLimit(len(f)))); err != nil {
		return "", err
	}
	return strftimeTM(v.timetuple(), f, nil), nil
}

func (v *dt) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	w := y.(*dt)
	if (v.tz == nil) != (w.tz == nil) && v.kind == 't' {
		if op == syntax.EQL || op == syntax.NEQ {
			return op == syntax.NEQ, nil
		}
		return false, Errorf("TypeError", "can't compare offset-naive and offset-aware datetimes")
	}
	a, b := v.t.UnixNano(), w.t.UnixNano()
	if v.kind == 'c' {
		a, b = clockNanos(v.t), clockNanos(w.t)
	}
	return cmpInt(op, a, b), nil
}

func clockNanos(t time.Time) int64 {
	return int64(t.Hour())*3600e9 + int64(t.Minute())*60e9 + int64(t.Second())*1e9 + int64(t.Nanosecond())
}

func (v *dt) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	if v.kind == 'c' {
		return nil, nil
	}
	switch y := y.(type) {
	case timedelta:
		if op == syntax.PLUS || (op == syntax.MINUS && side == starlark.Left) {
			d := time.Duration(y.us) * time.Microsecond
			if op == syntax.MINUS {
				d = -d
			}
			if v.kind == 'd' {
				d = time.Duration(floorDiv(int64(d), int64(24*time.Hour))) * 24 * time.Hour
			}
			t := v.t.Add(d)
			if t.Year() < 1 || t.Year() > 9999 {
				return nil, Errorf("OverflowError", "date value out of range")
			}
			return &dt{kind: v.kind, t: t, tz: v.tz}, nil
		}
	case *dt:
		if op == syntax.MINUS && y.kind == v.kind {
			a, b := v, y
			if side == starlark.Right {
				a, b = b, a
			}
			if (a.tz == nil) != (b.tz == nil) {
				return nil, Errorf("TypeError", "can't subtract offset-naive and offset-aware datetimes")
			}
			return timedelta{int64(a.t.Sub(b.t) / time.Microsecond)}, nil
		}
	}
	return nil, nil
}

func (v *dt) AttrNames() []string {
	return []string{"year", "month", "day", "hour", "minute", "second", "microsecond", "tzinfo", "weekday", "isoweekday",
		"isoformat", "strftime", "replace", "date", "time", "timestamp", "toordinal", "isocalendar", "ctime", "astimezone", "utcoffset", "tzname", "timetuple"}
}

func (v *dt) Attr(name string) (starlark.Value, error) {
	t := v.t
	method := func(f builtinFn) (starlark.Value, error) { return fn(name, f), nil }
	noArgs := func(f func() (starlark.Value, error)) (starlark.Value, error) {
		return method(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 0); err != nil {
				return nil, err
			}
			return f()
		})
	}
	dateAttr := v.kind != 'c'
	timeAttr := v.kind != 'd'
	switch {
	case name == "year" && dateAttr:
		return starlark.MakeInt(t.Year()), nil
	case name == "month" && dateAttr:
		return starlark.MakeInt(int(t.Month())), nil
	case name == "day" && dateAttr:
		return starlark.MakeInt(t.Day()), nil
	case name == "hour" && timeAttr:
		return starlark.MakeInt(t.Hour()), nil
	case name == "minute" && timeAttr:
		return starlark.MakeInt(t.Minute()), nil
	case name == "second" && timeAttr:
		return starlark.MakeInt(t.Second()), nil
	case name == "microsecond" && timeAttr:
		return starlark.MakeInt(t.Nanosecond() / 1000), nil
	case name == "tzinfo" && timeAttr:
		if v.tz == nil {
			return starlark.None, nil
		}
		return v.tz, nil
	case name == "weekday" && dateAttr:
		return noArgs(func() (starlark.Value, error) { return starlark.MakeInt(pyWeekday(t)), nil })
	case name == "isoweekday" && dateAttr:
		return noArgs(func() (starlark.Value, error) { return starlark.MakeInt(pyWeekday(t) + 1), nil })
	case name == "toordinal" && dateAttr:
		return noArgs(func() (starlark.Value, error) { return starlark.MakeInt64(toOrdinal(t)), nil })
	case name == "isocalendar" && dateAttr:
		return noArgs(func() (starlark.Value, error) {
			y, w := t.ISOWeek()
			return isoCalendarDate.(*Type).CallInternal(nil, starlark.Tuple{starlark.MakeInt(y), starlark.MakeInt(w), starlark.MakeInt(pyWeekday(t) + 1)}, nil)
		})
	case name == "ctime" && dateAttr:
		return noArgs(func() (starlark.Value, error) {
			return starlark.String(fmt.Sprintf("%s %s %2d %02d:%02d:%02d %04d", weekdayNames[pyWeekday(t)][:3], monthNames[t.Month()-1][:3], t.Day(), t.Hour(), t.Minute(), t.Second(), t.Year())), nil
		})
	case name == "timetuple" && dateAttr:
		return noArgs(func() (starlark.Value, error) {
			return &structTime{Tuple: tmTuple(v.timetuple()), zone: starlark.None, gmtoff: starlark.None}, nil
		})
	case name == "isoformat":
		return method(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			sep, timespec := "T", "auto"
			if err := starlark.UnpackArgs(name, args, kwargs, "sep?", &sep, "timespec?", &timespec); err != nil {
				return nil, err
			}
			s := v.isoformat(sep)
			if v.kind != 'd' && timespec != "auto" {
				w := *v
				switch timespec {
				case "hours", "minutes", "seconds":
					w.t = w.t.Truncate(time.Second)
					s = w.isoformat(sep)
					cut := map[string]int{"hours": 6, "minutes": 3, "seconds": 0}[timespec]
					base := strings.TrimSuffix(s, offsetIfAny(v))
					s = base[:len(base)-cut] + offsetIfAny(v)
				case "milliseconds", "microseconds":
					base := strings.TrimSuffix(s, offsetIfAny(v))
					if !strings.Contains(base[len(base)-8:], ".") {
						base += ".000000"
					}
					if timespec == "milliseconds" {
						base = base[:len(base)-3]
					}
					s = base + offsetIfAny(v)
				default:
					return nil, Errorf("ValueError", "Unknown timespec value")
				}
			}
			return starlark.String(s), nil
		})
	case name == "strftime":
		return method(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var f string
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &f); err != nil {
				return nil, err
			}
			r, err := v.strftime(th, f)
			return starlark.String(r), err
		})
	case name == "replace":
		return method(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			f := map[string]int{"year": t.Year(), "month": int(t.Month()), "day": t.Day(), "hour": t.Hour(), "minute": t.Minute(), "second": t.Second(), "microsecond": t.Nanosecond() / 1000}
			tz := v.tz
			if len(args) > 0 {
				return nil, Errorf("TypeError", "replace() takes keyword arguments only here")
			}
			for _, kv := range kwargs {
				k := string(kv[0].(starlark.String))
				if k == "tzinfo" {
					if kv[1] == starlark.None {
						tz = nil
					} else if z, ok := kv[1].(*tzone); ok {
						tz = z
					} else {
						return nil, Errorf("TypeError", "tzinfo argument must be None or of a tzinfo subclass")
					}
					continue
				}
				if _, ok := f[k]; !ok {
					return nil, Errorf("TypeError", "'%s' is an invalid keyword argument for replace()", k)
				}
				n, err := toInt(kv[1])
				if err != nil {
					return nil, err
				}
				f[k] = n
			}
			return makeDT(v.kind, f["year"], f["month"], f["day"], f["hour"], f["minute"], f["second"], f["microsecond"], tz)
		})
	case name == "date" && v.kind == 't':
		return noArgs(func() (starlark.Value, error) {
			return &dt{kind: 'd', t: time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)}, nil
		})
	case name == "time" && v.kind == 't':
		return noArgs(func() (starlark.Value, error) {
			return &dt{kind: 'c', t: time.Date(1900, 1, 1, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)}, nil
		})
	case name == "timestamp" && v.kind == 't':
		return noArgs(func() (starlark.Value, error) {
			u := t
			if v.tz == nil {
				// Naive datetimes are local time, as in CPython.
				u = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.Local)
			}
			return starlark.Float(float64(u.UnixNano()) / 1e9), nil
		})
	case name == "utcoffset" && timeAttr:
		return noArgs(func() (starlark.Value, error) {
			if v.tz == nil {
				return starlark.None, nil
			}
			return timedelta{v.tz.offset * 1000000}, nil
		})
	case name == "tzname" && timeAttr:
		return noArgs(func() (starlark.Value, error) {
			if v.tz == nil {
				return starlark.None, nil
			}
			return starlark.String(v.tz.tzname()), nil
		})
	case name == "astimezone" && v.kind == 't':
		return method(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var z starlark.Value = starlark.None
			if err := starlark.UnpackPositionalArgs(name, args, kwargs, 0, &z); err != nil {
				return nil, err
			}
			tz, ok := z.(*tzone)
			if !ok {
				tz = utc
			}
			src := t
			if v.tz == nil {
				src = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.Local)
			}
			return &dt{kind: 't', t: src.In(tz.loc()), tz: tz}, nil
		})
	}
	return nil, Errorf("AttributeError", "'%s' object has no attribute '%s'", v.typ().name, name)
}

func offsetIfAny(v *dt) string {
	if v.tz == nil {
		return ""
	}
	return offsetString(v.tz.offset, true)
}

// toOrdinal is the proleptic Gregorian ordinal (0001-01-01 is 1).
func toOrdinal(t time.Time) int64 {
	d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	return floorDiv(d.Unix(), 86400) + 719163 // 1970-01-01 is day 719163
}

func makeDT(kind byte, y, mo, d, h, mi, s, us int, tz *tzone) (starlark.Value, error) {
	if y < 1 || y > 9999 {
		return nil, Errorf("ValueError", "year %d is out of range", y)
	}
	if mo < 1 || mo > 12 {
		return nil, Errorf("ValueError", "month must be in 1..12")
	}
	if d < 1 || d > daysIn(y, mo) {
		return nil, Errorf("ValueError", "day is out of range for month")
	}
	if h < 0 || h > 23 {
		return nil, Errorf("ValueError", "hour must be in 0..23")
	}
	if mi < 0 || mi > 59 {
		return nil, Errorf("ValueError", "minute must be in 0..59")
	}
	if s < 0 || s > 59 {
		return nil, Errorf("ValueError", "second must be in 0..59")
	}
	if us < 0 || us > 999999 {
		return nil, Errorf("ValueError", "microsecond must be in 0..999999")
	}
	loc := time.UTC
	if tz != nil {
		loc = tz.loc()
	}
	return &dt{kind: kind, t: time.Date(y, time.Month(mo), d, h, mi, s, us*1000, loc), tz: tz}, nil
}

func daysIn(y, m int) int {
	return time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

func intFields(name string, args starlark.Tuple, kwargs []starlark.Tuple, names []string, required int) ([]int, *tzone, error) {
	vals := make([]int, len(names))
	var tz *tzone
	set := func(i int, v starlark.Value) error {
		n, err := toInt(v)
		if err != nil {
			return Errorf("TypeError", "'%s' object cannot be interpreted as an integer", TypeName(v))
		}
		vals[i] = n
		return nil
	}
	setTZ := func(v starlark.Value) error {
		if v == starlark.None {
			return nil
		}
		z, ok := v.(*tzone)
		if !ok {
			return Errorf("TypeError", "tzinfo argument must be None or of a tzinfo subclass, not type '%s'", TypeName(v))
		}
		tz = z
		return nil
	}
	for i, a := range args {
		if i == len(names) {
			if err := setTZ(a); err != nil {
				return nil, nil, err
			}
			continue
		}
		if i > len(names) {
			return nil, nil, Errorf("TypeError", "%s() takes at most %d arguments", name, len(names)+1)
		}
		if err := set(i, a); err != nil {
			return nil, nil, err
		}
	}
	got := len(args)
	for _, kv := range kwargs {
		k := string(kv[0].(starlark.String))
		if k == "tzinfo" {
			if err := setTZ(kv[1]); err != nil {
				return nil, nil, err
			}
			continue
		}
		found := false
		for i, n := range names {
			if n == k {
				if err := set(i, kv[1]); err != nil {
					return nil, nil, err
				}
				found = true
				got = max(got, i+1)
			}
		}
		if !found {
			return nil, nil, Errorf("TypeError", "'%s' is an invalid keyword argument for %s()", k, name)
		}
	}
	if got < required {
		return nil, nil, Errorf("TypeError", "%s() missing required argument '%s' (pos %d)", name, names[got], got+1)
	}
	return vals, tz, nil
}

func parseISO(s string, kind byte) (starlark.Value, error) {
	bad := Errorf("ValueError", "Invalid isoformat string: %s", quoteString(s))
	layouts := []string{"2006-01-02T15:04:05.999999999Z07:00", "2006-01-02T15:04:05.999999999", "2006-01-02T15:04Z07:00", "2006-01-02T15:04", "2006-01-02T15", "2006-01-02"}
	if kind == 'd' {
		layouts = []string{"2006-01-02", "20060102"}
	}
	norm := strings.Replace(s, " ", "T", 1)
	norm = strings.TrimSuffix(norm, "Z") + map[bool]string{true: "+00:00", false: ""}[strings.HasSuffix(norm, "Z")]
	for _, l := range layouts {
		t, err := time.Parse(l, norm)
		if err != nil {
			continue
		}
		var tz *tzone
		if strings.Contains(l, "Z07") {
			_, off := t.Zone()
			tz = &tzone{offset: int64(off)}
			if off == 0 {
				tz = utc
			}
		} else {
			t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond()/1000*1000, time.UTC)
		}
		return &dt{kind: kind, t: t, tz: tz}, nil
	}
	return nil, bad
}

func datetimeModule() starlark.StringDict {
	nowIn := func(z starlark.Value) (*dt, error) {
		now := time.Now()
		if tz, ok := z.(*tzone); ok {
			return &dt{kind: 't', t: now.In(tz.loc()).Truncate(time.Microsecond), tz: tz}, nil
		}
		if z != nil && z != starlark.None {
			return nil, Errorf("TypeError", "tzinfo argument must be None or of a tzinfo subclass")
		}
		return &dt{kind: 't', t: time.Date(now.Year(), now.Month(), now.Day(), now.Hour(), now.Minute(), now.Second(), now.Nanosecond()/1000*1000, time.UTC)}, nil
	}
	fromTimestamp := func(kind byte) builtinFn {
		return func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var ts, z starlark.Value = nil, starlark.None
			if err := starlark.UnpackArgs("fromtimestamp", args, kwargs, "timestamp", &ts, "tz?", &z); err != nil {
				return nil, err
			}
			f, err := floatArg(ts)
			if err != nil {
				return nil, err
			}
			t := time.Unix(0, int64(math.Round(f*1e6))*1000)
			if tz, ok := z.(*tzone); ok {
				return &dt{kind: kind, t: t.In(tz.loc()), tz: tz}, nil
			}
			t = t.Local()
			t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
			if kind == 'd' {
				t = t.Truncate(24 * time.Hour)
			}
			return &dt{kind: kind, t: t}, nil
		}
	}
	typeTimedelta.new = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		names := []string{"days", "seconds", "microseconds", "milliseconds", "minutes", "hours", "weeks"}
		scale := []float64{usPerDay, 1e6, 1, 1e3, 60e6, 3600e6, 7 * usPerDay}
		total := 0.0
		var exact int64
		seen := map[string]bool{}
		add := func(i int, v starlark.Value) error {
			if n, ok := numArg(v).(starlark.Int); ok {
				k, ok := n.Int64()
				if !ok {
					return Errorf("OverflowError", "timedelta argument too large")
				}
				exact += k * int64(scale[i])
				return nil
			}
			f, err := floatArg(v)
			if err != nil {
				return Errorf("TypeError", "unsupported type for timedelta %s component: %s", names[i], TypeName(v))
			}
			total += f * scale[i]
			return nil
		}
		for i, a := range args {
			if i >= len(names) {
				return nil, Errorf("TypeError", "timedelta takes at most 7 arguments")
			}
			seen[names[i]] = true
			if err := add(i, a); err != nil {
				return nil, err
			}
		}
		for _, kv := range kwargs {
			k := string(kv[0].(starlark.String))
			found := false
			for i, n := range names {
				if n == k {
					if seen[k] {
						return nil, Errorf("TypeError", "argument for timedelta given by name ('%s') and position", k)
					}
					found = true
					if err := add(i, kv[1]); err != nil {
						return nil, err
					}
				}
			}
			if !found {
				return nil, Errorf("TypeError", "'%s' is an invalid keyword argument for __new__()", k)
			}
		}
		us := exact + int64(math.RoundToEven(total))
		if math.Abs(total) > maxTimedeltaDays*usPerDay || floorDiv(us, usPerDay) > maxTimedeltaDays || floorDiv(us, usPerDay) < -maxTimedeltaDays {
			return nil, Errorf("OverflowError", "days=%d; must have magnitude <= %d", floorDiv(us, usPerDay), maxTimedeltaDays)
		}
		return timedelta{us}, nil
	}
	typeDate.new = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		f, _, err := intFields("date", args, kwargs, []string{"year", "month", "day"}, 3)
		if err != nil {
			return nil, err
		}
		return makeDT('d', f[0], f[1], f[2], 0, 0, 0, 0, nil)
	}
	typeDatetime.new = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		f, tz, err := intFields("datetime", args, kwargs, []string{"year", "month", "day", "hour", "minute", "second", "microsecond"}, 3)
		if err != nil {
			return nil, err
		}
		return makeDT('t', f[0], f[1], f[2], f[3], f[4], f[5], f[6], tz)
	}
	typeTimeOfDay.new = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		f, tz, err := intFields("time", args, kwargs, []string{"hour", "minute", "second", "microsecond"}, 0)
		if err != nil {
			return nil, err
		}
		return makeDT('c', 1900, 1, 1, f[0], f[1], f[2], f[3], tz)
	}
	typeTimezone.new = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var off starlark.Value
		name := ""
		if err := starlark.UnpackArgs("timezone", args, kwargs, "offset", &off, "name?", &name); err != nil {
			return nil, err
		}
		d, ok := off.(timedelta)
		if !ok {
			return nil, Errorf("TypeError", "timezone() argument 1 must be datetime.timedelta, not %s", TypeName(off))
		}
		if d.us <= -usPerDay || d.us >= usPerDay {
			return nil, Errorf("ValueError", "offset must be a timedelta strictly between -timedelta(hours=24) and timedelta(hours=24).")
		}
		return &tzone{offset: d.us / 1000000, name: name}, nil
	}
	typeTimezone.attrs = map[string]starlark.Value{"utc": utc}
	typeTimedelta.attrs = map[string]starlark.Value{
		"min": timedelta{-maxTimedeltaDays * usPerDay}, "max": timedelta{maxTimedeltaDays*usPerDay + usPerDay - 1}, "resolution": timedelta{1},
	}
	typeDate.attrs = map[string]starlark.Value{
		"today": fn("today", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			n, _ := nowIn(nil)
			return &dt{kind: 'd', t: time.Date(n.t.Year(), n.t.Month(), n.t.Day(), 0, 0, 0, 0, time.UTC)}, nil
		}),
		"fromisoformat": fn("fromisoformat", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var s string
			if err := starlark.UnpackPositionalArgs("fromisoformat", args, kwargs, 1, &s); err != nil {
				return nil, err
			}
			return parseISO(s, 'd')
		}),
		"fromordinal": fn("fromordinal", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var n int
			if err := starlark.UnpackPositionalArgs("fromordinal", args, kwargs, 1, &n); err != nil {
				return nil, err
			}
			if n < 1 || n > 3652059 {
				return nil, Errorf("ValueError", "ordinal must be >= 1")
			}
			return &dt{kind: 'd', t: time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, n-1)}, nil
		}),
		"fromtimestamp": fn("fromtimestamp", fromTimestamp('d')),
	}
	typeDatetime.attrs = map[string]starlark.Value{
		"now": fn("now", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var z starlark.Value = starlark.None
			if err := starlark.UnpackArgs("now", args, kwargs, "tz?", &z); err != nil {
				return nil, err
			}
			return nowIn(z)
		}),
		"today": fn("today", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return nowIn(nil)
		}),
		"utcnow": fn("utcnow", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			n := time.Now().UTC().Truncate(time.Microsecond)
			return &dt{kind: 't', t: n}, nil
		}),
		"fromisoformat": fn("fromisoformat", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var s string
			if err := starlark.UnpackPositionalArgs("fromisoformat", args, kwargs, 1, &s); err != nil {
				return nil, err
			}
			return parseISO(s, 't')
		}),
		"strptime": fn("strptime", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var data, format starlark.Value
			if err := starlark.UnpackPositionalArgs("strptime", args, kwargs, 2, &data, &format); err != nil {
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
			var tz *tzone
			if r.gmtoff != nil {
				if r.gmtoffFraction != 0 {
					return nil, Errorf("ValueError", "a UTC offset with microseconds (%s) is not supported by this engine's datetime.timezone", s)
				}
				off := int64(*r.gmtoff)
				if off <= -86400 || off >= 86400 {
					td, _ := timedelta{off * 1000000}.PyRepr(th)
					return nil, Errorf("ValueError", "offset must be a timedelta strictly between -timedelta(hours=24) and timedelta(hours=24), not %s.", td)
				}
				tz = &tzone{offset: off}
				if r.tzname != nil {
					tz.name = *r.tzname
				}
				if tz.offset == 0 && tz.name == "" {
					tz = utc
				}
			}
			return makeDT('t', r.year, r.month, r.day, r.hour, r.minute, r.second, r.fraction, tz)
		}),
		"combine": fn("combine", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var d, c starlark.Value
			if err := starlark.UnpackPositionalArgs("combine", args, kwargs, 2, &d, &c); err != nil {
				return nil, err
			}
			dv, ok1 := d.(*dt)
			cv, ok2 := c.(*dt)
			if !ok1 || !ok2 || cv.kind != 'c' {
				return nil, Errorf("TypeError", "combine() arguments must be a date and a time")
			}
			return makeDT('t', dv.t.Year(), int(dv.t.Month()), dv.t.Day(), cv.t.Hour(), cv.t.Minute(), cv.t.Second(), cv.t.Nanosecond()/1000, cv.tz)
		}),
		"fromtimestamp": fn("fromtimestamp", fromTimestamp('t')),
		"utcfromtimestamp": fn("utcfromtimestamp", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var ts starlark.Value
			if err := starlark.UnpackPositionalArgs("utcfromtimestamp", args, kwargs, 1, &ts); err != nil {
				return nil, err
			}
			f, err := floatArg(ts)
			if err != nil {
				return nil, err
			}
			return &dt{kind: 't', t: time.Unix(0, int64(math.Round(f*1e6))*1000).UTC()}, nil
		}),
	}
	return starlark.StringDict{
		"date": typeDate, "datetime": typeDatetime, "time": typeTimeOfDay, "timedelta": typeTimedelta,
		"timezone": typeTimezone, "MINYEAR": starlark.MakeInt(1), "MAXYEAR": starlark.MakeInt(9999),
	}
}

// isoCalendarDate is the namedtuple date.isocalendar() returns.
var isoCalendarDate = func() starlark.Value {
	t, err := namedtuple(nil, nil, starlark.Tuple{starlark.String("IsoCalendarDate"), starlark.String("year week weekday")}, nil)
	if err != nil {
		panic(err)
	}
	t.(*Type).name = "datetime.IsoCalendarDate"
	return t
}()

var datetimeMembers = datetimeModule()

func init() {
	register("datetime", func() starlark.StringDict { return datetimeMembers })
}
