package layers

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

type pkg struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// list runs go list over the whole module.
func list(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,TestImports,XTestImports", Module+"/...")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 40 {
		t.Fatalf("go list found %d packages: not the whole module", len(pkgs))
	}
	return pkgs
}

// TestFloorsPointDown fails when a package imports one on a higher floor,
// or when the ground floor imports anything of star-agent above it.
func TestFloorsPointDown(t *testing.T) {
	for _, p := range list(t) {
		from := Of(p.ImportPath)
		if from < 0 {
			t.Errorf("%s stands on no floor: add it to Floors", p.ImportPath)
			continue
		}
		for _, imp := range p.Imports {
			to := Of(imp)
			if to > from {
				t.Errorf("%s (%s) imports %s (%s): layers point down", p.ImportPath, Floors[from].Name, imp, Floors[to].Name)
			}
		}
	}
}

// TestNothingBelowTheAgentImportsIt holds tests to the rule too: no
// test of the engine, the executors, the tools or the models imports the
// agent or the commands.
func TestNothingBelowTheAgentImportsIt(t *testing.T) {
	agent := Of(Module + "/starlarkagent")
	for _, p := range list(t) {
		from := Of(p.ImportPath)
		if from < 0 || from >= agent {
			continue
		}
		for _, imp := range append(append(p.Imports, p.TestImports...), p.XTestImports...) {
			if Of(imp) >= agent {
				t.Errorf("%s (%s) or its tests import %s", p.ImportPath, Floors[from].Name, imp)
			}
		}
	}
}

// TestOf checks the table's lookups on a few paths, the longest prefix
// winning.
func TestOf(t *testing.T) {
	for path, want := range map[string]string{
		"tool":                   "ground",
		"pyvalue/ucd":            "ground",
		"providers/retry":        "ground",
		"providers/openai":       "tools and models",
		"builtins/lib/math":      "engine",
		"vm/starlark":            "vm",
		"executors/starlarkexec": "executors",
		"starlarkagent/serve":    "agent",
		"cmd/star-agent/cli":     "commands",
	} {
		i := Of(Module + "/" + path)
		if i < 0 || Floors[i].Name != want {
			t.Errorf("Of(%s) = %d, want %s", path, i, want)
		}
	}
	if Of("go.starlark.net/starlark") != -1 || Of(Module+"/toolbox") != -1 {
		t.Error("a path outside the module, or one that only shares a prefix, stands on a floor")
	}
}

// TestInProcessEnginesSpeakNoProtocol fails when a package of the engine
// floor or below, or the in-process engine executor, imports the runner
// protocol (executors/runner), directly or through another package of
// star-agent. The protocol is for sandboxes in other processes; on the
// in-process side only executors/isolation, which runs an engine in a
// child process, speaks it.
func TestInProcessEnginesSpeakNoProtocol(t *testing.T) {
	const runner = Module + "/executors/runner"
	engine := Of(Module + "/builtins")
	pkgs := list(t)
	imports := map[string][]string{}
	for _, p := range pkgs {
		imports[p.ImportPath] = p.Imports
	}
	// path returns a chain of imports from p to the runner, or nil.
	seen := map[string]bool{}
	var path func(p string) []string
	path = func(p string) []string {
		if p == runner || strings.HasPrefix(p, runner+"/") {
			return []string{p}
		}
		if seen[p] {
			return nil
		}
		seen[p] = true
		for _, imp := range imports[p] {
			if chain := path(imp); chain != nil {
				return append([]string{p}, chain...)
			}
		}
		return nil
	}
	checked := 0
	for _, p := range pkgs {
		from := Of(p.ImportPath)
		starlarkexec := p.ImportPath == Module+"/executors/starlarkexec" || strings.HasPrefix(p.ImportPath, Module+"/executors/starlarkexec/")
		if from < 0 || (from > engine && !starlarkexec) {
			continue
		}
		checked++
		clear(seen)
		if chain := path(p.ImportPath); chain != nil {
			t.Errorf("%s imports the runner protocol: %s", p.ImportPath, strings.Join(chain, " -> "))
		}
	}
	if checked < 10 {
		t.Fatalf("checked %d packages: the engine floor was not found", checked)
	}
}

// TestVMStandsAlone: the fork of go.starlark.net imports nothing of
// star-agent outside vm/, so that it can be merged with upstream and read
// on its own.
func TestVMStandsAlone(t *testing.T) {
	vm := Module + "/vm"
	n := 0
	for _, p := range list(t) {
		if p.ImportPath != vm && !strings.HasPrefix(p.ImportPath, vm+"/") {
			continue
		}
		n++
		for _, imp := range append(append(p.Imports, p.TestImports...), p.XTestImports...) {
			if strings.HasPrefix(imp, Module+"/") && imp != vm && !strings.HasPrefix(imp, vm+"/") {
				t.Errorf("%s imports %s", p.ImportPath, imp)
			}
		}
	}
	if n < 5 {
		t.Fatalf("found %d packages under vm/", n)
	}
}
