package executors

import (
	"fmt"
	"unicode/utf8"
)

// CapText keeps the first n characters of s and says how many it cut:
// every executor caps the error texts and lines it hands on with it, so
// that what code or a sandbox produces cannot flood the model's context.
func CapText(s string, n int) string {
	if len(s) <= n || utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + fmt.Sprintf("... [%d characters cut]", utf8.RuneCountInString(s[j:]))
		}
		i++
	}
	return s
}
