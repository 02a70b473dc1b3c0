package math_test

import (
	"math/big"
	"strconv"
	"testing"

	"github.com/star-agent/star-agent/builtins"
	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/internal/builtinstest"
	"github.com/star-agent/star-agent/vm/starlark"
)

// TestLibmWithCPython compares, bit for bit, the math functions this
// engine computes as CPython's C code does: glibc's cbrt on many
// arguments, CPython's own gamma and lgamma where Go's exp, pow and log
// (which differ from glibc's in the last bit now and then) do not decide,
// and log of subnormals and of ints beyond float range.
func TestLibmWithCPython(t *testing.T) {
	var want [][]string
	builtinstest.PythonJSON(t, `
import json, math, random
random.seed(7)
xs = [27.0, 8.0, 0.125, -27.0, 1e-310, 5e-324, 1e308, 0.5, 10.0, 2.0 ** -1074]
xs += [random.choice([1, -1]) * 10 ** random.uniform(-300, 300) for _ in range(5000)]
def h(f, x):
    try:
        return f(x).hex()
    except Exception as e:
        return type(e).__name__
rows = [[x.hex(), h(math.cbrt, x), "", "", "", ""] for x in xs]
# lgamma and gamma where only their own code and exactly rounded steps
# decide (Go's exp and pow, which gamma needs elsewhere, differ from glibc's).
rows += [[x.hex(), "", h(math.gamma, x), h(math.lgamma, x), "", ""] for x in [1.0, 2.0, 0.0, -1.0, -2.0, 1e-21, -1e-21, float("inf"), float("-inf")]]
rows += [[x.hex(), "", h(math.gamma, x), "", "", ""] for x in [3.0, 5.0, 10.0, 22.0, 23.0, 201.0, 1e300]]
rows += [[x.hex(), "", "", h(math.lgamma, x), "", ""] for x in [10.0, 3.0, 100.0, 0.25, 1e300, 1e306]]
rows += [[x.hex(), "", "", "", h(math.log, x), ""] for x in [1e-310, 5e-324, 2.0 ** -1030, 3e-320, 1.0, 0.0, -1.0]]
rows += [[str(n), "", "", "", h(math.log, n), h(math.log10, n)] for n in [10**400, 3**1000 + 1, 2**1024, 2**1024 - 1, 7 * 10**308, 0, -5]]
print(json.dumps(rows))
`, &want)
	m, _ := builtins.Module("math")
	names := []string{"cbrt", "gamma", "lgamma", "log", "log10"}
	bad := 0
	for _, row := range want {
		var x starlark.Value
		if n, ok := new(big.Int).SetString(row[0], 10); ok {
			x = starlark.MakeBigInt(n)
		} else {
			f, err := strconv.ParseFloat(row[0], 64)
			if err != nil {
				t.Fatal(err)
			}
			x = starlark.Float(f)
		}
		for i, name := range names {
			if row[i+1] == "" {
				continue
			}
			f, _ := m.(*core.PyModule).Attr(name)
			v, err := starlark.Call(&starlark.Thread{}, f, starlark.Tuple{x}, nil)
			var got string
			if err != nil {
				got, _ = core.Classify(err)
			} else {
				got = pyFloatHex(float64(v.(starlark.Float)))
			}
			if got != row[i+1] && bad < 30 {
				bad++
				t.Errorf("math.%s(%s) = %s, CPython %s", name, row[0], got, row[i+1])
			}
		}
	}
}

// pyFloatHex is float.hex().
func pyFloatHex(f float64) string {
	return core.FloatHex(f)
}
