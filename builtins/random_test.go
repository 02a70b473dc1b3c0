package builtins_test

import (
	"strings"
	"testing"

	"github.com/star-agent/star-agent/vm/starlark"

	"github.com/star-agent/star-agent/builtins"
	"github.com/star-agent/star-agent/builtins/internal/builtinstest"
	"github.com/star-agent/star-agent/internal/cpythontest"
)

// TestRandomMatchesCPython compares seeded sequences with python3's.
func TestRandomMatchesCPython(t *testing.T) {
	prog := `
random.seed(42)
a = [random.random() for _ in range(3)]
b = [random.randint(1, 100) for _ in range(5)]
c = random.choice(["x", "y", "z", "w"])
d = list(range(10))
random.shuffle(d)
e = random.sample(range(100), 5)
f = random.uniform(1, 2)
g = random.gauss(0, 1)
h = random.choices("abcde", k=4)
i = random.choices("abc", weights=[1, 5, 2], k=4)
random.seed("hello")
j = random.random()
random.seed(1180591620717411303429)
k = random.randrange(0, 1000000000000000000000000000000, 7)
out = repr([a, b, c, d, e, f, g, h, i, j, k])
`
	want := cpythontest.Golden(t, "testdata/cpython/TestRandomMatchesCPython.out", func(py string) ([]byte, error) {
		return cpythontest.Run(py, "import random\n"+prog+"\nprint(out)")
	})
	m, _ := builtins.Module("random")
	env := builtins.Universe()
	env["random"] = m
	th := &starlark.Thread{}
	globals, err := starlark.ExecFileOptions(builtinstest.FileOptions, th, "r.py", prog, env)
	if err != nil {
		t.Fatal(err)
	}
	got := string(globals["out"].(starlark.String))
	if got != strings.TrimSpace(string(want)) {
		t.Errorf("random sequences differ\n got: %s\nwant: %s", got, want)
	}
}
