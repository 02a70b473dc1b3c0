package builtins

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/vm/starlark"
)

// TestSortPlainIsTheStableSort: sorting values with no key (where the
// engine sorts their Go values when equal ones cannot be told apart)
// gives what the general stable sort gives (the same values with
// key=identity), element by element and by repr, for lists that span
// several of its blocks, both directions, and the values that must not
// take that path (-0.0 beside 0.0, NaN, ints beyond 32 bits, ints
// mixed with floats).
func TestSortPlainIsTheStableSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	identity := starlark.NewBuiltin("identity", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
		return args[0], nil
	})
	gens := map[string]func(i int) starlark.Value{
		"small ints": func(int) starlark.Value { return starlark.MakeInt64(rng.Int64N(2000) - 1000) },
		"wide ints":  func(int) starlark.Value { return starlark.MakeInt64(rng.Int64N(1<<40) - 1<<39) },
		"edge ints": func(int) starlark.Value {
			return starlark.MakeInt64([]int64{math.MinInt32, math.MaxInt32, 0, -1, math.MaxInt32 + 1}[rng.IntN(5)])
		},
		"floats": func(int) starlark.Value { return starlark.Float(float64(rng.IntN(500)) / 4) },
		"signed zeros": func(int) starlark.Value {
			return starlark.Float([]float64{0, math.Copysign(0, -1), 1, -1}[rng.IntN(4)])
		},
		"ints and floats": func(int) starlark.Value {
			return []starlark.Value{starlark.MakeInt(1), starlark.Float(1), starlark.Float(0.5)}[rng.IntN(3)]
		},
		"strings": func(int) starlark.Value { return starlark.String(strconv.Itoa(rng.IntN(3000)) + "é") },
		// Long natural runs, merged run by run: ascending runs of about
		// 12, descending runs, sorted and reversed data, with repeats.
		"ascending runs":  func(i int) starlark.Value { return starlark.MakeInt(i * 7919 % 100003) },
		"descending runs": func(i int) starlark.Value { return starlark.MakeInt(-(i * 7919 % 100003) / 3) },
		"sorted":          func(i int) starlark.Value { return starlark.MakeInt(i / 3) },
		"reversed floats": func(i int) starlark.Value { return starlark.Float(float64(-i/2) / 8) },
		"string runs":     func(i int) starlark.Value { return starlark.String(strconv.Itoa(i % 40 / 2)) },
	}
	for name, gen := range gens {
		for _, n := range []int{0, 1, 2, 31, 1000, 3*(1<<15) + 7} {
			vals := make([]starlark.Value, n)
			for i := range vals {
				vals[i] = gen(i)
			}
			for _, reverse := range []bool{false, true} {
				got := append([]starlark.Value(nil), vals...)
				want := append([]starlark.Value(nil), vals...)
				if err := core.SortValues(&starlark.Thread{}, got, starlark.None, reverse); err != nil {
					t.Fatal(err)
				}
				if err := core.SortValues(&starlark.Thread{}, want, identity, reverse); err != nil {
					t.Fatal(err)
				}
				for i := range got {
					if got[i].String() != want[i].String() || got[i].Type() != want[i].Type() {
						t.Fatalf("%s, %d values, reverse=%v: at %d got %s %s, want %s %s", name, n, reverse, i, got[i].Type(), got[i], want[i].Type(), want[i])
					}
				}
			}
		}
	}
	// NaN: no order, and CPython's result is what its comparisons give;
	// the sort must not take the plain path (which would move the NaN).
	nan := []starlark.Value{starlark.Float(3), starlark.Float(math.NaN()), starlark.Float(1), starlark.Float(2)}
	if err := core.SortValues(&starlark.Thread{}, nan, starlark.None, false); err != nil {
		t.Fatal(err)
	}
	if got := starlark.NewList(nan).String(); got != "[3.0, nan, 1.0, 2.0]" {
		t.Errorf("sorted([3.0, nan, 1.0, 2.0]) = %s, want CPython's [3.0, nan, 1.0, 2.0]", got)
	}
}
