package pyvalue

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/star-agent/star-agent/pyvalue/ucd"
)

// Repr renders a Go value as CPython's repr() renders the Python value it
// stands for, so that what the model reads about values looks like the
// Python it writes: JSON shapes (nil, bool, numbers, string, []any,
// map[string]any), the types of this package, []byte, *big.Int,
// time.Time, time.Duration and json.Number. A map[string]any has no
// order in Go, so its keys come sorted; a Dict keeps its order. Other
// slices and string-keyed maps render as lists and dicts; anything else
// as fmt.Print writes it. Values nested more than 1000 levels deep (which
// CPython could not print either) are cut short with "...".
func Repr(v any) string {
	var b strings.Builder
	writeRepr(&b, v, 0)
	return b.String()
}

// Str renders a value as Python's str(): a string as it is, anything else
// as Repr (str and repr agree for the types of exported values).
func Str(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return Repr(v)
}

const maxReprDepth = 1000

func writeRepr(b *strings.Builder, v any, depth int) {
	if depth > maxReprDepth {
		b.WriteString("...")
		return
	}
	switch v := v.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		if v {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case string:
		b.WriteString(quote(v))
	case int:
		b.WriteString(strconv.Itoa(v))
	case int64:
		b.WriteString(strconv.FormatInt(v, 10))
	case int32, int16, int8, uint, uint64, uint32, uint16, uint8:
		fmt.Fprint(b, v)
	case *big.Int:
		if v == nil {
			b.WriteString("None")
			return
		}
		b.WriteString(v.String())
	case float64:
		b.WriteString(formatFloat(v))
	case float32:
		b.WriteString(formatFloat(float64(v)))
	case json.Number:
		if n, err := decodeNumber(v); err == nil {
			writeRepr(b, n, depth)
		} else {
			b.WriteString(string(v))
		}
	case []byte:
		b.WriteString(quoteBytes(v))
	case []any:
		writeSeq(b, "[", v, "]", depth)
	case Tuple:
		if len(v) == 1 {
			writeSeq(b, "(", v, ",)", depth)
		} else {
			writeSeq(b, "(", v, ")", depth)
		}
	case Set:
		if len(v) == 0 {
			b.WriteString("set()")
		} else {
			writeSeq(b, "{", v, "}", depth)
		}
	case FrozenSet:
		if len(v) == 0 {
			b.WriteString("frozenset()")
		} else {
			writeSeq(b, "frozenset({", v, "})", depth)
		}
	case map[string]any:
		b.WriteByte('{')
		for i, k := range slices.Sorted(maps.Keys(v)) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(quote(k))
			b.WriteString(": ")
			writeRepr(b, v[k], depth+1)
		}
		b.WriteByte('}')
	case Dict:
		b.WriteByte('{')
		for i, it := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, it.Key, depth+1)
			b.WriteString(": ")
			writeRepr(b, it.Value, depth+1)
		}
		b.WriteByte('}')
	case Opaque:
		b.WriteString(v.Repr)
	case time.Time:
		b.WriteString(reprDateTime(v))
	case Date:
		b.WriteString(reprDate(v))
	case Time:
		b.WriteString(reprTime(v))
	case time.Duration:
		b.WriteString(reprDuration(v))
	default:
		writeReflect(b, v, depth)
	}
}

func writeSeq(b *strings.Builder, open string, v []any, close string, depth int) {
	b.WriteString(open)
	for i, x := range v {
		if i > 0 {
			b.WriteString(", ")
		}
		writeRepr(b, x, depth+1)
	}
	b.WriteString(close)
}

// writeReflect renders other slices as lists and maps with string keys as
// dicts; anything else as fmt.Print writes it.
func writeReflect(b *strings.Builder, v any, depth int) {
	rv := reflect.ValueOf(v)
	switch {
	case rv.Kind() == reflect.Slice && !rv.IsNil(), rv.Kind() == reflect.Array:
		list := make([]any, rv.Len())
		for i := range list {
			list[i] = rv.Index(i).Interface()
		}
		writeSeq(b, "[", list, "]", depth)
	case rv.Kind() == reflect.Map && rv.Type().Key().Kind() == reflect.String && !rv.IsNil():
		m := make(map[string]any, rv.Len())
		for it := rv.MapRange(); it.Next(); {
			m[it.Key().String()] = it.Value().Interface()
		}
		writeRepr(b, m, depth)
	default:
		fmt.Fprint(b, v)
	}
}

// formatFloat is Python's repr of a float: the shortest digits that read
// back the same, positional from 1e-4 to 1e16, with an exponent of at
// least two digits otherwise.
func formatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	if a := math.Abs(f); a == 0 || (a >= 1e-4 && a < 1e16) {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	// Python writes exponents with at least two digits: 1e+16, 1e-05.
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	sign, digits := exp[:1], strings.TrimLeft(exp[1:], "0")
	if len(digits) < 2 {
		digits = strings.Repeat("0", 2-len(digits)) + digits
	}
	return mant + "e" + sign + digits
}

// quote quotes s the way Python's repr does: single quotes unless the
// string holds a single quote and no double quote; characters Python
// does not print (controls, format characters, separators other than the
// space, unassigned code points) escaped. A byte that is not UTF-8, which
// no Python str holds, is written as the surrogate \udcXX that Python's
// surrogateescape decodes it to.
//
// The engine's repr (builtins/core) has its own loop: it cuts at a size
// limit as it goes and shows a stray byte as \xNN; both judge what is
// printable by the same Unicode 14 tables (ucd.Printable).
func quote(s string) string {
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(q)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\udc%02x`, s[i])
		case r == rune(q) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x7f && r >= 0x20:
			b.WriteByte(byte(r))
		case r < 0x100 && !ucd.Printable(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000 && !ucd.Printable(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		case !ucd.Printable(r):
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			b.WriteRune(r)
		}
		i += size
	}
	b.WriteByte(q)
	return b.String()
}

// quoteBytes is Python's repr of bytes: b'...', ASCII printable bytes as
// they are, others as \xNN.
func quoteBytes(p []byte) string {
	q := byte('\'')
	if slices.Contains(p, '\'') && !slices.Contains(p, '"') {
		q = '"'
	}
	var b strings.Builder
	b.Grow(len(p) + 3)
	b.WriteByte('b')
	b.WriteByte(q)
	for _, c := range p {
		switch {
		case c == q || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// reprDateTime is the repr of a datetime.datetime: trailing zero seconds
// and microseconds left out, as CPython does, and a tzinfo unless the
// time is Naive.
func reprDateTime(t time.Time) string {
	s := fmt.Sprintf("datetime.datetime(%d, %d, %d, %s", t.Year(), t.Month(), t.Day(), clock(t))
	if t.Location() != Naive {
		s += ", tzinfo=" + reprZone(t)
	}
	return s + ")"
}

// clock is the hour, minute, second and microsecond arguments of a repr,
// the last ones left out when zero.
func clock(t time.Time) string {
	h, m, sec, us := t.Hour(), t.Minute(), t.Second(), t.Nanosecond()/1000
	switch {
	case us != 0:
		return fmt.Sprintf("%d, %d, %d, %d", h, m, sec, us)
	case sec != 0:
		return fmt.Sprintf("%d, %d, %d", h, m, sec)
	}
	return fmt.Sprintf("%d, %d", h, m)
}

// reprZone is the repr of the datetime.timezone a time's UTC offset makes.
func reprZone(t time.Time) string {
	_, off := t.Zone()
	if off == 0 {
		return "datetime.timezone.utc"
	}
	return "datetime.timezone(" + reprDuration(time.Duration(off)*time.Second) + ")"
}

// reprDate is the repr of a datetime.date given in ISO form.
func reprDate(d Date) string {
	t, err := time.Parse("2006-01-02", string(d))
	if err != nil {
		return "datetime.date.fromisoformat(" + quote(string(d)) + ")"
	}
	return fmt.Sprintf("datetime.date(%d, %d, %d)", t.Year(), t.Month(), t.Day())
}

// reprTime is the repr of a datetime.time given in ISO form.
func reprTime(v Time) string {
	for _, layout := range []string{"15:04:05.999999", "15:04", "15:04:05.999999-07:00", "15:04-07:00", "15:04:05.999999-07:00:00"} {
		t, err := time.Parse(layout, string(v))
		if err != nil {
			continue
		}
		s := "datetime.time(" + clock(t)
		if strings.Contains(layout, "-07") {
			s += ", tzinfo=" + reprZone(t)
		}
		return s + ")"
	}
	return "datetime.time.fromisoformat(" + quote(string(v)) + ")"
}

// reprDuration is the repr of a datetime.timedelta: days, seconds and
// microseconds normalised as Python does (only days negative), zero
// fields left out.
func reprDuration(d time.Duration) string {
	us := d.Microseconds()
	days := us / (86400 * 1e6)
	rest := us - days*86400*1e6
	if rest < 0 {
		days--
		rest += 86400 * 1e6
	}
	var parts []string
	if days != 0 {
		parts = append(parts, fmt.Sprintf("days=%d", days))
	}
	if s := rest / 1e6; s != 0 {
		parts = append(parts, fmt.Sprintf("seconds=%d", s))
	}
	if u := rest % 1e6; u != 0 {
		parts = append(parts, fmt.Sprintf("microseconds=%d", u))
	}
	if len(parts) == 0 {
		return "datetime.timedelta(0)"
	}
	return "datetime.timedelta(" + strings.Join(parts, ", ") + ")"
}
