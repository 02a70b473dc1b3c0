package core

import (
	"sort"
	"strings"
	"unicode"

	"github.com/star-agent/star-agent/pyvalue/ucd"
)

// Character properties and case mappings as CPython 3.11 has them
// (Unicode 14.0), built on Go's unicode tables (a later Unicode version)
// and the generated tables of unicode_tables.go: the characters Unicode 14
// had not assigned yet, numeric values Go does not carry, and the full
// case mappings (SpecialCasing, CaseFolding) where they differ from Go's
// simple ones. TestUnicodeProperties checks every code point against the
// machine's python3.

func isPyUpper(r rune) bool {
	return (unicode.IsUpper(r) || unicode.Is(unicode.Other_Uppercase, r)) && ucd.Assigned(r) && !unicode.Is(ucd.NotUpper14, r)
}

func isPyLower(r rune) bool {
	return (unicode.IsLower(r) || unicode.Is(unicode.Other_Lowercase, r)) && ucd.Assigned(r) && !unicode.Is(ucd.NotLower14, r)
}

func IsPyTitle(r rune) bool { return unicode.IsTitle(r) && ucd.Assigned(r) }

// isCased is Unicode's Cased property.
func isCased(r rune) bool { return isPyUpper(r) || isPyLower(r) || IsPyTitle(r) }

// IsCaseIgnorable is Unicode's Case_Ignorable property: Mn, Me, Cf, Lm,
// Sk, and the Word_Break classes MidLetter, MidNumLet and Single_Quote.
func IsCaseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', 0xb7, 0x387, 0x55f, 0x5f4, 0x2018, 0x2019, 0x2024, 0x2027,
		0xfe13, 0xfe52, 0xfe55, 0xff07, 0xff0e, 0xff1a:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk) && ucd.Assigned(r)
}

func IsPyAlpha(r rune) bool { return unicode.IsLetter(r) && ucd.Assigned(r) }

func IsPyDecimal(r rune) bool {
	if r < 0x80 {
		return r >= '0' && r <= '9'
	}
	return unicode.Is(unicode.Nd, r) && ucd.Assigned(r)
}

func IsPyDigit(r rune) bool {
	if IsPyDecimal(r) {
		return true
	}
	n, ok := numericOf(r)
	return ok && n.Digit
}

func IsPyNumeric(r rune) bool {
	if IsPyDecimal(r) {
		return true
	}
	_, ok := numericOf(r)
	return ok
}

func IsPyAlnum(r rune) bool { return IsPyAlpha(r) || IsPyNumeric(r) }

// IsPySpace is CPython's whitespace: bidirectional class WS, B or S, or
// category Zs.
func IsPySpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// IsPyPrintable is str.isprintable for one character: not in categories C
// and Z, except the space.
func IsPyPrintable(r rune) bool { return ucd.Printable(r) }

// isIDStart and isIDContinue are Unicode's XID_Start and XID_Continue,
// which str.isidentifier uses.
func isIDStart(r rune) bool {
	if r < 0x80 {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
	}
	return idStart(r) && !unicode.Is(notXIDStart, r)
}

func isIDContinue(r rune) bool {
	if r < 0x80 {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_'
	}
	if unicode.Is(notXIDContinue, r) || !ucd.Assigned(r) {
		return false
	}
	return idStart(r) || (unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc) || unicode.Is(unicode.Other_ID_Continue, r)) &&
		!unicode.In(r, unicode.Pattern_Syntax, unicode.Pattern_White_Space)
}

// idStart is Unicode's ID_Start.
func idStart(r rune) bool {
	return (unicode.In(r, unicode.L, unicode.Nl) || unicode.Is(unicode.Other_ID_Start, r)) &&
		!unicode.In(r, unicode.Pattern_Syntax, unicode.Pattern_White_Space) && ucd.Assigned(r)
}

// notXIDStart and notXIDContinue are the characters of ID_Start and
// ID_Continue that NFKC normalization would turn into something else than
// an identifier's start or continuation, which XID_Start and
// XID_Continue leave out.
var (
	notXIDStart = &unicode.RangeTable{
		R16: []unicode.Range16{
			{0x037a, 0x037a, 1}, {0x0e33, 0x0e33, 1}, {0x0eb3, 0x0eb3, 1},
			{0x309b, 0x309c, 1}, {0xfc5e, 0xfc63, 1}, {0xfdfa, 0xfdfb, 1},
			{0xfe70, 0xfe7e, 2}, {0xff9e, 0xff9f, 1},
		},
	}
	notXIDContinue = &unicode.RangeTable{
		R16: []unicode.Range16{
			{0x037a, 0x037a, 1}, {0x309b, 0x309c, 1}, {0xfc5e, 0xfc63, 1},
			{0xfdfa, 0xfdfb, 1}, {0xfe70, 0xfe7e, 2},
		},
	}
)

func IsIdentifier(s string) bool {
	for i, r := range s {
		if i == 0 {
			if r != '_' && !isIDStart(r) {
				return false
			}
		} else if !isIDContinue(r) {
			return false
		}
	}
	return s != ""
}

// numericOf looks r up in the numeric characters that are not decimal
// digits.
func numericOf(r rune) (ucd.NumericChar, bool) {
	if r < 0xb2 || !ucd.Assigned(r) {
		return ucd.NumericChar{}, false
	}
	i := sort.Search(len(ucd.NumericChars), func(i int) bool { return ucd.NumericChars[i].R >= r })
	if i < len(ucd.NumericChars) && ucd.NumericChars[i].R == r {
		return ucd.NumericChars[i], true
	}
	return ucd.NumericChar{}, false
}

// NumericValue is unicodedata.numeric(r).
func NumericValue(r rune) (float64, bool) {
	if IsPyDecimal(r) {
		return float64(DecimalValue(r)), true
	}
	if n, ok := numericOf(r); ok {
		return float64(n.Num) / float64(n.Den), true
	}
	return 0, false
}

// DigitValue is unicodedata.digit(r).
func DigitValue(r rune) (int, bool) {
	if IsPyDecimal(r) {
		return DecimalValue(r), true
	}
	if n, ok := numericOf(r); ok && n.Digit {
		return int(n.Num), true
	}
	return 0, false
}

// The full case mappings of one character.

func upperFull(r rune) string {
	if s, ok := ucd.SpecialUpper[r]; ok {
		return s
	}
	return string(unicode.ToUpper(r))
}

func lowerFull(r rune) string {
	if s, ok := ucd.SpecialLower[r]; ok {
		return s
	}
	return string(unicode.ToLower(r))
}

func titleFull(r rune) string {
	if s, ok := ucd.SpecialTitle[r]; ok {
		return s
	}
	return string(unicode.ToTitle(r))
}

func foldFull(r rune) string {
	if s, ok := ucd.SpecialFold[r]; ok {
		return s
	}
	return lowerFull(r)
}

// caseMap applies a per-character mapping to s; mapping a whole string
// at most triples its length (the longest full mappings have three code
// points).
func caseMap(s string, f func(rs []rune, i int) string) string {
	var b strings.Builder
	b.Grow(len(s))
	rs := []rune(s)
	for i := range rs {
		b.WriteString(f(rs, i))
	}
	return b.String()
}

// lowerAt is the lower case of rs[i], with the final sigma rule.
func lowerAt(rs []rune, i int) string {
	if rs[i] == 0x3a3 {
		return string(capitalSigma(rs, i))
	}
	return lowerFull(rs[i])
}

// capitalSigma is CPython's handle_capital_sigma: a capital sigma lowers to
// a final sigma when a cased letter precedes it and none follows it (case
// ignorable characters skipped on both sides).
func capitalSigma(rs []rune, i int) rune {
	j := i - 1
	for j >= 0 && IsCaseIgnorable(rs[j]) {
		j--
	}
	final := j >= 0 && isCased(rs[j])
	if final && i+1 < len(rs) {
		j = i + 1
		for j < len(rs) && IsCaseIgnorable(rs[j]) {
			j++
		}
		final = j == len(rs) || !isCased(rs[j])
	}
	if final {
		return 0x3c2
	}
	return 0x3c3
}

func PyUpper(s string) string {
	if isASCII(s) {
		return strings.ToUpper(s)
	}
	return caseMap(s, func(rs []rune, i int) string { return upperFull(rs[i]) })
}

func PyLower(s string) string {
	if isASCII(s) {
		return strings.ToLower(s)
	}
	return caseMap(s, lowerAt)
}

func PyCasefold(s string) string {
	if isASCII(s) {
		return strings.ToLower(s)
	}
	return caseMap(s, func(rs []rune, i int) string { return foldFull(rs[i]) })
}

func pySwapcase(s string) string {
	return caseMap(s, func(rs []rune, i int) string {
		switch r := rs[i]; {
		case isPyUpper(r):
			return lowerAt(rs, i)
		case isPyLower(r):
			return upperFull(r)
		default:
			return string(r)
		}
	})
}

func PyTitle(s string) string {
	prevCased := false
	return caseMap(s, func(rs []rune, i int) string {
		var out string
		if prevCased {
			out = lowerAt(rs, i)
		} else {
			out = titleFull(rs[i])
		}
		prevCased = isCased(rs[i])
		return out
	})
}

func PyCapitalize(s string) string {
	return caseMap(s, func(rs []rune, i int) string {
		if i == 0 {
			return titleFull(rs[0])
		}
		return lowerAt(rs, i)
	})
}

func PyIsUpper(s string) bool {
	cased := false
	for _, r := range s {
		if isPyLower(r) || IsPyTitle(r) {
			return false
		}
		cased = cased || isPyUpper(r)
	}
	return cased
}

func PyIsLower(s string) bool {
	cased := false
	for _, r := range s {
		if isPyUpper(r) || IsPyTitle(r) {
			return false
		}
		cased = cased || isPyLower(r)
	}
	return cased
}

func pyIsTitle(s string) bool {
	cased, prevCased := false, false
	for _, r := range s {
		switch {
		case isPyUpper(r) || IsPyTitle(r):
			if prevCased {
				return false
			}
			prevCased, cased = true, true
		case isPyLower(r):
			if !prevCased {
				return false
			}
			prevCased, cased = true, true
		default:
			prevCased = false
		}
	}
	return cased
}

// UnicodeCategory is unicodedata.category(r).
func UnicodeCategory(r rune) string {
	if !ucd.Assigned(r) {
		return "Cn"
	}
	for _, cat := range Categories {
		if t, ok := unicode.Categories[cat]; ok && unicode.Is(t, r) {
			return cat
		}
	}
	return "Cn"
}

var Categories = []string{"Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co"}
