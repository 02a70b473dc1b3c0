// Package layers names the floors of star-agent's layout, bottom to top,
// so that a test can hold the import graph to them: a package imports only
// packages on its own floor or below, and the ground floor imports nothing
// of star-agent but itself. docs/architecture.md draws the same floors.
package layers

import "strings"

// Module is star-agent's module path.
const Module = "github.com/star-agent/star-agent"

// A Floor is a layer of the layout and the package paths (relative to the
// module, matched as a path or a path prefix) that stand on it.
type Floor struct {
	Name  string
	Paths []string
}

// Floors lists the floors from the ground up.
var Floors = []Floor{
	// The vocabulary every floor shares: the Tool contract, Python values
	// crossing engines (with the Unicode tables their repr needs), and
	// leaves that know nothing of agents or engines.
	{"ground", []string{"tool", "pyvalue", "providers/retry", "internal/cpythontest", "internal/gctune", "internal/leaktest", "internal/benchtable", "internal/layers", "internal/docsnippets"}},
	// The VM: star-agent's fork of go.starlark.net (vm/README.md). It
	// imports nothing of star-agent outside itself.
	{"vm", []string{"vm"}},
	// Python in, values out, under limits: the front end and the runtime,
	// on the VM.
	{"engine", []string{"pyfront", "builtins"}},
	// The Executor contract, the in-process engine executor, the Python
	// sandboxes and the router.
	{"executors", []string{"executors"}},
	// Tools (MCP, the web) and models.
	{"tools and models", []string{"tools", "providers"}},
	// The public API: the agent, its prompts and its server.
	{"agent", []string{"starlarkagent", "prompts"}},
	// The star-agent command and the harness built on it; suitescore, a
	// command that scores the engine on another interpreter's test suite.
	{"commands", []string{"cmd", "internal/suitescore"}},
}

// Of returns the index in Floors of the package with the given import
// path, or -1 when no floor claims it (outside the module, or a package
// that needs a place in the table).
func Of(importPath string) int {
	rel, ok := strings.CutPrefix(importPath, Module+"/")
	if !ok {
		return -1
	}
	best, bestLen := -1, 0
	for i, f := range Floors {
		for _, p := range f.Paths {
			if (rel == p || strings.HasPrefix(rel, p+"/")) && len(p) > bestLen {
				best, bestLen = i, len(p)
			}
		}
	}
	return best
}
