package core

import (
	"math"
	"testing"

	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// TestCmpGuard: ordered comparisons as Python orders them, where
// go.starlark.net does not (NaN, bools), and without allocating on ints.
func TestCmpGuard(t *testing.T) {
	nan := starlark.Float(math.NaN())
	one, two := starlark.MakeInt(1), starlark.MakeInt(2)
	big := starlark.MakeInt(1).Lsh(100)
	ops := []syntax.Token{syntax.LT, syntax.LE, syntax.GT, syntax.GE}
	for _, c := range []struct {
		x, y starlark.Value
		want [4]bool // <, <=, >, >=
	}{
		{nan, nan, [4]bool{}},
		{nan, one, [4]bool{}},
		{starlark.Float(1.5), nan, [4]bool{}},
		{one, nan, [4]bool{}},
		{one, two, [4]bool{true, true, false, false}},
		{two, two, [4]bool{false, true, false, true}},
		{big, two, [4]bool{false, false, true, true}},
		{starlark.True, two, [4]bool{true, true, false, false}},
		{one, starlark.Float(0.5), [4]bool{false, false, true, true}},
		{starlark.String("a"), starlark.String("b"), [4]bool{true, true, false, false}},
	} {
		for i, op := range ops {
			left, _, _ := (&CmpGuard{Op: op}).Get(c.x)
			r, _, err := left.(starlark.Mapping).Get(c.y)
			if err != nil || r != starlark.Bool(c.want[i]) {
				t.Errorf("%s %s %s = %v, %v; want %v", c.x, op, c.y, r, err, c.want[i])
			}
		}
	}
	left, _, _ := (&CmpGuard{Op: syntax.LT}).Get(one)
	if _, _, err := left.(starlark.Mapping).Get(starlark.String("a")); err == nil || err.Error() != "TypeError: '<' not supported between instances of 'int' and 'str'" {
		t.Errorf("1 < 'a': %v", err)
	}
	g := &CmpGuard{Op: syntax.GE}
	n := testing.AllocsPerRun(100, func() {
		left, _, _ := g.Get(one)
		left.(starlark.Mapping).Get(two)
	})
	if n != 0 {
		t.Errorf("int >= int through the guard allocates %v times", n)
	}
}
