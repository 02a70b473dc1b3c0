package ucd

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/unicode/runenames"
)

// UnicodeName is unicodedata.name(r), or "" for a character without one.
// go's runenames leaves out the names Unicode derives from the code point.
func UnicodeName(r rune) string {
	if !Assigned(r) {
		return ""
	}
	n := runenames.Name(r)
	if !strings.HasPrefix(n, "<") {
		return n
	}
	switch {
	case strings.HasPrefix(n, "<CJK Ideograph"):
		return fmt.Sprintf("CJK UNIFIED IDEOGRAPH-%04X", r)
	case n == "<Hangul Syllable>":
		s := r - 0xac00
		return "HANGUL SYLLABLE " + jamoL[s/(21*28)] + jamoV[s%(21*28)/28] + jamoT[s%28]
	}
	return ""
}

// LookupName is unicodedata.lookup and the \N{name} escape: the character
// called name. Like CPython it ignores letter case except in the names
// Unicode derives from code points (Hangul syllables, CJK unified
// ideographs). Name aliases and named sequences are not known.
func LookupName(name string) (rune, bool) {
	if hex, ok := strings.CutPrefix(name, "CJK UNIFIED IDEOGRAPH-"); ok {
		if len(hex) != 4 && len(hex) != 5 || strings.ToUpper(hex) != hex {
			return 0, false
		}
		v, err := strconv.ParseUint(hex, 16, 32)
		if err != nil || !strings.HasPrefix(UnicodeName(rune(v)), "CJK UNIFIED IDEOGRAPH-") {
			return 0, false
		}
		return rune(v), true
	}
	namesOnce.Do(func() {
		runeNames = make(map[string]rune, 40000)
		hangulNames = make(map[string]rune, 11172)
		for r := rune(0); r <= unicode.MaxRune; r++ {
			n := runenames.Name(r)
			if n == "" || !Assigned(r) {
				continue
			}
			if n == "<Hangul Syllable>" {
				hangulNames[UnicodeName(r)] = r
			} else if !strings.HasPrefix(n, "<") {
				runeNames[n] = r
			}
		}
	})
	if strings.HasPrefix(name, "HANGUL SYLLABLE ") {
		r, ok := hangulNames[name]
		return r, ok
	}
	r, ok := runeNames[strings.ToUpper(name)]
	return r, ok
}

// LookupCharName is unicodedata.lookup for the front end's \N{name}
// escapes: the character called name, or false.
func LookupCharName(name string) (rune, bool) { return LookupName(name) }

// The short names of the Hangul jamo that make up a syllable's name.
var (
	jamoL = []string{"G", "GG", "N", "D", "DD", "R", "M", "B", "BB", "S", "SS", "", "J", "JJ", "C", "K", "T", "P", "H"}
	jamoV = []string{"A", "AE", "YA", "YAE", "EO", "E", "YEO", "YE", "O", "WA", "WAE", "OE", "YO", "U", "WEO", "WE", "WI", "YU", "EU", "YI", "I"}
	jamoT = []string{"", "G", "GG", "GS", "N", "NJ", "NH", "D", "L", "LG", "LM", "LB", "LS", "LT", "LP", "LH", "M", "B", "BS", "S", "SS", "NG", "J", "C", "K", "T", "P", "H"}
)

var (
	namesOnce   sync.Once
	runeNames   map[string]rune // stored names, in upper case
	hangulNames map[string]rune
)

// Assigned reports whether r was assigned in Unicode 14.0; a character
// assigned later is unassigned (category Cn) for CPython 3.11.
func Assigned(r rune) bool { return !unicode.Is(unassigned14, r) }

// Printable is Python's str.isprintable for one code point: letters,
// marks, numbers, punctuation, symbols and the ASCII space, as Unicode
// 14.0 (CPython 3.11) assigns them. repr leaves these unescaped.
func Printable(r rune) bool {
	return r == ' ' || unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S) && Assigned(r)
}
