package prompts

import "testing"

// TestReprish: strings read as Python source even with quotes and line
// breaks; a schema's whole numbers (float64 once decoded) read as ints.
func TestReprish(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{"it's", `"it's"`},
		{"a\nb\\", `'a\nb\\'`},
		{"plain", "'plain'"},
		{nil, "None"},
		{true, "True"},
		{3.0, "3"},
		{2.5, "2.5"},
	} {
		if got := reprish(c.v); got != c.want {
			t.Errorf("reprish(%#v) = %s, want %s", c.v, got, c.want)
		}
	}
}
