package builtins

import (
	"fmt"
	"strings"
	"time"

	"go.starlark.net/starlark"
)

// time, and the strftime/strptime shared with datetime.

var (
	weekdayNames = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}
	monthNames   = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
)

// pyWeekday is Monday=0 .. Sunday=6.
func pyWeekday(t time.Time) int { return (int(t.Weekday()) + 6) % 7 }

// strftime formats t with C/Python directives. hasTZ says whether the
// value is aware (so %z and %Z are not empty).
func strftime(t time.Time, format string, hasTZ bool) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 == len(format) {
			b.WriteByte(c)
			continue
		}
		i++
		switch format[i] {
		case 'Y':
			b.WriteString(fmt.Sprintf("%d", t.Year()))
		case 'y':
			b.WriteString(fmt.Sprintf("%02d", t.Year()%100))
		case 'm':
			b.WriteString(fmt.Sprintf("%02d", int(t.Month())))
		case 'd':
			b.WriteString(fmt.Sprintf("%02d", t.Day()))
		case 'e':
			b.WriteString(fmt.Sprintf("%2d", t.Day()))
		case 'H':
			b.WriteString(fmt.Sprintf("%02d", t.Hour()))
		case 'I':
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			b.WriteString(fmt.Sprintf("%02d", h))
		case 'M':
			b.WriteString(fmt.Sprintf("%02d", t.Minute()))
		case 'S':
			b.WriteString(fmt.Sprintf("%02d", t.Second()))
		case 'f':
			b.WriteString(fmt.Sprintf("%06d", t.Nanosecond()/1000))
		case 'p':
			if t.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 'A':
			b.WriteString(weekdayNames[pyWeekday(t)])
		case 'a':
			b.WriteString(weekdayNames[pyWeekday(t)][:3])
		case 'B':
			b.WriteString(monthNames[t.Month()-1])
		case 'b', 'h':
			b.WriteString(monthNames[t.Month()-1][:3])
		case 'j':
			b.WriteString(fmt.Sprintf("%03d", t.YearDay()))
		case 'w':
			b.WriteString(fmt.Sprintf("%d", int(t.Weekday())))
		case 'u':
			b.WriteString(fmt.Sprintf("%d", pyWeekday(t)+1))
		case 'U':
			b.WriteString(fmt.Sprintf("%02d", (t.YearDay()+6-int(t.Weekday()))/7))
		case 'W':
			b.WriteString(fmt.Sprintf("%02d", (t.YearDay()+6-pyWeekday(t))/7))
		case 'V':
			_, w := t.ISOWeek()
			b.WriteString(fmt.Sprintf("%02d", w))
		case 'G':
			y, _ := t.ISOWeek()
			b.WriteString(fmt.Sprintf("%d", y))
		case 'z':
			if hasTZ {
				_, off := t.Zone()
				sign := '+'
				if off < 0 {
					sign, off = '-', -off
				}
				b.WriteString(fmt.Sprintf("%c%02d%02d", sign, off/3600, off/60%60))
				if off%60 != 0 {
					b.WriteString(fmt.Sprintf("%02d", off%60))
				}
			}
		case 'Z':
			if hasTZ {
				b.WriteString(tzName(t))
			}
		case 'c':
			b.WriteString(strftime(t, "%a %b %e %H:%M:%S %Y", hasTZ))
		case 'x':
			b.WriteString(strftime(t, "%m/%d/%y", hasTZ))
		case 'X':
			b.WriteString(strftime(t, "%H:%M:%S", hasTZ))
		case 'D':
			b.WriteString(strftime(t, "%m/%d/%y", hasTZ))
		case 'F':
			b.WriteString(strftime(t, "%Y-%m-%d", hasTZ))
		case 'T':
			b.WriteString(strftime(t, "%H:%M:%S", hasTZ))
		case 'R':
			b.WriteString(strftime(t, "%H:%M", hasTZ))
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(format[i])
		}
	}
	return b.String()
}

func tzName(t time.Time) string {
	name, off := t.Zone()
	if name == "" || name == "UTC" && off == 0 {
		if off == 0 {
			return "UTC"
		}
		sign := '+'
		if off < 0 {
			sign, off = '-', -off
		}
		s := fmt.Sprintf("UTC%c%02d:%02d", sign, off/3600, off/60%60)
		if off%60 != 0 {
			s += fmt.Sprintf(":%02d", off%60)
		}
		return s
	}
	return name
}

// strptime parses s with a Python format. It returns the time (UTC if no
// offset was parsed) and whether an offset was present.
func strptime(s, format string) (time.Time, bool, error) {
	year, month, day, hour, min, sec, usec := 1900, 1, 1, 0, 0, 0, 0
	pm, hasPM := false, false
	var loc *time.Location
	fail := func() (time.Time, bool, error) {
		return time.Time{}, false, Errorf("ValueError", "time data %s does not match format %s", quoteString(s), quoteString(format))
	}
	j := 0
	num := func(maxDigits int) (int, bool) {
		k := j
		for k < len(s) && k-j < maxDigits && isDigit(s[k]) {
			k++
		}
		if k == j {
			return 0, false
		}
		n := 0
		for _, c := range s[j:k] {
			n = n*10 + int(c-'0')
		}
		j = k
		return n, true
	}
	name := func(names []string, abbrev bool) (int, bool) {
		for i, n := range names {
			if abbrev {
				n = n[:3]
			}
			if len(s)-j >= len(n) && strings.EqualFold(s[j:j+len(n)], n) {
				j += len(n)
				return i, true
			}
		}
		return 0, false
	}
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 == len(format) {
			if isPySpace(rune(c)) {
				for j < len(s) && isPySpace(rune(s[j])) {
					j++
				}
				continue
			}
			if j >= len(s) || s[j] != c {
				return fail()
			}
			j++
			continue
		}
		i++
		var ok bool
		switch format[i] {
		case 'Y':
			year, ok = num(4)
		case 'y':
			year, ok = num(2)
			if year < 69 {
				year += 2000
			} else {
				year += 1900
			}
		case 'm':
			month, ok = num(2)
		case 'd':
			day, ok = num(2)
		case 'H':
			hour, ok = num(2)
		case 'I':
			hour, ok = num(2)
		case 'M':
			min, ok = num(2)
		case 'S':
			sec, ok = num(2)
		case 'f':
			start := j
			usec, ok = num(6)
			for k := j - start; k < 6; k++ {
				usec *= 10
			}
		case 'j':
			var yd int
			yd, ok = num(3)
			day = yd
			month = 1
		case 'p':
			hasPM = true
			if len(s)-j >= 2 {
				switch strings.ToUpper(s[j : j+2]) {
				case "AM":
					ok = true
				case "PM":
					ok, pm = true, true
				}
				j += 2
			}
		case 'B':
			var m int
			m, ok = name(monthNames, false)
			month = m + 1
		case 'b', 'h':
			var m int
			m, ok = name(monthNames, true)
			month = m + 1
		case 'A':
			_, ok = name(weekdayNames, false)
		case 'a':
			_, ok = name(weekdayNames, true)
		case 'z':
			if j < len(s) && s[j] == 'Z' {
				j++
				loc, ok = time.UTC, true
				break
			}
			if j < len(s) && (s[j] == '+' || s[j] == '-') {
				sign := 1
				if s[j] == '-' {
					sign = -1
				}
				j++
				h, ok1 := num(2)
				if j < len(s) && s[j] == ':' {
					j++
				}
				m, ok2 := num(2)
				ok = ok1 && ok2
				loc = time.FixedZone("", sign*(h*3600+m*60))
			}
		case 'Z':
			for _, z := range []string{"UTC", "GMT"} {
				if strings.HasPrefix(s[j:], z) {
					j += len(z)
					ok, loc = true, time.UTC
				}
			}
		case '%':
			ok = j < len(s) && s[j] == '%'
			j++
		default:
			return time.Time{}, false, Errorf("ValueError", "'%c' is a bad directive in format %s", format[i], quoteString("%"+string(format[i])))
		}
		if !ok {
			return fail()
		}
	}
	if j != len(s) {
		return time.Time{}, false, Errorf("ValueError", "unconverted data remains: %s", s[j:])
	}
	if hasPM {
		if hour == 12 {
			hour = 0
		}
		if pm {
			hour += 12
		}
	}
	if month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 61 {
		return fail()
	}
	aware := loc != nil
	if loc == nil {
		loc = time.UTC
	}
	t := time.Date(year, time.Month(month), day, hour, min, sec, usec*1000, loc)
	if t.Day() != day && strings.Contains(format, "%d") {
		return time.Time{}, false, Errorf("ValueError", "day is out of range for month")
	}
	return t, aware, nil
}

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

var structTimeFields = []string{"tm_year", "tm_mon", "tm_mday", "tm_hour", "tm_min", "tm_sec", "tm_wday", "tm_yday", "tm_isdst"}

func timeModule() starlark.StringDict {
	stType, _ := namedtuple(nil, nil, starlark.Tuple{starlark.String("time.struct_time"), starlark.NewList(stringValues(structTimeFields))}, nil)
	structTime := func(t time.Time) (starlark.Value, error) {
		vals := []int{t.Year(), int(t.Month()), t.Day(), t.Hour(), t.Minute(), t.Second(), pyWeekday(t), t.YearDay(), 0}
		args := make(starlark.Tuple, len(vals))
		for i, v := range vals {
			args[i] = starlark.MakeInt(v)
		}
		return starlark.Call(nil, stType, args, nil)
	}
	timeArg := func(args starlark.Tuple, i int) (time.Time, error) {
		if len(args) <= i || args[i] == starlark.None {
			return time.Now(), nil
		}
		switch v := args[i].(type) {
		case *namedtupleValue:
			n := make([]int, 6)
			for k := range n {
				n[k], _ = toInt(v.Tuple[k])
			}
			return time.Date(n[0], time.Month(n[1]), n[2], n[3], n[4], n[5], 0, time.Local), nil
		}
		f, err := floatArg(args[i])
		if err != nil {
			return time.Time{}, err
		}
		return time.Unix(0, int64(f*1e9)), nil
	}
	start := time.Now()
	return starlark.StringDict{
		"time": fn("time", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			return starlark.Float(float64(time.Now().UnixNano()) / 1e9), nil
		}),
		"time_ns": fn("time_ns", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			return starlark.MakeInt64(time.Now().UnixNano()), nil
		}),
		"perf_counter": fn("perf_counter", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			return starlark.Float(time.Since(start).Seconds()), nil
		}),
		"perf_counter_ns": fn("perf_counter_ns", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			return starlark.MakeInt64(time.Since(start).Nanoseconds()), nil
		}),
		"monotonic": fn("monotonic", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			return starlark.Float(time.Since(start).Seconds()), nil
		}),
		"process_time": fn("process_time", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			return starlark.Float(time.Since(start).Seconds()), nil
		}),
		"sleep": fn("sleep", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var x starlark.Value
			if err := starlark.UnpackPositionalArgs("sleep", args, kwargs, 1, &x); err != nil {
				return nil, err
			}
			f, err := floatArg(x)
			if err != nil {
				return nil, err
			}
			if f < 0 {
				return nil, Errorf("ValueError", "sleep length must be non-negative")
			}
			return starlark.None, sleep(th, time.Duration(f*1e9))
		}),
		"strftime": fn("strftime", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var format string
			var t starlark.Value = starlark.None
			if err := starlark.UnpackPositionalArgs("strftime", args, kwargs, 1, &format, &t); err != nil {
				return nil, err
			}
			tm, err := timeArg(starlark.Tuple{t}, 0)
			if err != nil {
				return nil, err
			}
			return starlark.String(strftime(tm, format, true)), nil
		}),
		"localtime": fn("localtime", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			t, err := timeArg(args, 0)
			if err != nil {
				return nil, err
			}
			return structTime(t.Local())
		}),
		"gmtime": fn("gmtime", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			t, err := timeArg(args, 0)
			if err != nil {
				return nil, err
			}
			return structTime(t.UTC())
		}),
		"ctime": fn("ctime", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			t, err := timeArg(args, 0)
			if err != nil {
				return nil, err
			}
			return starlark.String(strftime(t.Local(), "%c", false)), nil
		}),
		"strptime": fn("strptime", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var s, format string
			format = "%a %b %d %H:%M:%S %Y"
			if err := starlark.UnpackPositionalArgs("strptime", args, kwargs, 1, &s, &format); err != nil {
				return nil, err
			}
			t, _, err := strptime(s, format)
			if err != nil {
				return nil, err
			}
			return structTime(t)
		}),
	}
}

func stringValues(ss []string) []starlark.Value {
	out := make([]starlark.Value, len(ss))
	for i, s := range ss {
		out[i] = starlark.String(s)
	}
	return out
}

func init() { register("time", timeModule) }
