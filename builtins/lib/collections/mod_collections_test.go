package collections_test

import (
	"testing"

	"github.com/star-agent/star-agent/builtins"
	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/builtins/internal/builtinstest"
	"github.com/star-agent/star-agent/vm/starlark"
)

// TestTupleSubclassEquality checks that Python's == (the front end's
// __sa_eq) compares namedtuples and struct_time as the plain tuples of
// their items, as CPython does: Point(3, 4) == (3, 4).
func TestTupleSubclassEquality(t *testing.T) {
	env := builtinstest.Env()
	env["EQ"] = builtins.Runtime()[contract.HelperEq]
	cases := map[string]bool{
		`EQ(collections.namedtuple("P", "x y")(3, 4), (3, 4))`:                                   true,
		`EQ((3, 4), collections.namedtuple("P", "x y")(3, 4))`:                                   true,
		`EQ(collections.namedtuple("P", "x y")(3, 4), (3, 5))`:                                   false,
		`EQ(collections.namedtuple("P", "x y")(3, 4), collections.namedtuple("Q", "a b")(3, 4))`: true,
		`EQ(collections.namedtuple("P", "x y")(3, 4), [3, 4])`:                                   false,
		`EQ(time.gmtime(0), (1970, 1, 1, 0, 0, 0, 3, 1, 0))`:                                     true,
		`EQ([collections.namedtuple("P", "x y")(1, True)], [(1, 1)])`:                            true,
	}
	for expr, want := range cases {
		v, err := starlark.EvalOptions(builtinstest.FileOptions, &starlark.Thread{}, "t", expr, env)
		if err != nil {
			t.Errorf("%s: %v", expr, err)
			continue
		}
		if v != starlark.Bool(want) {
			t.Errorf("%s = %v, want %v", expr, v, want)
		}
	}
}
