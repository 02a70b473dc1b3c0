package time

import (
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/pyexc"
)

// strftime and strptime as CPython 3.11 on Linux has them: time.strftime
// hands a struct tm to glibc's strftime (C locale), and both strptimes are
// _strptime.py, a regular expression built from the format.

var (
	WeekdayNames = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}
	MonthNames   = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
)

// PyWeekday is Monday=0 .. Sunday=6.
func PyWeekday(t time.Time) int { return (int(t.Weekday()) + 6) % 7 }

// Tm is a broken-down time as C's struct tm holds it: the full year,
// month 0-11, weekday with Sunday as 0, day of the year from 0, and
// glibc's zone fields (zone "" is a NULL tm_zone).
type Tm struct {
	Year, Mon, Mday, Hour, Min, Sec, Wday, Yday, Isdst int
	zone                                               string
	gmtoff                                             int
}

// tmOf breaks t down in its location, as localtime_r and gmtime_r do.
func tmOf(t time.Time) Tm {
	zone, off := t.Zone()
	isdst := 0
	if t.IsDST() {
		isdst = 1
	}
	return Tm{Year: t.Year(), Mon: int(t.Month()) - 1, Mday: t.Day(), Hour: t.Hour(), Min: t.Minute(), Sec: t.Second(),
		Wday: int(t.Weekday()), Yday: t.YearDay() - 1, Isdst: isdst, zone: zone, gmtoff: off}
}

// localTZNames are C's tzname: the local zone's standard and daylight
// saving names, and whether it has daylight saving time.
func localTZNames() (std, dst string, daylight bool, stdOff, dstOff int) {
	y := time.Now().Year()
	jan := time.Date(y, 1, 1, 0, 0, 0, 0, time.Local)
	jul := time.Date(y, 7, 1, 0, 0, 0, 0, time.Local)
	jn, jo := jan.Zone()
	ln, lo := jul.Zone()
	if jan.IsDST() && !jul.IsDST() { // southern hemisphere
		jn, jo, ln, lo = ln, lo, jn, jo
	}
	return jn, ln, jo != lo, jo, lo
}

// StrftimeLimit is how long a result CPython's time.strftime accepts for
// a format of n bytes: it retries with buffers of 1024, 2048, ... bytes
// until one reaches 256*n, and returns "" when the output never fit.
func StrftimeLimit(n int) int {
	size := 1024
	for size < 256*n {
		size *= 2
	}
	return size - 1
}

// StrftimeTM formats t as glibc's strftime does in the C locale, with
// its flags (- _ 0 ^ #), widths and E/O modifiers. directive, when not
// nil, renders a conversion first (datetime's %f, %z, %Z); it returns
// false to leave the conversion to strftime. The result is "" when it
// would be longer than CPython accepts.
func StrftimeTM(t Tm, format string, directive func(c byte) (string, bool)) string {
	f := &glibcFormatter{t: t, limit: StrftimeLimit(len(format)), directive: directive}
	s, ok := f.format(format)
	if !ok || s == "" {
		return ""
	}
	return s
}

type glibcFormatter struct {
	t         Tm
	limit     int
	directive func(c byte) (string, bool)
}

func (g *glibcFormatter) format(format string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b.WriteByte(c)
			if b.Len() > g.limit {
				return "", false
			}
			continue
		}
		start := i
		var pad byte
		upper, swapCase := false, false
	flags:
		for i+1 < len(format) {
			switch format[i+1] {
			case '_', '-', '0':
				pad = format[i+1]
			case '^':
				upper = true
			case '#':
				swapCase = true
			default:
				break flags
			}
			i++
		}
		width := -1
		if i+1 < len(format) && core.IsDigit(format[i+1]) {
			width = 0
			for i+1 < len(format) && core.IsDigit(format[i+1]) {
				if width < 1<<30 {
					width = width*10 + int(format[i+1]-'0')
				}
				i++
			}
		}
		var modifier byte
		if i+1 < len(format) && (format[i+1] == 'E' || format[i+1] == 'O') {
			modifier = format[i+1]
			i++
		}
		if i+1 >= len(format) {
			// A % (with flags) at the end of the format is copied.
			s := pcopy(format[start:], width, pad)
			if s == "" && width > g.limit {
				return "", false
			}
			b.WriteString(s)
			break
		}
		i++
		conv := format[i]
		if g.directive != nil && pad == 0 && width < 0 && modifier == 0 && !upper && !swapCase {
			if s, ok := g.directive(conv); ok {
				b.WriteString(s)
				continue
			}
		}
		if width > g.limit {
			return "", false
		}
		s, ok := g.conversion(conv, pad, width, modifier, upper, swapCase)
		if !ok {
			s = format[start : i+1]
			if upper {
				s = strings.ToUpper(s)
			}
			s = pcopy(s, width, pad)
		}
		b.WriteString(s)
		if b.Len() > g.limit {
			return "", false
		}
	}
	return b.String(), true
}

// pcopy pads s to width as glibc's add() does: with zeros for the 0 flag,
// spaces otherwise.
func pcopy(s string, width int, pad byte) string {
	if n := width - len(s); n > 0 {
		fill := " "
		if pad == '0' {
			fill = "0"
		}
		return strings.Repeat(fill, n) + s
	}
	return s
}

// number renders a numeric conversion: digits is its minimum width
// (zero-padded by default, space-padded with _, unpadded with -).
func number(v int64, digits, width int, pad byte) string {
	if width > digits {
		digits = width
	}
	num := strconv.FormatInt(v, 10)
	if pad != '-' {
		if padding := digits - len(num); padding > 0 {
			if pad == '_' {
				width -= padding
				if width < 0 {
					width = 0
				}
				return pcopy(strings.Repeat(" ", padding)+num, width, pad)
			}
			if v < 0 {
				return "-" + strings.Repeat("0", padding) + num[1:]
			}
			return strings.Repeat("0", padding) + num
		}
	}
	return pcopy(num, width, pad)
}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

// isoWeekDays is glibc's iso_week_days: the number of days from the
// first day of the first ISO week of this year to the year day yday.
func isoWeekDays(yday, wday int) int {
	const bigEnoughMultipleOf7 = (366/7 + 2) * 7
	return yday - (yday-wday+4+bigEnoughMultipleOf7)%7 + 4 - 1
}

// isoWeek returns the ISO year and week of t.
func (t Tm) isoWeek() (year, week int) {
	year = t.Year
	days := isoWeekDays(t.Yday, t.Wday)
	if days < 0 {
		year--
		n := 365
		if isLeap(year) {
			n = 366
		}
		days = isoWeekDays(t.Yday+n, t.Wday)
	} else {
		n := 365
		if isLeap(t.Year) {
			n = 366
		}
		if d := isoWeekDays(t.Yday-n, t.Wday); d >= 0 {
			year++
			days = d
		}
	}
	return year, days/7 + 1
}

var (
	cWeekdays = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	cZoneNone = "" // tm_zone NULL
)

// conversion renders one glibc conversion; ok is false for a bad format,
// which glibc copies as it stands.
func (g *glibcFormatter) conversion(c byte, pad byte, width int, modifier byte, upper, swapCase bool) (string, bool) {
	t := g.t
	lower := false
	str := func(s string) string {
		switch {
		case lower:
			s = strings.ToLower(s)
		case upper:
			s = strings.ToUpper(s)
		}
		return pcopy(s, width, pad)
	}
	sub := func(f string) string {
		inner := &glibcFormatter{t: t, limit: 1 << 30}
		s, _ := inner.format(f)
		if upper {
			s = strings.ToUpper(s)
		}
		return pcopy(s, width, pad)
	}
	num := func(digits int, v int) string { return number(int64(v), digits, width, pad) }
	spaceNum := func(digits int, v int) string {
		if pad != '0' && pad != '-' {
			pad = '_'
		}
		return number(int64(v), digits, width, pad)
	}
	noE := modifier != 'E'
	noO := modifier != 'O'
	switch c {
	case '%':
		return pcopy("%", width, pad), true
	case 'n':
		return pcopy("\n", width, pad), true
	case 't':
		return pcopy("\t", width, pad), true
	case 'a', 'A':
		if modifier != 0 {
			return "", false
		}
		if swapCase {
			upper = true
		}
		name := cWeekdays[t.Wday]
		if c == 'a' {
			name = name[:3]
		}
		return str(name), true
	case 'b', 'h', 'B':
		if !noE {
			return "", false
		}
		if swapCase {
			upper = true
		}
		name := MonthNames[t.Mon]
		if c != 'B' {
			name = name[:3]
		}
		return str(name), true
	case 'p', 'P':
		if swapCase || c == 'P' {
			upper, lower = false, true
		}
		if c == 'P' {
			lower = true
		}
		if t.Hour > 11 {
			return str("PM"), true
		}
		return str("AM"), true
	case 'c':
		if !noO {
			return "", false
		}
		return sub("%a %b %e %H:%M:%S %Y"), true
	case 'x', 'D':
		if c == 'x' && !noO || c == 'D' && modifier != 0 {
			return "", false
		}
		return sub("%m/%d/%y"), true
	case 'X', 'T':
		if c == 'X' && !noO {
			return "", false
		}
		return sub("%H:%M:%S"), true
	case 'F':
		if modifier != 0 {
			return "", false
		}
		return sub("%Y-%m-%d"), true
	case 'r':
		return sub("%I:%M:%S %p"), true
	case 'R':
		return sub("%H:%M"), true
	case 'C':
		return num(1, core.FloorDivInt(t.Year, 100)), true
	case 'y':
		return num(2, core.FloorMod(t.Year, 100)), true
	case 'Y':
		if !noO {
			return "", false
		}
		return num(1, t.Year), true
	case 'd':
		if !noE {
			return "", false
		}
		return num(2, t.Mday), true
	case 'e':
		if !noE {
			return "", false
		}
		return spaceNum(2, t.Mday), true
	case 'H':
		if !noE {
			return "", false
		}
		return num(2, t.Hour), true
	case 'k':
		if !noE {
			return "", false
		}
		return spaceNum(2, t.Hour), true
	case 'I', 'l':
		if !noE {
			return "", false
		}
		h := t.Hour % 12
		if h == 0 {
			h = 12
		}
		if c == 'l' {
			return spaceNum(2, h), true
		}
		return num(2, h), true
	case 'j':
		if !noE {
			return "", false
		}
		return num(3, t.Yday+1), true
	case 'm':
		if !noE {
			return "", false
		}
		return num(2, t.Mon+1), true
	case 'M':
		if !noE {
			return "", false
		}
		return num(2, t.Min), true
	case 'S':
		if !noE {
			return "", false
		}
		return num(2, t.Sec), true
	case 's':
		secs, ok := mktimeTM(t)
		if !ok {
			return "", false
		}
		return number(secs, 1, width, pad), true
	case 'u':
		return num(1, (t.Wday-1+7)%7+1), true
	case 'w':
		if !noE {
			return "", false
		}
		return num(1, t.Wday), true
	case 'U':
		if !noE {
			return "", false
		}
		return num(2, (t.Yday-t.Wday+7)/7), true
	case 'W':
		if !noE {
			return "", false
		}
		return num(2, (t.Yday-(t.Wday-1+7)%7+7)/7), true
	case 'V', 'g', 'G':
		if !noE {
			return "", false
		}
		y, w := t.isoWeek()
		switch c {
		case 'g':
			return num(2, core.FloorMod(y, 100)), true
		case 'G':
			return num(1, y), true
		}
		return num(2, w), true
	case 'z':
		if t.Isdst < 0 {
			return "", true
		}
		diff := t.gmtoff
		sign := "+"
		if diff < 0 {
			sign, diff = "-", -diff
		}
		diff /= 60
		return pcopy(sign, width, pad) + num(4, diff/60*100+diff%60), true
	case 'Z':
		if swapCase {
			upper, lower = false, true
		}
		zone := t.zone
		if zone == cZoneNone && t.Isdst >= 0 {
			std, dst, _, _, _ := localTZNames()
			zone = std
			if t.Isdst != 0 {
				zone = dst
			}
		}
		return str(zone), true
	}
	return "", false
}

// mktimeTM is glibc's mktime: t read as local time, out-of-range fields
// carried over. When tm_isdst (not -1) disagrees with the zone at that
// time, the offset of the nearest time that agrees is used, found as
// glibc searches for it, or else an hour's shift.
func mktimeTM(t Tm) (int64, bool) {
	if t.Year > 1<<31 || t.Year < -(1<<31) {
		return 0, false
	}
	lt := time.Date(t.Year, time.Month(t.Mon+1), t.Mday, t.Hour, t.Min, t.Sec, 0, time.Local)
	secs := lt.Unix()
	want := t.Isdst > 0
	if t.Isdst < 0 || lt.IsDST() == want {
		return secs, true
	}
	_, off := lt.Zone()
	const stride, durationMax = 601200, 536454000
	for delta := int64(stride); delta < durationMax/2+stride; delta += stride {
		for _, dir := range []int64{-1, 1} {
			probe := time.Unix(secs+dir*delta, 0).In(time.Local)
			if probe.IsDST() == want {
				_, other := probe.Zone()
				return secs + int64(off-other), true
			}
		}
	}
	if want {
		return secs - 3600, true
	}
	return secs + 3600, true
}

// Python's str.isspace characters, which \s matches in a str pattern.
const pyWhitespaceClass = `[\t\n\v\f\r\x1c-\x20\x85\xa0\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]`

func isPyWhitespace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// strptimeResult is what _strptime._strptime returns: the struct_time
// fields (month 1-12, weekday Monday=0, julian from 1, tz the isdst
// guess), the zone name and offset when parsed, and the fractions.
type strptimeResult struct {
	Year, Month, Day, Hour, Minute, Second, weekday, julian, tz int
	Tzname                                                      *string
	Gmtoff                                                      *int
	Fraction, GmtoffFraction                                    int
}

// strptimePatterns are _strptime.TimeRE's regular expressions, in Go's
// syntax (which for these patterns matches as Python's re does).
var strptimePatterns = map[byte]string{
	'd': `(?P<d>3[0-1]|[1-2]\d|0[1-9]|[1-9]| [1-9])`,
	'f': `(?P<f>[0-9]{1,6})`,
	'H': `(?P<H>2[0-3]|[0-1]\d|\d)`,
	'I': `(?P<I>1[0-2]|0[1-9]|[1-9])`,
	'G': `(?P<G>\d\d\d\d)`,
	'j': `(?P<j>36[0-6]|3[0-5]\d|[1-2]\d\d|0[1-9]\d|00[1-9]|[1-9]\d|0[1-9]|[1-9])`,
	'm': `(?P<m>1[0-2]|0[1-9]|[1-9])`,
	'M': `(?P<M>[0-5]\d|\d)`,
	'S': `(?P<S>6[0-1]|[0-5]\d|\d)`,
	'U': `(?P<U>5[0-3]|[0-4]\d|\d)`,
	'W': `(?P<W>5[0-3]|[0-4]\d|\d)`,
	'w': `(?P<w>[0-6])`,
	'u': `(?P<u>[1-7])`,
	'V': `(?P<V>5[0-3]|0[1-9]|[1-4]\d|\d)`,
	'y': `(?P<y>\d\d)`,
	'Y': `(?P<Y>\d\d\d\d)`,
	'z': `(?P<z>[+-]\d\d:?[0-5]\d(:?[0-5]\d(\.\d{1,6})?)?|(?-i:Z))`,
	'A': `(?P<A>wednesday|thursday|saturday|tuesday|monday|friday|sunday)`,
	'a': `(?P<a>mon|tue|wed|thu|fri|sat|sun)`,
	'B': `(?P<B>september|february|november|december|january|october|august|april|march|june|july|may)`,
	'b': `(?P<b>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)`,
	'p': `(?P<p>am|pm)`,
	'%': `%`,
}

// strptimeComposite are the C locale's %c, %x and %X as _strptime
// derives them.
var strptimeComposite = map[byte]string{
	'c': "%a %b %d %H:%M:%S %Y",
	'x': "%m/%d/%y",
	'X': "%H:%M:%S",
}

// strptimeRegexp builds the expression _strptime.TimeRE.pattern builds
// for format, with its errors. The Python form of the expression is
// tracked too, for the positions re.error reports.
func strptimeRegexp(format string) (string, error) {
	var b strings.Builder
	pyLen, groups := 0, 0
	defined := map[string]int{}
	var build func(f string) error
	build = func(f string) error {
		for i := 0; i < len(f); {
			r, size := utf8.DecodeRuneInString(f[i:])
			switch {
			case isPyWhitespace(r):
				for i < len(f) {
					r, size = utf8.DecodeRuneInString(f[i:])
					if !isPyWhitespace(r) {
						break
					}
					i += size
				}
				b.WriteString(pyWhitespaceClass + "+")
				pyLen += len(`\s+`)
				continue
			case r == '%':
				if i+1 >= len(f) {
					return core.Errorf(pyexc.ValueError, "stray %% in format '%s'", format)
				}
				k, ksize := utf8.DecodeRuneInString(f[i+1:])
				i += 1 + ksize
				if k < 0x80 && strings.ContainsRune(`\.^$*+?(){}[]|`, k) || isPyWhitespace(k) {
					// The escaped character or \s+ puts a backslash there.
					return core.Errorf(pyexc.ValueError, "'%%' is a bad directive in format '%s'", format)
				}
				if sub, ok := strptimeComposite[byte(k)]; ok && k < 0x80 {
					if err := build(sub); err != nil {
						return err
					}
					continue
				}
				p, ok := strptimePatterns[byte(k)]
				if k == 'Z' {
					p, ok = zonePattern(), true
				}
				if !ok || k >= 0x80 {
					return core.Errorf(pyexc.ValueError, "'%s' is a bad directive in format '%s'", string(k), format)
				}
				if k != '%' {
					name := string(k)
					groups++
					if was, dup := defined[name]; dup {
						return core.Errorf(pyexc.ReError, "redefinition of group name %s as group %d; was group %d at position %d", core.QuoteString(name), groups, was, pyLen+len("(?P<"))
					}
					defined[name] = groups
					if k == 'z' {
						groups += 2
					}
				}
				b.WriteString(p)
				pyLen += utf8.RuneCountInString(p)
				continue
			default:
				q := regexp.QuoteMeta(f[i : i+size])
				b.WriteString(q)
				pyLen += utf8.RuneCountInString(q)
			}
			i += size
		}
		return nil
	}
	if err := build(format); err != nil {
		return "", err
	}
	return b.String(), nil
}

// zonePattern is %Z's expression: utc, gmt and the local zone's names,
// longest first.
func zonePattern() string {
	std, dst, daylight, _, _ := localTZNames()
	names := []string{"utc", "gmt"}
	for _, n := range []string{strings.ToLower(std)} {
		if n != "utc" && n != "gmt" {
			names = append(names, n)
		}
	}
	if daylight {
		if n := strings.ToLower(dst); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	sort.SliceStable(names, func(i, j int) bool { return len(names[i]) > len(names[j]) })
	for i, n := range names {
		names[i] = regexp.QuoteMeta(n)
	}
	return "(?P<Z>" + strings.Join(names, "|") + ")"
}

// zoneSets are _strptime's LocaleTime.timezone: the names without and
// with daylight saving time.
func zoneSets() (noSaving, saving []string) {
	std, dst, daylight, _, _ := localTZNames()
	noSaving = []string{"utc", "gmt", strings.ToLower(std)}
	if daylight {
		saving = []string{strings.ToLower(dst)}
	}
	return noSaving, saving
}

var strptimeCache sync.Map // format -> *regexp.Regexp

// ParseStrptime is _strptime._strptime(data, format).
func ParseStrptime(data, format string) (*strptimeResult, error) {
	var re *regexp.Regexp
	if v, ok := strptimeCache.Load(format); ok {
		re = v.(*regexp.Regexp)
	} else {
		pat, err := strptimeRegexp(format)
		if err != nil {
			return nil, err
		}
		re, err = regexp.Compile(`(?i)\A(?:` + pat + `)`)
		if err != nil {
			return nil, core.Errorf(pyexc.ValueError, "strptime: format %s: %v", core.QuoteString(format), err)
		}
		if len(format) <= 200 {
			strptimeCache.Store(format, re)
		}
	}
	m := re.FindStringSubmatchIndex(data)
	if m == nil {
		return nil, core.Errorf(pyexc.ValueError, "time data %s does not match format %s", core.QuoteString(data), core.QuoteString(format))
	}
	if m[1] != len(data) {
		return nil, core.Errorf(pyexc.ValueError, "unconverted data remains: %s", data[m[1]:])
	}
	found := map[string]string{}
	var order []string
	for i, name := range re.SubexpNames() {
		if name != "" && m[2*i] >= 0 {
			found[name] = data[m[2*i]:m[2*i+1]]
			order = append(order, name)
		}
	}
	atoi := func(s string) int {
		n, _ := strconv.Atoi(strings.TrimSpace(s))
		return n
	}
	index := func(names []string, s string, abbrev bool) int {
		s = strings.ToLower(s)
		for i, n := range names {
			if abbrev {
				n = n[:3]
			}
			if strings.ToLower(n) == s {
				return i
			}
		}
		return -1
	}
	r := &strptimeResult{Month: 1, Day: 1, tz: -1}
	year, isoYear, isoWeek, weekOfYear, weekday, julian := -1, -1, -1, -1, -1, -1
	haveYear, haveISOYear, haveISOWeek, haveWeekOfYear, haveWeekday, haveJulian := false, false, false, false, false, false
	weekStartsMon := false
	for _, key := range order {
		v := found[key]
		switch key {
		case "y":
			year, haveYear = atoi(v), true
			if year <= 68 {
				year += 2000
			} else {
				year += 1900
			}
		case "Y":
			year, haveYear = atoi(v), true
		case "G":
			isoYear, haveISOYear = atoi(v), true
		case "m":
			r.Month = atoi(v)
		case "B":
			r.Month = index(MonthNames, v, false) + 1
		case "b":
			r.Month = index(MonthNames, v, true) + 1
		case "d":
			r.Day = atoi(v)
		case "H":
			r.Hour = atoi(v)
		case "I":
			r.Hour = atoi(v)
			switch strings.ToLower(found["p"]) {
			case "", "am":
				if r.Hour == 12 {
					r.Hour = 0
				}
			case "pm":
				if r.Hour != 12 {
					r.Hour += 12
				}
			}
		case "M":
			r.Minute = atoi(v)
		case "S":
			r.Second = atoi(v)
		case "f":
			r.Fraction = atoi(v + strings.Repeat("0", 6-len(v)))
		case "A":
			weekday, haveWeekday = index(WeekdayNames, v, false), true
		case "a":
			weekday, haveWeekday = index(WeekdayNames, v, true), true
		case "w":
			weekday, haveWeekday = atoi(v), true
			if weekday == 0 {
				weekday = 6
			} else {
				weekday--
			}
		case "u":
			weekday, haveWeekday = atoi(v)-1, true
		case "j":
			julian, haveJulian = atoi(v), true
		case "U", "W":
			weekOfYear, haveWeekOfYear = atoi(v), true
			weekStartsMon = key == "W"
		case "V":
			isoWeek, haveISOWeek = atoi(v), true
		case "z":
			off, frac, err := parseStrptimeOffset(v)
			if err != nil {
				return nil, err
			}
			r.Gmtoff, r.GmtoffFraction = &off, frac
		case "Z":
			zone := strings.ToLower(v)
			noSaving, saving := zoneSets()
			std, dst, daylight, _, _ := localTZNames()
			for value, set := range [][]string{noSaving, saving} {
				if slices.Contains(set, zone) {
					if !(std == dst && daylight && zone != "utc" && zone != "gmt") {
						r.tz = value
					}
					break
				}
			}
		}
	}
	if z, ok := found["Z"]; ok {
		r.Tzname = &z
	}
	if !haveYear && haveISOYear {
		if !haveISOWeek || !haveWeekday {
			return nil, core.Errorf(pyexc.ValueError, "ISO year directive '%%G' must be used with the ISO week directive '%%V' and a weekday directive ('%%A', '%%a', '%%w', or '%%u').")
		}
		if haveJulian {
			return nil, core.Errorf(pyexc.ValueError, "Day of the year directive '%%j' is not compatible with ISO year directive '%%G'. Use '%%Y' instead.")
		}
	} else if !haveWeekOfYear && haveISOWeek {
		if !haveWeekday {
			return nil, core.Errorf(pyexc.ValueError, "ISO week directive '%%V' must be used with the ISO year directive '%%G' and a weekday directive ('%%A', '%%a', '%%w', or '%%u').")
		}
		return nil, core.Errorf(pyexc.ValueError, "ISO week directive '%%V' is incompatible with the year directive '%%Y'. Use the ISO year '%%G' instead.")
	}
	leapYearFix := false
	if !haveYear && r.Month == 2 && r.Day == 29 {
		year, leapYearFix = 1904, true
	} else if !haveYear {
		year = 1900
	}
	if !haveJulian && haveWeekday {
		if haveWeekOfYear {
			first, err := pyDateOrdinal(year, 1, 1)
			if err != nil {
				return nil, err
			}
			julian, haveJulian = julianFromUW(first, weekOfYear, weekday, weekStartsMon), true
		} else if haveISOYear && haveISOWeek {
			var err error
			year, julian, err = julianFromV(isoYear, isoWeek, weekday+1)
			if err != nil {
				return nil, err
			}
			haveJulian = true
		}
		if haveJulian && julian <= 0 {
			year--
			if isLeap(year) {
				julian += 366
			} else {
				julian += 365
			}
		}
	}
	if !haveJulian {
		o, err := pyDateOrdinal(year, r.Month, r.Day)
		if err != nil {
			return nil, err
		}
		first, err := pyDateOrdinal(year, 1, 1)
		if err != nil {
			return nil, err
		}
		julian = int(o-first) + 1
	} else {
		first, err := pyDateOrdinal(year, 1, 1)
		if err != nil {
			return nil, err
		}
		y, mo, d, err := pyDateFromOrdinal(int64(julian-1) + first)
		if err != nil {
			return nil, err
		}
		year, r.Month, r.Day = y, mo, d
	}
	if !haveWeekday {
		o, err := pyDateOrdinal(year, r.Month, r.Day)
		if err != nil {
			return nil, err
		}
		weekday = int((o + 6) % 7)
	}
	if leapYearFix {
		year = 1900
	}
	r.Year, r.weekday, r.julian = year, weekday, julian
	return r, nil
}

// parseStrptimeOffset reads %z's text as _strptime does.
func parseStrptimeOffset(z string) (off, frac int, err error) {
	if z == "Z" {
		return 0, 0, nil
	}
	orig := z
	if z[3] == ':' {
		z = z[:3] + z[4:]
		if len(z) > 5 {
			if z[5] != ':' {
				return 0, 0, core.Errorf(pyexc.ValueError, "Inconsistent use of : in %s", orig)
			}
			z = z[:5] + z[6:]
		}
	}
	pyInt := func(s string) (int, error) {
		n, err := strconv.Atoi(s)
		if err != nil || s == "" || s[0] == '+' || s[0] == '-' {
			return 0, core.Errorf(pyexc.ValueError, "invalid literal for int() with base 10: %s", core.QuoteString(s))
		}
		return n, nil
	}
	hours, err := pyInt(z[1:3])
	if err != nil {
		return 0, 0, err
	}
	minutes, err := pyInt(z[3:5])
	if err != nil {
		return 0, 0, err
	}
	seconds := 0
	if len(z) > 5 {
		if seconds, err = pyInt(z[5:min(7, len(z))]); err != nil {
			return 0, 0, err
		}
	}
	off = hours*3600 + minutes*60 + seconds
	if len(z) > 8 {
		rem := z[8:]
		frac, _ = strconv.Atoi(rem + strings.Repeat("0", 6-len(rem)))
	}
	if z[0] == '-' {
		off, frac = -off, -frac
	}
	return off, frac, nil
}

// julianFromU_or_W is _strptime._calc_julian_from_U_or_W; first is the
// ordinal of January 1st.
func julianFromUW(first int64, weekOfYear, dayOfWeek int, weekStartsMon bool) int {
	firstWeekday := int((first + 6) % 7)
	if !weekStartsMon {
		firstWeekday = (firstWeekday + 1) % 7
		dayOfWeek = (dayOfWeek + 1) % 7
	}
	week0Length := (7 - firstWeekday) % 7
	if weekOfYear == 0 {
		return 1 + dayOfWeek - firstWeekday
	}
	return 1 + week0Length + 7*(weekOfYear-1) + dayOfWeek
}

// julianFromV is _strptime._calc_julian_from_V.
func julianFromV(isoYear, isoWeek, isoWeekday int) (int, int, error) {
	jan4, err := pyDateOrdinal(isoYear, 1, 4)
	if err != nil {
		return 0, 0, err
	}
	correction := int((jan4+6)%7) + 1 + 3
	ordinal := isoWeek*7 + isoWeekday - correction
	if ordinal < 1 {
		first, err := pyDateOrdinal(isoYear, 1, 1)
		if err != nil {
			return 0, 0, err
		}
		o := int64(ordinal) + first
		isoYear--
		prev, err := pyDateOrdinal(isoYear, 1, 1)
		if err != nil {
			return 0, 0, err
		}
		ordinal = int(o - prev)
	}
	return isoYear, ordinal, nil
}

// pyDateOrdinal is datetime.date(y, m, d).toordinal(), with date's errors.
func pyDateOrdinal(y, m, d int) (int64, error) {
	if y < 1 || y > 9999 {
		return 0, core.Errorf(pyexc.ValueError, "year %d is out of range", y)
	}
	if m < 1 || m > 12 {
		return 0, core.Errorf(pyexc.ValueError, "month must be in 1..12")
	}
	if d < 1 || d > DaysIn(y, m) {
		return 0, core.Errorf(pyexc.ValueError, "day is out of range for month")
	}
	return ToOrdinal(time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)), nil
}

// pyDateFromOrdinal is datetime.date.fromordinal(n).
func pyDateFromOrdinal(n int64) (int, int, int, error) {
	if n < 1 {
		return 0, 0, 0, core.Errorf(pyexc.ValueError, "ordinal must be >= 1")
	}
	t := time.Unix((n-719163)*86400, 0).UTC()
	if t.Year() > 9999 {
		return 0, 0, 0, core.Errorf(pyexc.ValueError, "year %d is out of range", t.Year())
	}
	return t.Year(), int(t.Month()), t.Day(), nil
}

// ToOrdinal is the proleptic Gregorian ordinal (0001-01-01 is 1).
func ToOrdinal(t time.Time) int64 {
	d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	return core.FloorDiv(d.Unix(), 86400) + 719163 // 1970-01-01 is day 719163
}

func DaysIn(y, m int) int {
	return time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
