package core

import (
	"math"
	"testing"

	"github.com/star-agent/star-agent/vm/starlark"
	"github.com/star-agent/star-agent/vm/syntax"
)

// Costs of the engine's helpers on the hot path, in plain go.starlark.net
// programs that call them as lowered code does, side by side with the
// native operators: what a helper adds per operation.

func runHot(b *testing.B, src string, predeclared starlark.StringDict) {
	b.Helper()
	opts := &syntax.FileOptions{Recursion: true, While: true, TopLevelControl: true, GlobalReassign: true}
	th := &starlark.Thread{Name: "hot"}
	globals, err := starlark.ExecFileOptions(opts, th, "hot.star", src, predeclared)
	if err != nil {
		b.Fatal(err)
	}
	f := globals["f"]
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := starlark.Call(th, f, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHelperMul(b *testing.B) {
	const loop = "def f():\n    t = 0\n    for i in range(100000):\n        t = %s\n    return t\n"
	pre := starlark.StringDict{
		"mul":      starlark.NewBuiltin("mul", SaMul),
		"mul_fast": starlark.NewBuiltin("mul", SaMulFast),
		"pow":      starlark.NewBuiltin("pow", SaPow),
		"pow_fast": starlark.NewBuiltin("pow", SaPowFast),
	}
	for _, c := range []struct{ name, expr string }{
		{"native-add", "i + 2"},
		{"native-mul", "i * 2"},
		{"SaMul", "mul(i, 2)"},
		{"SaMulFast", "mul_fast(i, 2)"},
		{"SaPow", "pow(i, 2)"},
		{"SaPowFast", "pow_fast(i, 2)"},
	} {
		b.Run(c.name, func(b *testing.B) {
			runHot(b, sprintf(loop, c.expr), pre)
		})
	}
}

// BenchmarkFibLowered is fib(20) as written in Starlark and as the front
// end lowers it (the comparison with a literal through a comparison
// constant, + through the plus guard).
func BenchmarkFibLowered(b *testing.B) {
	box := &ThreadBox{}
	k, err := CmpConsts{}.Make(nil, starlark.NewBuiltin("k", nil), starlark.Tuple{starlark.String("<"), starlark.MakeInt(2), starlark.False}, nil)
	if err != nil {
		b.Fatal(err)
	}
	pre := starlark.StringDict{"plus": &PlusGuard{Box: box}, "k": k}
	for _, c := range []struct{ name, body string }{
		{"plain", "n if n < 2 else fib(n - 1) + fib(n - 2)"},
		{"cmpconst", "n if n in k else fib(n - 1) + fib(n - 2)"},
		{"plusguard", "n if n < 2 else plus[fib(n - 1)][fib(n - 2)]"},
		{"lowered", "n if n in k else plus[fib(n - 1)][fib(n - 2)]"},
	} {
		b.Run(c.name, func(b *testing.B) {
			runHot(b, "def fib(n):\n    return "+c.body+"\ndef f():\n    return fib(20)\n", pre)
		})
	}
}

func sprintf(format, s string) string {
	out := ""
	for i := 0; i < len(format); i++ {
		if format[i] == '%' && i+1 < len(format) && format[i+1] == 's' {
			out += s
			i++
			continue
		}
		out += string(format[i])
	}
	return out
}

func TestMulFastAllocatesNothing(t *testing.T) {
	x, y := starlark.MakeInt(12345), starlark.MakeInt(6789)
	args := starlark.Tuple{x, y}
	fn := starlark.NewBuiltin("mul", SaMulFast)
	n := testing.AllocsPerRun(100, func() {
		if _, err := SaMulFast(nil, fn, args, nil); err != nil {
			t.Fatal(err)
		}
	})
	if n != 0 {
		t.Errorf("SaMulFast of two small ints allocates %v times", n)
	}
}

func TestMulIntsBounds(t *testing.T) {
	big := starlark.MakeInt(1).Lsh(MaxIntBits - 10)
	if _, err := MulInts(big, big); err == nil {
		t.Error("a product of 2*MaxIntBits bits was computed")
	}
	for _, c := range [][3]int64{
		{math.MaxInt64, 1, math.MaxInt64}, {math.MinInt64, 1, math.MinInt64},
		{-1, 1 << 62, -(1 << 62)}, {3037000499, 3037000499, 9223372030926249001},
	} {
		r, err := MulInts(starlark.MakeInt64(c[0]), starlark.MakeInt64(c[1]))
		if err != nil || r.String() != starlark.MakeInt64(c[2]).String() {
			t.Errorf("%d * %d = %v, %v", c[0], c[1], r, err)
		}
	}
	// Overflowing 64 bits: the big-integer product.
	r, _ := MulInts(starlark.MakeInt64(math.MinInt64), starlark.MakeInt64(-1))
	if r.String() != "9223372036854775808" {
		t.Errorf("MinInt64 * -1 = %v", r)
	}
	r, _ = PowFast(nil, starlark.MakeInt(3), starlark.MakeInt(40))
	if r.String() != "12157665459056928801" {
		t.Errorf("3 ** 40 = %v", r)
	}
}

// BenchmarkGuards: the operator guards against the native operators they
// would replace in lowered code.
func BenchmarkGuards(b *testing.B) {
	const loop = "def f():\n    n = 50000\n    t = 0\n    for i in range(100000):\n        t = %s\n    return t\n"
	pre := starlark.StringDict{
		"lt":   &CmpGuard{Op: syntax.LT},
		"fdiv": &DivGuard{Box: &ThreadBox{}},
		"rem":  &DivGuard{Box: &ThreadBox{}, Mod: true},
		"binop": starlark.NewBuiltin("binop", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			return NumBinary(th, syntax.SLASHSLASH, args[0], args[1])
		}),
	}
	for _, c := range []struct{ name, expr string }{
		{"native-lt", "i < n"},
		{"CmpGuard-lt", "lt[i][n]"},
		{"native-floordiv", "i // 7"},
		{"DivGuard-floordiv", "fdiv[i][7]"},
		{"call-floordiv", "binop(i, 7)"},
		{"native-mod", "i % 7"},
		{"DivGuard-mod", "rem[i][7]"},
	} {
		b.Run(c.name, func(b *testing.B) {
			runHot(b, sprintf(loop, c.expr), pre)
		})
	}
}
