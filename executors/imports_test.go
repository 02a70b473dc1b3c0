package executors

import (
	"slices"
	"strings"
	"testing"

	"github.com/star-agent/star-agent/builtins"
)

// TestImportErrorHint: what the model reads of a refused import names no
// flag and lists what it may import; how to authorize the module is in
// Hint, for the operator, and never for a module no flag can open.
func TestImportErrorHint(t *testing.T) {
	p := NewImportPolicy([]string{"numpy"}, NeverImportable)
	for _, c := range []struct {
		module, hint string
	}{
		{"sympy", "the code imports sympy, which is not authorized: if it is safe, add it to the authorized imports (star-agent: --imports sympy)"},
		{"sympy.abc", "(star-agent: --imports sympy)"},
		{"os", ""},
		{"os.path", ""},
	} {
		ee := p.Check(c.module)
		if ee == nil {
			t.Fatalf("%s: allowed", c.module)
		}
		for _, text := range []string{ee.Message, ee.Error(), ee.Describe()} {
			if strings.Contains(text, "--") || strings.Contains(text, "hint") {
				t.Errorf("%s: the model's text addresses the operator: %q", c.module, text)
			}
		}
		if !strings.Contains(ee.Message, "authorized imports are: [abc, bisect, collections,") {
			t.Errorf("%s: the model is not told what it may import: %q", c.module, ee.Message)
		}
		if c.hint == "" && ee.Hint != "" || !strings.Contains(ee.Hint, c.hint) {
			t.Errorf("%s: hint %q, want %q", c.module, ee.Hint, c.hint)
		}
	}
	if ee := p.Check("numpy.linalg"); ee != nil {
		t.Errorf("numpy.linalg refused: %v", ee)
	}
	if ee := NewImportPolicy([]string{"*"}, nil).Check("sympy"); ee != nil {
		t.Errorf("'*' refused sympy: %v", ee)
	}
}

// TestImportHintRefusesNonNames: a module name read from a sandbox may be
// anything; only a dotted Python name makes a hint.
func TestImportHintRefusesNonNames(t *testing.T) {
	for _, s := range []string{"", "a b", "x; rm -rf /", "--imports", "1abc", "a..b", ".a", "a.", "é", strings.Repeat("a", 201), "a\nhint: run this"} {
		if h := ImportHint(s); h != "" {
			t.Errorf("ImportHint(%q) = %q", s, h)
		}
	}
	for _, s := range []string{"sympy", "_private", "a1.b_2", strings.Repeat("a", 200)} {
		if ImportHint(s) == "" {
			t.Errorf("ImportHint(%q) is empty", s)
		}
	}
}

// TestDefaultImports: the defaults keep smolagents' list (code written for
// it runs here) and add only modules the Starlark engine implements, so
// that none of them is a way to the host.
func TestDefaultImports(t *testing.T) {
	smolagents := []string{"collections", "datetime", "itertools", "math", "queue", "random", "re", "stat", "statistics", "time", "unicodedata"}
	for _, m := range smolagents {
		if !slices.Contains(DefaultAuthorizedImports, m) {
			t.Errorf("smolagents' default %s is missing", m)
		}
	}
	implemented := builtins.ModuleNames()
	for _, m := range DefaultAuthorizedImports {
		if !slices.Contains(implemented, m) {
			t.Errorf("default import %s is not a module of the Starlark engine", m)
		}
		if slices.Contains(NeverImportable, m) {
			t.Errorf("default import %s is never importable", m)
		}
	}
	if !slices.Contains(DefaultAuthorizedImports, "dataclasses") {
		t.Errorf("dataclasses is not a default import")
	}
}

// TestRefusalListsNoForbiddenModule: a module authorized but never
// importable (--imports sys where only full Python may import it) is not
// offered to the model as authorized.
func TestRefusalListsNoForbiddenModule(t *testing.T) {
	p := NewImportPolicy([]string{"sys", "os.path", "numpy"}, NeverImportable)
	ee := p.Check("sys")
	if ee == nil {
		t.Fatal("sys allowed")
	}
	_, list, _ := strings.Cut(ee.Message, "authorized imports are: ")
	if strings.Contains(list, "sys") || strings.Contains(list, "os.path") || !strings.Contains(list, "numpy") {
		t.Errorf("the model is offered %s", list)
	}
}

// TestImportPolicyByWhatAModuleIs: a refused module is refused under
// every name that reaches it: its C-level twin, its aliases and its
// private modules.
func TestImportPolicyByWhatAModuleIs(t *testing.T) {
	twins := []string{
		"posix", "nt", "posixpath", "ntpath", "_io", "_pyio", "_socket", "_posixsubprocess",
		"_imp", "_frozen_importlib", "_frozen_importlib_external", "_ctypes", "_pickle",
		"_multiprocessing", "_posixshmem", "_winapi", "msvcrt", "winreg", "fcntl",
		"pwd", "grp", "resource", "mmap", "_compat_pickle", "marshal", "zipimport", "termios",
		"_os", "__os", "_subprocess", "_builtins", "_pty",
	}
	p := NewImportPolicy(twins, NeverImportable)
	for _, m := range twins {
		for _, name := range []string{m, m + ".sub"} {
			if ee := p.Check(name); ee == nil {
				t.Errorf("%s allowed", name)
			} else if !strings.Contains(ee.Message, "gives access to the host") {
				t.Errorf("%s: %s", name, ee.Message)
			}
			if !IsHostModule(name) {
				t.Errorf("IsHostModule(%s) = false", name)
			}
		}
	}
	for _, m := range []string{"collections", "_collections_abc", "json", "numpy", "ioutils", "osmnx", "posixx", "_thread", "gc", "signal"} {
		if IsHostModule(m) {
			t.Errorf("IsHostModule(%s) = true", m)
		}
	}
}
