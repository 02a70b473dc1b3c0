package builtins

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"os"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/internal/cpythontest"
	"github.com/star-agent/star-agent/pyvalue/ucd"
)

var updateUnicode = flag.Bool("update-unicode", false, "regenerate ucd/unicode_tables.go from CPython's stored Unicode facts, testdata/cpython/unicode.json.gz (add -update to remake that from python3 first)")

// unicodeDump prints, as one JSON object, what CPython knows of every code
// point: runs of equal property keys, case mappings that are not the
// identity, numeric characters that are not decimal digits, and names.
const unicodeDump = `
import json, sys, unicodedata as u
from fractions import Fraction

def key(c):
    ch = chr(c)
    cat = u.category(ch)
    cased = ch.isupper() or ch.islower() or cat == "Lt"
    if cased:
        ignorable = (ch + "\u03a3").lower()[-1] == "\u03c3"
    else:
        ignorable = ("A\u03a3" + ch + "A").lower()[1] == "\u03c3"
    bits = [ch.isupper(), ch.islower(), cat == "Lt", ch.isalpha(), ch.isdecimal(), ch.isdigit(),
            ch.isnumeric(), ch.isspace(), ch.isprintable(), ch.isidentifier(), ("a" + ch).isidentifier(),
            ignorable]
    return cat + "".join("1" if b else "0" for b in bits)

runs, last = [], None
cases, numeric, names = [], [], []
for c in range(0x110000):
    if 0xD800 <= c <= 0xDFFF:
        continue
    k = key(c)
    if k != last:
        runs.append([c, k])
        last = k
    ch = chr(c)
    m = [ch.upper(), ch.lower(), ch.title(), ch.casefold()]
    if any(x != ch for x in m):
        cases.append([c] + m)
    n = u.numeric(ch, None)
    if n is not None and u.category(ch) != "Nd":
        f = Fraction(n).limit_denominator(1000)
        assert float(f) == n or f.numerator / f.denominator == n
        numeric.append([c, f.numerator, f.denominator, u.digit(ch, -1)])
    name = u.name(ch, "")
    if name:
        names.append([c, name])
json.dump({"version": u.unidata_version, "runs": runs, "cases": cases, "numeric": numeric, "names": names}, sys.stdout)
`

type unicodeFacts struct {
	Version string  `json:"version"`
	Runs    [][]any `json:"runs"`    // [first code point, key]
	Cases   [][]any `json:"cases"`   // [code point, upper, lower, title, casefold]
	Numeric [][]any `json:"numeric"` // [code point, numerator, denominator, digit or -1]
	Names   [][]any `json:"names"`   // [code point, name]
}

func loadUnicodeFacts(t *testing.T) *unicodeFacts {
	t.Helper()
	// CPython's output, 5.7 MB of JSON, is stored compressed.
	out := cpythontest.Golden(t, "testdata/cpython/unicode.json.gz", func(py string) ([]byte, error) { return cpythontest.Run(py, unicodeDump) })
	var f unicodeFacts
	if err := json.Unmarshal(out, &f); err != nil {
		t.Fatal(err)
	}
	if f.Version != "14.0.0" {
		t.Logf("note: the tables follow CPython 3.11 (Unicode 14.0.0); python3 has Unicode %s", f.Version)
	}
	return &f
}

// ourKey is key() of unicodeDump computed by this package.
func ourKey(r rune) string {
	bits := []bool{core.PyIsUpper(string(r)), core.PyIsLower(string(r)), core.IsPyTitle(r), core.IsPyAlpha(r), core.IsPyDecimal(r), core.IsPyDigit(r),
		core.IsPyNumeric(r), core.IsPySpace(r), core.IsPyPrintable(r), core.IsIdentifier(string(r)), core.IsIdentifier("a" + string(r)),
		core.IsCaseIgnorable(r)}
	var b strings.Builder
	b.WriteString(core.UnicodeCategory(r))
	for _, x := range bits {
		if x {
			b.WriteByte('1')
		} else {
			b.WriteByte('0')
		}
	}
	return b.String()
}

func runeOf(v any) rune { return rune(v.(float64)) }

// TestUnicodeProperties compares every code point's category, predicates
// (isupper, isdigit, isidentifier, ...), case mappings, numeric values and
// name with CPython's.
func TestUnicodeProperties(t *testing.T) {
	if testing.Short() {
		t.Skip("walks every code point")
	}
	f := loadUnicodeFacts(t)
	if *updateUnicode {
		writeUnicodeTables(t, f)
		return
	}
	bad := 0
	report := func(format string, args ...any) {
		bad++
		if bad <= 30 {
			t.Errorf(format, args...)
		}
	}
	for i, run := range f.Runs {
		lo, key := runeOf(run[0]), run[1].(string)
		hi := rune(0x110000)
		if i+1 < len(f.Runs) {
			hi = runeOf(f.Runs[i+1][0])
		}
		for r := lo; r < hi; r++ {
			if r >= 0xd800 && r <= 0xdfff {
				continue
			}
			if got := ourKey(r); got != key {
				report("%U: category+flags %s, CPython %s (upper lower title alpha decimal digit numeric space printable identifier continue ignorable)", r, got, key)
			}
		}
	}
	cased := map[rune]bool{}
	for _, c := range f.Cases {
		r := runeOf(c[0])
		cased[r] = true
		want := []string{c[1].(string), c[2].(string), c[3].(string), c[4].(string)}
		got := []string{core.PyUpper(string(r)), core.PyLower(string(r)), core.PyTitle(string(r)), core.PyCasefold(string(r))}
		for i, op := range []string{"upper", "lower", "title", "casefold"} {
			if got[i] != want[i] {
				report("%U.%s() = %q, CPython %q", r, op, got[i], want[i])
			}
		}
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff || cased[r] {
			continue
		}
		s := string(r)
		if core.PyUpper(s) != s || core.PyLower(s) != s || core.PyTitle(s) != s || core.PyCasefold(s) != s {
			report("%U: CPython maps it to itself in every case", r)
		}
	}
	numeric := map[rune]bool{}
	for _, n := range f.Numeric {
		r := runeOf(n[0])
		numeric[r] = true
		want := n[1].(float64) / n[2].(float64)
		if got, ok := core.NumericValue(r); !ok || got != want {
			report("unicodedata.numeric(%U) = %v (%v), CPython %v", r, got, ok, want)
		}
		d, ok := core.DigitValue(r)
		if wantD := int(n[3].(float64)); (wantD >= 0) != ok || ok && d != wantD {
			report("unicodedata.digit(%U) = %v (%v), CPython %v", r, d, ok, wantD)
		}
	}
	for _, c := range []rune{'7', 0x663, 0x1d7d8, 0xff19} {
		if v, ok := core.NumericValue(c); !ok || v != float64(core.DecimalValue(c)) {
			t.Errorf("numeric(%U) = %v, %v", c, v, ok)
		}
	}
	names := map[rune]string{}
	for _, n := range f.Names {
		r, name := runeOf(n[0]), n[1].(string)
		names[r] = name
		if got, ok := ucd.LookupName(name); !ok || got != r {
			report("unicodedata.lookup(%q) = %U (%v), CPython %U", name, got, ok, r)
		}
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		if got, want := ucd.UnicodeName(r), names[r]; got != want {
			report("unicodedata.name(%U) = %q, CPython %q", r, got, want)
		}
	}
	if bad > 30 {
		t.Errorf("... %d differences in all", bad)
	}
}

// writeUnicodeTables writes ucd/unicode_tables.go: what CPython's Unicode 14
// data says where Go's tables say otherwise.
func writeUnicodeTables(t *testing.T, f *unicodeFacts) {
	var b bytes.Buffer
	b.WriteString(`// Code generated by go test ./builtins -run TestUnicodeProperties -update-unicode; DO NOT EDIT.

package ucd

import "unicode"

`)
	// Characters assigned after Unicode 14: CPython's category Cn where
	// Go's tables have another.
	var lo, hi rune = -1, -1
	var ranges [][2]rune
	flush := func() {
		if lo >= 0 {
			ranges = append(ranges, [2]rune{lo, hi})
		}
		lo, hi = -1, -1
	}
	for i, run := range f.Runs {
		start, key := runeOf(run[0]), run[1].(string)
		end := rune(0x110000)
		if i+1 < len(f.Runs) {
			end = runeOf(f.Runs[i+1][0])
		}
		for r := start; r < end; r++ {
			if r >= 0xd800 && r <= 0xdfff {
				continue
			}
			goAssigned := false
			for _, cat := range core.Categories {
				if unicode.Is(unicode.Categories[cat], r) {
					goAssigned = true
					break
				}
			}
			if strings.HasPrefix(key, "Cn") && goAssigned {
				if hi == r-1 {
					hi = r
				} else {
					flush()
					lo, hi = r, r
				}
			}
		}
	}
	flush()
	// Characters whose Lowercase or Uppercase property Unicode 14 did not
	// have (Other_Lowercase and Other_Uppercase grew since).
	for _, p := range []struct {
		name, doc string
		bit       int
		has       func(rune) bool
	}{
		{"NotLower14", "lowercase", 1, func(r rune) bool { return unicode.IsLower(r) || unicode.Is(unicode.Other_Lowercase, r) }},
		{"NotUpper14", "uppercase", 0, func(r rune) bool { return unicode.IsUpper(r) || unicode.Is(unicode.Other_Uppercase, r) }},
	} {
		var rs [][2]rune
		for i, run := range f.Runs {
			start, key := runeOf(run[0]), run[1].(string)
			end := rune(0x110000)
			if i+1 < len(f.Runs) {
				end = runeOf(f.Runs[i+1][0])
			}
			if strings.HasPrefix(key, "Cn") || key[2+p.bit] == '1' {
				continue
			}
			for r := start; r < end; r++ {
				if p.has(r) {
					rs = append(rs, [2]rune{r, r})
				}
			}
		}
		fmt.Fprintf(&b, "// %s are the characters Go's tables call %s and Unicode 14.0\n// did not.\n", p.name, p.doc)
		writeTable(&b, p.name, rs)
	}
	b.WriteString("// unassigned14 are the characters Unicode 14.0 (CPython 3.11) had not\n// assigned yet.\n")
	writeTable(&b, "unassigned14", ranges)
	b.WriteString("// NumericChar is a character with a numeric value that is not a decimal\n// digit; Digit marks those with a digit value too.\ntype NumericChar struct {\n\tR        rune\n\tNum, Den int64\n\tDigit    bool\n}\n\n")
	b.WriteString("// NumericChars are the numeric characters that are not decimal digits,\n// in code point order.\nvar NumericChars = []NumericChar{\n")
	for i, n := range f.Numeric {
		sep := " "
		if i%4 == 0 {
			sep = "\t"
		}
		fmt.Fprintf(&b, "%s{%#04x, %d, %d, %v},", sep, runeOf(n[0]), int64(n[1].(float64)), int64(n[2].(float64)), n[3].(float64) >= 0)
		if i%4 == 3 || i == len(f.Numeric)-1 {
			b.WriteString("\n")
		}
	}
	b.WriteString("}\n\n")

	maps := []struct {
		name, doc string
		col       int
		simple    func(rune) string
	}{
		{"SpecialUpper", "upper case", 1, func(r rune) string { return string(unicode.ToUpper(r)) }},
		{"SpecialLower", "lower case", 2, func(r rune) string { return string(unicode.ToLower(r)) }},
		{"SpecialTitle", "title case", 3, func(r rune) string { return string(unicode.ToTitle(r)) }},
		{"SpecialFold", "case folding", 4, nil},
	}
	caseOf := map[rune][]any{}
	for _, c := range f.Cases {
		caseOf[runeOf(c[0])] = c
	}
	for _, m := range maps {
		entries := map[rune]string{}
		for r := rune(0); r <= unicode.MaxRune; r++ {
			if r >= 0xd800 && r <= 0xdfff {
				continue
			}
			want := string(r)
			if c, ok := caseOf[r]; ok {
				want = c[m.col].(string)
			}
			var simple string
			if m.simple != nil {
				simple = m.simple(r)
			} else {
				// Folding defaults to the full lower case.
				simple = string(r)
				if c, ok := caseOf[r]; ok {
					simple = c[2].(string)
				}
			}
			if want != simple {
				entries[r] = want
			}
		}
		keys := make([]rune, 0, len(entries))
		for r := range entries {
			keys = append(keys, r)
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
		fmt.Fprintf(&b, "// %s is CPython's %s where it is not Go's simple mapping.\nvar %s = map[rune]string{\n", m.name, m.doc, m.name)
		for _, r := range keys {
			fmt.Fprintf(&b, "\t%#04x: %+q,\n", r, entries[r])
		}
		b.WriteString("}\n\n")
	}
	src, err := format.Source(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("ucd/unicode_tables.go", src, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote ucd/unicode_tables.go (%d unassigned ranges, %d numeric characters)", len(ranges), len(f.Numeric))
}

// writeTable writes a unicode.RangeTable variable of the given ranges.
func writeTable(b *bytes.Buffer, name string, ranges [][2]rune) {
	var r16, r32 []string
	for _, rg := range ranges {
		s := fmt.Sprintf("{%#04x, %#04x, 1},", rg[0], rg[1])
		if rg[1] <= 0xffff {
			r16 = append(r16, s)
		} else {
			r32 = append(r32, s)
		}
	}
	fmt.Fprintf(b, "var %s = &unicode.RangeTable{\n", name)
	for _, l := range []struct {
		field, typ string
		items      []string
	}{{"R16", "Range16", r16}, {"R32", "Range32", r32}} {
		if len(l.items) == 0 {
			continue
		}
		fmt.Fprintf(b, "\t%s: []unicode.%s{\n", l.field, l.typ)
		for i := 0; i < len(l.items); i += 4 {
			fmt.Fprintf(b, "\t\t%s\n", strings.Join(l.items[i:min(i+4, len(l.items))], " "))
		}
		b.WriteString("\t},\n")
	}
	b.WriteString("}\n\n")
}
