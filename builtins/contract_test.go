package builtins

import (
	"testing"

	"github.com/star-agent/star-agent/builtins/contract"
)

// TestRuntimeProvidesContract checks that Runtime provides every helper
// the front end may lower to (HelperImport excepted: the engine provides
// it, with its import policy) and nothing the contract does not name.
func TestRuntimeProvidesContract(t *testing.T) {
	rt := Runtime()
	named := map[string]bool{}
	for _, name := range contract.Helpers() {
		named[name] = true
		if name == contract.HelperImport {
			if _, ok := rt[name]; ok {
				t.Errorf("Runtime provides %s, which the engine must provide with its import policy", name)
			}
			continue
		}
		if _, ok := rt[name]; !ok {
			t.Errorf("Runtime lacks %s, which the front end lowers to", name)
		}
	}
	for name := range rt {
		if !named[name] {
			t.Errorf("Runtime provides %s, which package contract does not name", name)
		}
	}
}
