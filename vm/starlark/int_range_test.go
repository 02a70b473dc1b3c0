package starlark

import (
	"math"
	"math/big"
	"testing"
)

// intEdges are ints at the edges of every small range the VM may
// reserve (2^32 to 2^44 bytes) and of int64.
func intEdges() []int64 {
	xs := []int64{0, 1, -1, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1}
	for _, bits := range []uint{31, 35, 39, 43} {
		e := int64(1) << bits
		xs = append(xs, e-1, e, e+1, -e-1, -e, -e+1)
	}
	return xs
}

// checkIntEdges fails unless every edge value reads back as itself, adds
// and multiplies as math/big does, and compares with its neighbours.
func checkIntEdges(fail func(format string, args ...any)) {
	for _, x := range intEdges() {
		i := MakeInt64(x)
		if got, ok := i.Int64(); !ok || got != x {
			fail("MakeInt64(%d).Int64() = %d, %v", x, got, ok)
		}
		if got := i.String(); got != big.NewInt(x).String() {
			fail("MakeInt64(%d).String() = %s", x, got)
		}
		for _, y := range []int64{-1, 1, 2} {
			j := MakeInt64(y)
			want := new(big.Int).Add(big.NewInt(x), big.NewInt(y))
			if got := i.Add(j); got.BigInt().Cmp(want) != 0 {
				fail("%d + %d = %s, want %s", x, y, got, want)
			}
			want = new(big.Int).Mul(big.NewInt(x), big.NewInt(y))
			if got := i.Mul(j); got.BigInt().Cmp(want) != 0 {
				fail("%d * %d = %s, want %s", x, y, got, want)
			}
			if c, err := i.Cmp(MakeInt64(x), 0); c != 0 || err != nil {
				fail("%d compares %d with itself (%v)", x, c, err)
			}
		}
	}
}

func TestIntSmallRangeEdges(t *testing.T) {
	checkIntEdges(t.Errorf)
}

// TestIntSmallRangeNoAlloc checks that ints beyond int32 inside the small
// range are boxed in an interface without allocating: i*i for i below a
// million and a loop's running sums stay in the reserved range.
func TestIntSmallRangeNoAlloc(t *testing.T) {
	if smallRange < 1<<44 {
		t.Skipf("small range is %#x bytes here", smallRange)
	}
	var sink Value
	for _, x := range []int64{999_999 * 999_999, 1<<43 - 1, -1 << 43, math.MaxInt32 + 1} {
		if n := testing.AllocsPerRun(10, func() { sink = MakeInt64(x) }); n != 0 {
			t.Errorf("MakeInt64(%d) as a Value: %v allocations, want 0", x, n)
		}
	}
	if n := testing.AllocsPerRun(10, func() { sink = MakeInt64(1 << 43) }); n != 1 {
		t.Errorf("MakeInt64(1<<43) as a Value: %v allocations, want 1 (the box)", n)
	}
	_ = sink
}
