package core

import (
	"sort"
	"testing"

	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/vm/starlark"
)

// TestCompatAttrs checks the front end's list of attribute names routed
// through HelperAttr against the method tables: every method the runtime
// gives str, bytes, list, tuple, dict, set, int and float, the number
// and range attributes, and not the two hot natives (list.append,
// dict.get).
func TestCompatAttrs(t *testing.T) {
	want := map[string]bool{}
	for _, table := range []map[string]*starlark.Builtin{strMethods, bytesMethods, ListMethods, TupleMethods, DictMethods, setMethods, intMethods, floatMethods} {
		for name := range table {
			want[name] = true
		}
	}
	for _, name := range []string{"real", "imag", "numerator", "denominator", "start", "stop", "step"} {
		want[name] = true
	}
	delete(want, "append")
	delete(want, "get")
	got := contract.CompatAttrs()
	sort.Strings(got)
	for _, n := range got {
		if !want[n] {
			t.Errorf("contract.CompatAttr(%q) is true but no method table has %q", n, n)
		}
		delete(want, n)
	}
	for n := range want {
		t.Errorf("the method tables have %q but contract.CompatAttr(%q) is false: add it to contract.compatAttrs", n, n)
	}
}
