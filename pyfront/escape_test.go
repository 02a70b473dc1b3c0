package pyfront

import "testing"

// TestUnescapeNamed checks \N{name} escapes against what CPython 3.11
// decodes, and its errors for names it does not know.
func TestUnescapeNamed(t *testing.T) {
	for _, c := range []struct {
		in, want, msg string
	}{
		{`\N{BULLET}`, "\u2022", ""},
		{`a\N{greek small letter alpha}b`, "a\u03b1b", ""},
		{`\N{CJK UNIFIED IDEOGRAPH-4E2D}\N{HANGUL SYLLABLE GA}`, "中가", ""},
		{`\N{SNOWMAN}\N{SNOWMAN}`, "☃☃", ""},
		{`\N{NOPE}`, "", "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-7: unknown Unicode character name"},
		{`\N{cjk unified ideograph-4e2d}`, "", "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-29: unknown Unicode character name"},
		{`ab\N`, "", "(unicode error) 'unicodeescape' codec can't decode bytes in position 2-3: malformed \\N character escape"},
		{`\Nx`, "", "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-1: malformed \\N character escape"},
		{`\N{}`, "", "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-2: malformed \\N character escape"},
		{`\N{abc`, "", "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-5: malformed \\N character escape"},
	} {
		got, msg, needs := unescape(c.in, false)
		if got != c.want || msg != c.msg || needs {
			t.Errorf("unescape(%q) = %q, %q, %v; want %q, %q", c.in, got, msg, needs, c.want, c.msg)
		}
	}
	if got, _, _ := unescape(`\N{BULLET}`, true); got != `\N{BULLET}` {
		t.Errorf("in bytes, \\N is no escape: got %q", got)
	}
}
