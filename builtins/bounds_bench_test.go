package builtins_test

import (
	"math/big"
	"testing"

	"github.com/star-agent/star-agent/builtins"
	"github.com/star-agent/star-agent/builtins/contract"
	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/vm/starlark"
)

// The hot paths that the bounds on big integers, formatting and join
// touch, at normal sizes: the checks must cost nothing measurable there.

func BenchmarkBoundedHotPaths(b *testing.B) {
	th := &starlark.Thread{Name: "bench"}
	core.SetBudget(th, &core.Budget{Limit: 1 << 30})
	u := builtins.Universe()
	rt := builtins.Runtime()
	jsonMod, _ := builtins.Module("json")
	dumps, _ := jsonMod.(starlark.HasAttrs).Attr("dumps")
	join, _ := starlark.String(",").Attr("join")
	big200 := starlark.MakeBigInt(new(big.Int).Lsh(big.NewInt(3), 200))
	p127 := starlark.MakeBigInt(new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1)))
	p2048 := starlark.MakeBigInt(new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 2048), big.NewInt(159)))
	ints := make([]starlark.Value, 100)
	strs := make([]starlark.Value, 100)
	for i := range ints {
		ints[i] = starlark.MakeInt(i * 12345)
		strs[i] = starlark.String("item")
	}
	intList := starlark.NewList(ints)
	strList := starlark.NewList(strs)
	call := func(b *testing.B, fn starlark.Value, args ...starlark.Value) {
		b.Helper()
		for range b.N {
			if _, err := starlark.Call(th, fn, starlark.Tuple(args), nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("str_small_int", func(b *testing.B) { call(b, u["str"], starlark.MakeInt(123456789)) })
	b.Run("str_big_int", func(b *testing.B) { call(b, u["str"], big200) })
	b.Run("repr_list_of_ints", func(b *testing.B) { call(b, u["repr"], intList) })
	b.Run("format_int", func(b *testing.B) { call(b, u["format"], starlark.MakeInt(123456789)) })
	b.Run("format_int_grouped", func(b *testing.B) { call(b, u["format"], starlark.MakeInt(123456789), starlark.String(",")) })
	b.Run("format_float", func(b *testing.B) { call(b, u["format"], starlark.Float(3.14159), starlark.String(".3f")) })
	b.Run("format_float_e", func(b *testing.B) { call(b, u["format"], starlark.Float(-2.5e-10), starlark.String(">20.6e")) })
	b.Run("percent", func(b *testing.B) {
		call(b, rt[contract.HelperMod], starlark.String("%d: %.3f %s"), starlark.Tuple{starlark.MakeInt(42), starlark.Float(2.5), starlark.String("x")})
	})
	b.Run("fstring_field", func(b *testing.B) {
		call(b, rt[contract.HelperFormat], starlark.MakeInt(42), starlark.String(""), starlark.String("08d"))
	})
	b.Run("json_dumps_ints", func(b *testing.B) { call(b, dumps, intList) })
	b.Run("int_parse", func(b *testing.B) { call(b, u["int"], starlark.String("123456789")) })
	b.Run("int_parse_hex", func(b *testing.B) { call(b, u["int"], starlark.String("deadbeefcafe"), starlark.MakeInt(16)) })
	b.Run("pow_mod_127", func(b *testing.B) { call(b, u["pow"], starlark.MakeInt(3), p127, p127) })
	b.Run("pow_mod_2048", func(b *testing.B) { call(b, u["pow"], starlark.MakeInt(3), p2048, p2048) })
	b.Run("join_100", func(b *testing.B) { call(b, join, strList) })
}
