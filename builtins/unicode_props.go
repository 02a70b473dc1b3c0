package builtins

import (
	"sort"
	"strings"
	"unicode"
)

// Character properties and case mappings as CPython 3.11 has them
// (Unicode 14.0), built on Go's unicode tables (a later Unicode version)
// and the generated tables of unicode_tables.go: the characters Unicode 14
// had not assigned yet, numeric values Go does not carry, and the full
// case mappings (SpecialCasing, CaseFolding) where they differ from Go's
// simple ones. TestUnicodeProperties checks every code point against the
// machine's python3.

// assigned reports whether r was assigned in Unicode 14.0; a character
// assigned later is unassigned (category Cn) for CPython 3.11.
func assigned(r rune) bool { return !unicode.Is(unassigned14, r) }

func isPyUpper(r rune) bool {
	return (unicode.IsUpper(r) || unicode.Is(unicode.Other_Uppercase, r)) && assigned(r) && !unicode.Is(notUpper14, r)
}

func isPyLower(r rune) bool {
	return (unicode.IsLower(r) || unicode.Is(unicode.Other_Lowercase, r)) && assigned(r) && !unicode.Is(notLower14, r)
}

func isPyTitle(r rune) bool { return unicode.IsTitle(r) && assigned(r) }

// isCased is Unicode's Cased property.
func isCased(r rune) bool { return isPyUpper(r) || isPyLower(r) || isPyTitle(r) }

// isCaseIgnorable is Unicode's Case_Ignorable property: Mn, Me, Cf, Lm,
// Sk, and the Word_Break classes MidLetter, MidNumLet and Single_Quote.
func isCaseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', 0xb7, 0x387, 0x55f, 0x5f4, 0x2018, 0x2019, 0x2024, 0x2027,
		0xfe13, 0xfe52, 0xfe55, 0xff07, 0xff0e, 0xff1a:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk) && assigned(r)
}

func isPyAlpha(r rune) bool { return unicode.IsLetter(r) && assigned(r) }

func isPyDecimal(r rune) bool {
	if r < 0x80 {
		return r >= '0' && r <= '9'
	}
	return unicode.Is(unicode.Nd, r) && assigned(r)
}

func isPyDigit(r rune) bool {
	if isPyDecimal(r) {
		return true
	}
	n, ok := numericOf(r)
	return ok && n.digit
}

func isPyNumeric(r rune) bool {
	if isPyDecimal(r) {
		return true
	}
	_, ok := numericOf(r)
	return ok
}

func isPyAlnum(r rune) bool { return isPyAlpha(r) || isPyNumeric(r) }

// isPySpace is CPython's whitespace: bidirectional class WS, B or S, or
// category Zs.
func isPySpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// isPyPrintable is str.isprintable for one character: not in categories C
// and Z, except the space.
func isPyPrintable(r rune) bool {
	return r == ' ' || unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S) && assigned(r)
}

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
	if unicode.Is(notXIDContinue, r) || !assigned(r) {
		return false
	}
	return idStart(r) || (unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc) || unicode.Is(unicode.Other_ID_Continue, r)) &&
		!unicode.In(r, unicode.Pattern_Syntax, unicode.Pattern_White_Space)
}

// idStart is Unicode's ID_Start.
func idStart(r rune) bool {
	return (unicode.In(r, unicode.L, unicode.Nl) || unicode.Is(unicode.Other_ID_Start, r)) &&
		!unicode.In(r, unicode.Pattern_Syntax, unicode.Pattern_White_Space) && assigned(r)
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

func isIdentifier(s string) bool {
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
func numericOf(r rune) (numericChar, bool) {
	if r < 0xb2 || !assigned(r) {
		return numericChar{}, false
	}
	i := sort.Search(len(numericChars), func(i int) bool { return numericChars[i].r >= r })
	if i < len(numericChars) && numericChars[i].r == r {
		return numericChars[i], true
	}
	return numericChar{}, false
}

// numericValue is unicodedata.numeric(r).
func numericValue(r rune) (float64, bool) {
	if isPyDecimal(r) {
		return float64(decimalValue(r)), true
	}
	if n, ok := numericOf(r); ok {
		return float64(n.num) / float64(n.den), true
	}
	return 0, false
}

// digitValue is unicodedata.digit(r).
func digitValue(r rune) (int, bool) {
	if isPyDecimal(r) {
		return decimalValue(r), true
	}
	if n, ok := numericOf(r); ok && n.digit {
		return int(n.num), true
	}
	return 0, false
}

// The full case mappings of one character.

func upperFull(r rune) string {
	if s, ok := specialUpper[r]; ok {
		return s
	}
	return string(unicode.ToUpper(r))
}

func lowerFull(r rune) string {
	if s, ok := specialLower[r]; ok {
		return s
	}
	return string(unicode.ToLower(r))
}

func titleFull(r rune) string {
	if s, ok := specialTitle[r]; ok {
		return s
	}
	return string(unicode.ToTitle(r))
}

func foldFull(r rune) string {
	if s, ok := specialFold[r]; ok {
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
	for j >= 0 && isCaseIgnorable(rs[j]) {
		j--
	}
	final := j >= 0 && isCased(rs[j])
	if final && i+1 < len(rs) {
		j = i + 1
		for j < len(rs) && isCaseIgnorable(rs[j]) {
			j++
		}
		final = j == len(rs) || !isCased(rs[j])
	}
	if final {
		return 0x3c2
	}
	return 0x3c3
}

func pyUpper(s string) string {
	if isASCII(s) {
		return strings.ToUpper(s)
	}
	return caseMap(s, func(rs []rune, i int) string { return upperFull(rs[i]) })
}

func pyLower(s string) string {
	if isASCII(s) {
		return strings.ToLower(s)
	}
	return caseMap(s, lowerAt)
}

func pyCasefold(s string) string {
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

func pyTitle(s string) string {
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

func pyCapitalize(s string) string {
	return caseMap(s, func(rs []rune, i int) string {
		if i == 0 {
			return titleFull(rs[0])
		}
		return lowerAt(rs, i)
	})
}

func pyIsUpper(s string) bool {
	cased := false
	for _, r := range s {
		if isPyLower(r) || isPyTitle(r) {
			return false
		}
		cased = cased || isPyUpper(r)
	}
	return cased
}

func pyIsLower(s string) bool {
	cased := false
	for _, r := range s {
		if isPyUpper(r) || isPyTitle(r) {
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
		case isPyUpper(r) || isPyTitle(r):
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

// unicodeCategory is unicodedata.category(r).
func unicodeCategory(r rune) string {
	if !assigned(r) {
		return "Cn"
	}
	for _, cat := range categories {
		if t, ok := unicode.Categories[cat]; ok && unicode.Is(t, r) {
			return cat
		}
	}
	return "Cn"
}

var categories = []string{"Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co"}
