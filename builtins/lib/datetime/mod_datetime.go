package datetime

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/star-agent/star-agent/builtins/core"
	pytime "github.com/star-agent/star-agent/builtins/lib/time"
	"github.com/star-agent/star-agent/builtins/pyexc"
	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// datetime: date, datetime, time, timedelta and timezone with CPython's
// reprs, str forms, arithmetic and comparisons. Values are immutable.

var (
	typeTimedelta = &core.Type{PyName: "datetime.timedelta", Base: core.TypeObject}
	typeDate      = &core.Type{PyName: "datetime.date", Base: core.TypeObject}
	typeDatetime  = &core.Type{PyName: "datetime.datetime", Base: typeDate}
	typeTimeOfDay = &core.Type{PyName: "datetime.time", Base: core.TypeObject}
	typeTimezone  = &core.Type{PyName: "datetime.timezone", Base: core.TypeObject}
)

const usPerDay = 86400 * 1000000

// maxTimedeltaDays is the largest timedelta in days, as in CPython.
const maxTimedeltaDays = 999999999

// maxDateDays is the span of days from date.min to date.max: a timedelta
// longer than that added to any date is out of its range.
const maxDateDays = 3652059

// timedelta is a duration of days and microseconds, 0 <= us < usPerDay
// (CPython's normal form, minus the split of us into seconds), with
// |days| <= maxTimedeltaDays.
type timedelta struct{ days, us int64 }

// tdMicros is the timedelta of us microseconds, for durations small
// enough that no range check is needed (|us| < 2**63).
func tdMicros(us int64) timedelta {
	days := core.FloorDiv(us, usPerDay)
	return timedelta{days, us - days*usPerDay}
}

var bigUsPerDay = big.NewInt(usPerDay)

// micros is the duration in microseconds.
func (d timedelta) micros() *big.Int {
	x := big.NewInt(d.days)
	x.Mul(x, bigUsPerDay)
	return x.Add(x, big.NewInt(d.us))
}

// tdFromMicros is the timedelta of x microseconds, or CPython's
// OverflowError when its days are out of range.
func tdFromMicros(x *big.Int) (timedelta, error) {
	days, us := new(big.Int).DivMod(x, bigUsPerDay, new(big.Int))
	if err := checkDays(days); err != nil {
		return timedelta{}, err
	}
	return timedelta{days.Int64(), us.Int64()}, nil
}

// checkDays is CPython's check of a timedelta's days: past a C int it
// fails converting them, past 999999999 in the constructor's check.
func checkDays(days *big.Int) error {
	if days.BitLen() > 31 || days.Cmp(big.NewInt(-1<<31)) == 0 {
		return core.Errorf(pyexc.OverflowError, "Python int too large to convert to C int")
	}
	if n := days.Int64(); n > maxTimedeltaDays || n < -maxTimedeltaDays {
		return core.Errorf(pyexc.OverflowError, "days=%d; must have magnitude <= %d", n, maxTimedeltaDays)
	}
	return nil
}

// roundRat rounds r to the nearest integer, halves to even, as CPython
// rounds the microseconds of a timedelta multiplied or divided by a float.
func roundRat(r *big.Rat) *big.Int {
	q, m := new(big.Int).DivMod(r.Num(), r.Denom(), new(big.Int))
	m.Lsh(m, 1)
	if c := m.Cmp(r.Denom()); c > 0 || c == 0 && q.Bit(0) == 1 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// floatRat is f as an exact fraction, or CPython's error for a float
// with none.
func floatRat(f float64) (*big.Rat, error) {
	if math.IsNaN(f) {
		return nil, core.Errorf(pyexc.ValueError, "cannot convert float NaN to integer")
	}
	if math.IsInf(f, 0) {
		return nil, core.Errorf(pyexc.OverflowError, "cannot convert float infinity to integer")
	}
	return new(big.Rat).SetFloat64(f), nil
}

func (d timedelta) parts() (days, secs, us int64) {
	return d.days, d.us / 1000000, d.us % 1000000
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
func (d timedelta) Truth() starlark.Bool                   { return d.days != 0 || d.us != 0 }
func (d timedelta) Hash() (uint32, error) {
	return uint32(d.us^d.us>>32) ^ uint32(d.days)*2654435761, nil
}
func (d timedelta) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	e := y.(timedelta)
	if d.days != e.days {
		return cmpInt(op, d.days, e.days), nil
	}
	return cmpInt(op, d.us, e.us), nil
}

// PyAbs is abs(d).
func (d timedelta) PyAbs() (starlark.Value, error) {
	if d.days < 0 {
		return d.neg()
	}
	return d, nil
}

func (d timedelta) neg() (starlark.Value, error) {
	return tdFromMicros(d.micros().Neg(d.micros()))
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
		return core.Fn(name, func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			f, _ := new(big.Rat).SetFrac(d.micros(), big.NewInt(1000000)).Float64()
			return starlark.Float(f), nil
		}), nil
	}
	return nil, core.Errorf(pyexc.AttributeError, "'datetime.timedelta' object has no attribute '%s'", name)
}
func (d timedelta) AttrNames() []string {
	return []string{"days", "microseconds", "seconds", "total_seconds"}
}

func (d timedelta) Unary(op syntax.Token) (starlark.Value, error) {
	switch op {
	case syntax.MINUS:
		return d.neg()
	case syntax.PLUS:
		return d, nil
	}
	return nil, nil
}

func (d timedelta) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	switch y := y.(type) {
	case timedelta:
		a, b := d.micros(), y.micros()
		if side == starlark.Right {
			a, b = b, a
		}
		switch op {
		case syntax.PLUS:
			return tdFromMicros(a.Add(a, b))
		case syntax.MINUS:
			return tdFromMicros(a.Sub(a, b))
		case syntax.SLASH:
			if b.Sign() == 0 {
				return nil, core.Errorf(pyexc.ZeroDivisionError, "division by zero")
			}
			f, _ := new(big.Rat).SetFrac(a, b).Float64()
			return starlark.Float(f), nil
		case syntax.SLASHSLASH:
			if b.Sign() == 0 {
				return nil, core.Errorf(pyexc.ZeroDivisionError, "integer division or modulo by zero")
			}
			return starlark.MakeBigInt(floorDiv(a, b)), nil
		case syntax.PERCENT:
			if b.Sign() == 0 {
				return nil, core.Errorf(pyexc.ZeroDivisionError, "integer division or modulo by zero")
			}
			q := floorDiv(a, b)
			return tdFromMicros(a.Sub(a, q.Mul(q, b)))
		}
	case starlark.Int, starlark.Float, starlark.Bool:
		var factor *big.Rat
		if n, ok := core.Int(y); ok {
			factor = new(big.Rat).SetInt(n.BigInt())
		} else {
			f, _ := core.FloatArg(y)
			r, err := floatRat(f)
			if err != nil {
				return nil, err
			}
			factor = r
		}
		switch {
		case op == syntax.STAR:
			r := new(big.Rat).SetInt(d.micros())
			return tdFromMicros(roundRat(r.Mul(r, factor)))
		case side == starlark.Left && (op == syntax.SLASH || op == syntax.SLASHSLASH):
			if factor.Sign() == 0 {
				return nil, core.Errorf(pyexc.ZeroDivisionError, "integer division or modulo by zero")
			}
			if op == syntax.SLASHSLASH {
				if n, ok := core.Int(y); ok {
					return tdFromMicros(floorDiv(d.micros(), n.BigInt()))
				}
				return nil, nil
			}
			r := new(big.Rat).SetInt(d.micros())
			return tdFromMicros(roundRat(r.Quo(r, factor)))
		}
	}
	return nil, nil
}

// floorDiv is Python's a // b for ints.
func floorDiv(a, b *big.Int) *big.Int {
	q, m := new(big.Int).QuoRem(a, b, new(big.Int))
	if m.Sign() != 0 && (m.Sign() < 0) != (b.Sign() < 0) {
		q.Sub(q, big.NewInt(1))
	}
	return q
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
	td, _ := tdMicros(z.offset * 1000000).PyRepr(nil)
	if z.name != "" {
		return "datetime.timezone(" + td + ", " + core.QuoteString(z.name) + ")", nil
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

func (v *dt) typ() *core.Type {
	switch v.kind {
	case 'd':
		return typeDate
	case 'c':
		return typeTimeOfDay
	}
	return typeDatetime
}

func (v *dt) Type() string           { return v.typ().PyName }
func (v *dt) PyType() starlark.Value { return v.typ() }
func (v *dt) Freeze()                {}
func (v *dt) Truth() starlark.Bool   { return true }
func (v *dt) Hash() (uint32, error) {
	return uint32(v.t.Unix()^v.t.Unix()>>32) ^ uint32(v.t.Nanosecond()), nil
}
func (v *dt) String() string { s, _ := v.PyStr(nil); return s }

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
	s := v.typ().PyName + "(" + strings.Join(parts, ", ")
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
func (v *dt) timetuple() pytime.Tm {
	t := v.t
	return pytime.Tm{Year: t.Year(), Mon: int(t.Month()) - 1, Mday: t.Day(), Hour: t.Hour(), Min: t.Minute(), Sec: t.Second(),
		Wday: int(t.Weekday()), Yday: t.YearDay() - 1, Isdst: -1}
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
	if err := core.Alloc(th, int64(pytime.StrftimeLimit(len(f)))); err != nil {
		return "", err
	}
	return pytime.StrftimeTM(v.timetuple(), f, nil), nil
}

func (v *dt) CompareSameType(op syntax.Token, y starlark.Value, depth int) (bool, error) {
	w := y.(*dt)
	if v.kind != w.kind {
		// A datetime is a date subclass, yet the two do not compare.
		switch op {
		case syntax.EQL:
			return false, nil
		case syntax.NEQ:
			return true, nil
		}
		if v.kind == 'c' || w.kind == 'c' {
			return false, core.Errorf(pyexc.TypeError, "'%s' not supported between instances of '%s' and '%s'", op, v.typ().PyName, w.typ().PyName)
		}
		// The datetime's comparison raises, whichever side it is on.
		return false, core.Errorf(pyexc.TypeError, "can't compare datetime.datetime to datetime.date")
	}
	if (v.tz == nil) != (w.tz == nil) && v.kind == 't' {
		if op == syntax.EQL || op == syntax.NEQ {
			return op == syntax.NEQ, nil
		}
		return false, core.Errorf(pyexc.TypeError, "can't compare offset-naive and offset-aware datetimes")
	}
	if v.kind == 'c' {
		return cmpInt(op, clockNanos(v.t), clockNanos(w.t)), nil
	}
	// Compare, not UnixNano, which holds only the years 1678 to 2262.
	return cmpInt(op, int64(v.t.Compare(w.t)), 0), nil
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
			// A date adds the days alone: date - timedelta(hours=1) is
			// the same date, as in CPython (self + timedelta(-other.days)).
			days, us := y.days, y.us
			if v.kind == 'd' {
				us = 0
			}
			if op == syntax.MINUS {
				days, us = -days, -us
			}
			if days > maxDateDays+1 || days < -maxDateDays-1 {
				return nil, core.Errorf(pyexc.OverflowError, "date value out of range")
			}
			t := v.t.Add(time.Duration(days) * 24 * time.Hour).Add(time.Duration(us) * time.Microsecond)
			if t.Year() < 1 || t.Year() > 9999 {
				return nil, core.Errorf(pyexc.OverflowError, "date value out of range")
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
				return nil, core.Errorf(pyexc.TypeError, "can't subtract offset-naive and offset-aware datetimes")
			}
			// In microseconds of Unix time: a time.Duration (nanoseconds)
			// holds only 292 years.
			us := (a.t.Unix()-b.t.Unix())*1000000 + int64(a.t.Nanosecond()-b.t.Nanosecond())/1000
			return tdMicros(us), nil
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
	method := func(f core.BuiltinFn) (starlark.Value, error) { return core.Fn(name, f), nil }
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
		return noArgs(func() (starlark.Value, error) { return starlark.MakeInt(pytime.PyWeekday(t)), nil })
	case name == "isoweekday" && dateAttr:
		return noArgs(func() (starlark.Value, error) { return starlark.MakeInt(pytime.PyWeekday(t) + 1), nil })
	case name == "toordinal" && dateAttr:
		return noArgs(func() (starlark.Value, error) { return starlark.MakeInt64(pytime.ToOrdinal(t)), nil })
	case name == "isocalendar" && dateAttr:
		return noArgs(func() (starlark.Value, error) {
			y, w := t.ISOWeek()
			return isoCalendarDate.(*core.Type).CallInternal(nil, starlark.Tuple{starlark.MakeInt(y), starlark.MakeInt(w), starlark.MakeInt(pytime.PyWeekday(t) + 1)}, nil)
		})
	case name == "ctime" && dateAttr:
		return noArgs(func() (starlark.Value, error) {
			return starlark.String(fmt.Sprintf("%s %s %2d %02d:%02d:%02d %04d", pytime.WeekdayNames[pytime.PyWeekday(t)][:3], pytime.MonthNames[t.Month()-1][:3], t.Day(), t.Hour(), t.Minute(), t.Second(), t.Year())), nil
		})
	case name == "timetuple" && dateAttr:
		return noArgs(func() (starlark.Value, error) {
			return &pytime.StructTime{Tuple: pytime.TmTuple(v.timetuple()), Zone: starlark.None, Gmtoff: starlark.None}, nil
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
					return nil, core.Errorf(pyexc.ValueError, "Unknown timespec value")
				}
			}
			return starlark.String(s), nil
		})
	case name == "strftime":
		return method(func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var f string
			if err := starlark.UnpackArgs(name, args, kwargs, "format", &f); err != nil {
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
				return nil, core.Errorf(pyexc.TypeError, "replace() takes keyword arguments only here")
			}
			for _, kv := range kwargs {
				k := string(kv[0].(starlark.String))
				if k == "tzinfo" {
					if kv[1] == starlark.None {
						tz = nil
					} else if z, ok := kv[1].(*tzone); ok {
						tz = z
					} else {
						return nil, core.Errorf(pyexc.TypeError, "tzinfo argument must be None or of a tzinfo subclass")
					}
					continue
				}
				if _, ok := f[k]; !ok {
					return nil, core.Errorf(pyexc.TypeError, "'%s' is an invalid keyword argument for replace()", k)
				}
				n, err := core.IndexInt(kv[1])
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
			us := new(big.Int).Mul(big.NewInt(u.Unix()), big.NewInt(1000000))
			us.Add(us, big.NewInt(int64(u.Nanosecond()/1000)))
			f, _ := new(big.Rat).SetFrac(us, big.NewInt(1000000)).Float64()
			return starlark.Float(f), nil
		})
	case name == "utcoffset" && timeAttr:
		return noArgs(func() (starlark.Value, error) {
			if v.tz == nil {
				return starlark.None, nil
			}
			return tdMicros(v.tz.offset * 1000000), nil
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
	return nil, core.Errorf(pyexc.AttributeError, "'%s' object has no attribute '%s'", v.typ().PyName, name)
}

// unixTime is the time of a POSIX timestamp, rounded to microseconds
// half to even, or CPython's error for a timestamp that no datetime can
// hold: NaN, beyond time_t, beyond the C library's years (struct tm), or
// beyond year 9999.
func unixTime(f float64) (time.Time, error) {
	if math.IsNaN(f) {
		return time.Time{}, core.Errorf(pyexc.ValueError, "Invalid value NaN (not a number)")
	}
	if !(f >= -(1<<63) && f < 1<<63) {
		return time.Time{}, core.Errorf(pyexc.OverflowError, "timestamp out of range for platform time_t")
	}
	secs := math.Floor(f)
	us := math.RoundToEven((f - secs) * 1e6)
	if us >= 1e6 {
		secs++
		us -= 1e6
	}
	t := time.Unix(int64(secs), int64(us)*1000)
	if y := int64(t.Year()) - 1900; y > math.MaxInt32 || y < math.MinInt32 {
		return time.Time{}, core.Errorf(pyexc.OSError, "[Errno 75] Value too large for defined data type")
	}
	if t.Year() < 1 || t.Year() > 9999 {
		// The local year, as CPython reports it.
		return time.Time{}, core.Errorf(pyexc.ValueError, "year %d is out of range", t.Local().Year())
	}
	return t, nil
}

func offsetIfAny(v *dt) string {
	if v.tz == nil {
		return ""
	}
	return offsetString(v.tz.offset, true)
}

func makeDT(kind byte, y, mo, d, h, mi, s, us int, tz *tzone) (starlark.Value, error) {
	if y < 1 || y > 9999 {
		return nil, core.Errorf(pyexc.ValueError, "year %d is out of range", y)
	}
	if mo < 1 || mo > 12 {
		return nil, core.Errorf(pyexc.ValueError, "month must be in 1..12")
	}
	if d < 1 || d > pytime.DaysIn(y, mo) {
		return nil, core.Errorf(pyexc.ValueError, "day is out of range for month")
	}
	if h < 0 || h > 23 {
		return nil, core.Errorf(pyexc.ValueError, "hour must be in 0..23")
	}
	if mi < 0 || mi > 59 {
		return nil, core.Errorf(pyexc.ValueError, "minute must be in 0..59")
	}
	if s < 0 || s > 59 {
		return nil, core.Errorf(pyexc.ValueError, "second must be in 0..59")
	}
	if us < 0 || us > 999999 {
		return nil, core.Errorf(pyexc.ValueError, "microsecond must be in 0..999999")
	}
	loc := time.UTC
	if tz != nil {
		loc = tz.loc()
	}
	return &dt{kind: kind, t: time.Date(y, time.Month(mo), d, h, mi, s, us*1000, loc), tz: tz}, nil
}

func intFields(name string, args starlark.Tuple, kwargs []starlark.Tuple, names []string, required int) ([]int, *tzone, error) {
	vals := make([]int, len(names))
	var tz *tzone
	set := func(i int, v starlark.Value) error {
		n, err := core.IndexInt(v)
		if err != nil {
			return core.Errorf(pyexc.TypeError, "'%s' object cannot be interpreted as an integer", core.TypeName(v))
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
			return core.Errorf(pyexc.TypeError, "tzinfo argument must be None or of a tzinfo subclass, not type '%s'", core.TypeName(v))
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
			return nil, nil, core.Errorf(pyexc.TypeError, "%s() takes at most %d arguments", name, len(names)+1)
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
			return nil, nil, core.Errorf(pyexc.TypeError, "'%s' is an invalid keyword argument for %s()", k, name)
		}
	}
	if got < required {
		return nil, nil, core.Errorf(pyexc.TypeError, "%s() missing required argument '%s' (pos %d)", name, names[got], got+1)
	}
	return vals, tz, nil
}

func parseISO(s string, kind byte) (starlark.Value, error) {
	bad := core.Errorf(pyexc.ValueError, "Invalid isoformat string: %s", core.QuoteString(s))
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
	// The clock is read through core.Now, so that a replayed execution
	// reads what it read the first time.
	nowIn := func(th *starlark.Thread, z starlark.Value) (*dt, error) {
		now := core.Now(th)
		if tz, ok := z.(*tzone); ok {
			return &dt{kind: 't', t: now.In(tz.loc()).Truncate(time.Microsecond), tz: tz}, nil
		}
		if z != nil && z != starlark.None {
			return nil, core.Errorf(pyexc.TypeError, "tzinfo argument must be None or of a tzinfo subclass")
		}
		return &dt{kind: 't', t: time.Date(now.Year(), now.Month(), now.Day(), now.Hour(), now.Minute(), now.Second(), now.Nanosecond()/1000*1000, time.UTC)}, nil
	}
	fromTimestamp := func(kind byte) core.BuiltinFn {
		return func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var ts, z starlark.Value = nil, starlark.None
			if err := starlark.UnpackArgs("fromtimestamp", args, kwargs, "timestamp", &ts, "tz?", &z); err != nil {
				return nil, err
			}
			f, err := core.FloatArg(ts)
			if err != nil {
				return nil, err
			}
			t, err := unixTime(f)
			if err != nil {
				return nil, err
			}
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
	typeTimedelta.New = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		names := []string{"days", "seconds", "microseconds", "milliseconds", "minutes", "hours", "weeks"}
		scale := []int64{usPerDay, 1e6, 1, 1e3, 60e6, 3600e6, 7 * usPerDay}
		// The sum is exact (ints as big ints, floats as fractions), then
		// rounded to microseconds half to even, as CPython rounds.
		total := new(big.Rat)
		seen := map[string]bool{}
		add := func(i int, v starlark.Value) error {
			var r *big.Rat
			if n, ok := core.Int(v); ok {
				r = new(big.Rat).SetInt(n.BigInt())
			} else {
				f, err := core.FloatArg(v)
				if err != nil {
					return core.Errorf(pyexc.TypeError, "unsupported type for timedelta %s component: %s", names[i], core.TypeName(v))
				}
				if r, err = floatRat(f); err != nil {
					return err
				}
			}
			total.Add(total, r.Mul(r, new(big.Rat).SetInt64(scale[i])))
			return nil
		}
		for i, a := range args {
			if i >= len(names) {
				return nil, core.Errorf(pyexc.TypeError, "timedelta takes at most 7 arguments")
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
						return nil, core.Errorf(pyexc.TypeError, "argument for timedelta given by name ('%s') and position", k)
					}
					found = true
					if err := add(i, kv[1]); err != nil {
						return nil, err
					}
				}
			}
			if !found {
				return nil, core.Errorf(pyexc.TypeError, "'%s' is an invalid keyword argument for __new__()", k)
			}
		}
		return tdFromMicros(roundRat(total))
	}
	typeDate.New = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		f, _, err := intFields("date", args, kwargs, []string{"year", "month", "day"}, 3)
		if err != nil {
			return nil, err
		}
		return makeDT('d', f[0], f[1], f[2], 0, 0, 0, 0, nil)
	}
	typeDatetime.New = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		f, tz, err := intFields("datetime", args, kwargs, []string{"year", "month", "day", "hour", "minute", "second", "microsecond"}, 3)
		if err != nil {
			return nil, err
		}
		return makeDT('t', f[0], f[1], f[2], f[3], f[4], f[5], f[6], tz)
	}
	typeTimeOfDay.New = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		f, tz, err := intFields("time", args, kwargs, []string{"hour", "minute", "second", "microsecond"}, 0)
		if err != nil {
			return nil, err
		}
		return makeDT('c', 1900, 1, 1, f[0], f[1], f[2], f[3], tz)
	}
	typeTimezone.New = func(th *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var off starlark.Value
		name := ""
		if err := starlark.UnpackArgs("timezone", args, kwargs, "offset", &off, "name?", &name); err != nil {
			return nil, err
		}
		d, ok := off.(timedelta)
		if !ok {
			return nil, core.Errorf(pyexc.TypeError, "timezone() argument 1 must be datetime.timedelta, not %s", core.TypeName(off))
		}
		if d.days < -1 || d.days >= 1 || d.days == -1 && d.us == 0 {
			td, _ := d.PyRepr(th)
			return nil, core.Errorf(pyexc.ValueError, "offset must be a timedelta strictly between -timedelta(hours=24) and timedelta(hours=24), not %s.", td)
		}
		return &tzone{offset: (d.days*usPerDay + d.us) / 1000000, name: name}, nil
	}
	typeTimezone.Attrs = map[string]starlark.Value{"utc": utc}
	typeTimedelta.Attrs = map[string]starlark.Value{
		"min": timedelta{-maxTimedeltaDays, 0}, "max": timedelta{maxTimedeltaDays, usPerDay - 1}, "resolution": timedelta{0, 1},
	}
	typeDate.Attrs = map[string]starlark.Value{
		"today": core.Fn("today", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			n, _ := nowIn(th, nil)
			return &dt{kind: 'd', t: time.Date(n.t.Year(), n.t.Month(), n.t.Day(), 0, 0, 0, 0, time.UTC)}, nil
		}),
		"fromisoformat": core.Fn("fromisoformat", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var s string
			if err := starlark.UnpackPositionalArgs("fromisoformat", args, kwargs, 1, &s); err != nil {
				return nil, err
			}
			return parseISO(s, 'd')
		}),
		"fromordinal": core.Fn("fromordinal", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var n int
			if err := starlark.UnpackPositionalArgs("fromordinal", args, kwargs, 1, &n); err != nil {
				return nil, err
			}
			if n < 1 || n > 3652059 {
				return nil, core.Errorf(pyexc.ValueError, "ordinal must be >= 1")
			}
			return &dt{kind: 'd', t: time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, n-1)}, nil
		}),
		"fromtimestamp": core.Fn("fromtimestamp", fromTimestamp('d')),
	}
	typeDatetime.Attrs = map[string]starlark.Value{
		"now": core.Fn("now", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var z starlark.Value = starlark.None
			if err := starlark.UnpackArgs("now", args, kwargs, "tz?", &z); err != nil {
				return nil, err
			}
			return nowIn(th, z)
		}),
		"today": core.Fn("today", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return nowIn(th, nil)
		}),
		"utcnow": core.Fn("utcnow", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			n := core.Now(th).UTC().Truncate(time.Microsecond)
			return &dt{kind: 't', t: n}, nil
		}),
		"fromisoformat": core.Fn("fromisoformat", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var s string
			if err := starlark.UnpackPositionalArgs("fromisoformat", args, kwargs, 1, &s); err != nil {
				return nil, err
			}
			return parseISO(s, 't')
		}),
		"strptime": core.Fn("strptime", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var data, format starlark.Value
			if err := starlark.UnpackPositionalArgs("strptime", args, kwargs, 2, &data, &format); err != nil {
				return nil, err
			}
			s, f, err := pytime.StrptimeArgs(data, format)
			if err != nil {
				return nil, err
			}
			r, err := pytime.ParseStrptime(s, f)
			if err != nil {
				return nil, err
			}
			var tz *tzone
			if r.Gmtoff != nil {
				if r.GmtoffFraction != 0 {
					return nil, core.Errorf(pyexc.ValueError, "a UTC offset with microseconds (%s) is not supported by this engine's datetime.timezone", s)
				}
				off := int64(*r.Gmtoff)
				if off <= -86400 || off >= 86400 {
					td, _ := tdMicros(off * 1000000).PyRepr(th)
					return nil, core.Errorf(pyexc.ValueError, "offset must be a timedelta strictly between -timedelta(hours=24) and timedelta(hours=24), not %s.", td)
				}
				tz = &tzone{offset: off}
				if r.Tzname != nil {
					tz.name = *r.Tzname
				}
				if tz.offset == 0 && tz.name == "" {
					tz = utc
				}
			}
			return makeDT('t', r.Year, r.Month, r.Day, r.Hour, r.Minute, r.Second, r.Fraction, tz)
		}),
		"combine": core.Fn("combine", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var d, c starlark.Value
			if err := starlark.UnpackPositionalArgs("combine", args, kwargs, 2, &d, &c); err != nil {
				return nil, err
			}
			dv, ok1 := d.(*dt)
			cv, ok2 := c.(*dt)
			if !ok1 || !ok2 || cv.kind != 'c' {
				return nil, core.Errorf(pyexc.TypeError, "combine() arguments must be a date and a time")
			}
			return makeDT('t', dv.t.Year(), int(dv.t.Month()), dv.t.Day(), cv.t.Hour(), cv.t.Minute(), cv.t.Second(), cv.t.Nanosecond()/1000, cv.tz)
		}),
		"fromtimestamp": core.Fn("fromtimestamp", fromTimestamp('t')),
		"utcfromtimestamp": core.Fn("utcfromtimestamp", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var ts starlark.Value
			if err := starlark.UnpackPositionalArgs("utcfromtimestamp", args, kwargs, 1, &ts); err != nil {
				return nil, err
			}
			f, err := core.FloatArg(ts)
			if err != nil {
				return nil, err
			}
			t, err := unixTime(f)
			if err != nil {
				return nil, err
			}
			return &dt{kind: 't', t: t.UTC()}, nil
		}),
	}
	limits := func(kind byte, lo, hi [7]int) (starlark.Value, starlark.Value) {
		a, _ := makeDT(kind, lo[0], lo[1], lo[2], lo[3], lo[4], lo[5], lo[6], nil)
		b, _ := makeDT(kind, hi[0], hi[1], hi[2], hi[3], hi[4], hi[5], hi[6], nil)
		return a, b
	}
	typeDate.Attrs["min"], typeDate.Attrs["max"] = limits('d', [7]int{1, 1, 1}, [7]int{9999, 12, 31})
	typeDate.Attrs["resolution"] = timedelta{1, 0}
	typeDatetime.Attrs["min"], typeDatetime.Attrs["max"] = limits('t', [7]int{1, 1, 1}, [7]int{9999, 12, 31, 23, 59, 59, 999999})
	typeDatetime.Attrs["resolution"] = timedelta{0, 1}
	if typeTimeOfDay.Attrs == nil {
		typeTimeOfDay.Attrs = map[string]starlark.Value{}
	}
	typeTimeOfDay.Attrs["min"], typeTimeOfDay.Attrs["max"] = limits('c', [7]int{1900, 1, 1}, [7]int{1900, 1, 1, 23, 59, 59, 999999})
	typeTimeOfDay.Attrs["resolution"] = timedelta{0, 1}
	return starlark.StringDict{
		"date": typeDate, "datetime": typeDatetime, "time": typeTimeOfDay, "timedelta": typeTimedelta,
		"timezone": typeTimezone, "MINYEAR": starlark.MakeInt(1), "MAXYEAR": starlark.MakeInt(9999),
	}
}

// isoCalendarDate is the namedtuple date.isocalendar() returns.
var isoCalendarDate = func() starlark.Value {
	t, err := core.Namedtuple(nil, nil, starlark.Tuple{starlark.String("IsoCalendarDate"), starlark.String("year week weekday")}, nil)
	if err != nil {
		panic(err)
	}
	t.(*core.Type).PyName = "datetime.IsoCalendarDate"
	return t
}()

var datetimeMembers = datetimeModule()

// members returns the datetime module's members: built once, so
// that its classes are the same objects in every import.
func members() starlark.StringDict { return datetimeMembers }

// Module returns a new datetime module.
func Module() *core.PyModule { return core.NewModule("datetime", members()) }
