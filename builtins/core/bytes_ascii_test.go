package core_test

import (
	"strings"
	"testing"

	"github.com/star-agent/star-agent/builtins/internal/builtinstest"
)

// The bytes methods that build a new value charge it first: expandtabs
// with a huge tab size, translate and the case maps of a large value.
func TestBytesMethodsBudget(t *testing.T) {
	for name, src := range map[string]string{
		"expandtabs":          "b = (b'\\t' * 1000).expandtabs(10**9)\nprint(len(b))",
		"expandtabs overflow": "b = (b'\\t' * 100).expandtabs(2**62)\nprint(len(b))",
		"upper":               "s = b'a' * (30 << 20)\nt = s.upper()\nu = s.lower()\nprint(len(t), len(u))",
	} {
		t.Run(name, func(t *testing.T) {
			out, err := builtinstest.Run(t, src)
			if err == nil || !strings.Contains(err.Error(), "MemoryError") {
				t.Fatalf("got %q, %v; want a MemoryError", out, err)
			}
		})
	}
}
