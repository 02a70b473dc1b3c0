package builtins_test

import (
	"crypto/rand"
	"errors"
	"math/big"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/star-agent/star-agent/builtins/core"
	"github.com/star-agent/star-agent/builtins/internal/builtinstest"
	"github.com/star-agent/star-agent/vm/starlark"
)

// Builtins that math/big or a long loop would keep busy past the deadline,
// or that would allocate far beyond what they charge: each test is an
// attack that got through before the bound it tests.

// evalIn evaluates src (Starlark syntax over the builtins) on th with the
// extra globals.
func evalIn(th *starlark.Thread, src string, extra starlark.StringDict) (starlark.Value, error) {
	env := builtinstest.Env()
	for k, v := range extra {
		env[k] = v
	}
	return starlark.EvalOptions(builtinstest.FileOptions, th, "bounds.py", src, env)
}

// stoppedThread returns a thread whose execution is past its deadline.
func stoppedThread() *starlark.Thread {
	th := &starlark.Thread{Name: "stopped"}
	done := make(chan struct{})
	close(done)
	core.SetBudget(th, &core.Budget{Limit: 1 << 30, Done: done, Reason: func() string { return "timeout" }})
	return th
}

func TestPowWithModulusStopsAtDeadline(t *testing.T) {
	// big.Int.Exp took over a minute on this and could not be stopped.
	m := new(big.Int).Lsh(big.NewInt(1), 60000)
	extra := starlark.StringDict{
		"e": starlark.MakeBigInt(new(big.Int).Add(m, big.NewInt(1))),
		"m": starlark.MakeBigInt(new(big.Int).Add(m, big.NewInt(3))),
	}
	th := budgetThread(1<<30, 50*time.Millisecond)
	start := time.Now()
	_, err := evalIn(th, `pow(3, e, m)`, extra)
	elapsed := time.Since(start)
	var intr *core.Interrupt
	if !errors.As(err, &intr) {
		t.Fatalf("pow(3, 2**60000+1, 2**60000+3) with a 50ms deadline: err = %v after %v, want an Interrupt", err, elapsed)
	}
	// Only a hang is caught here: the uninterruptible Exp ran for minutes.
	if elapsed > 10*time.Second {
		t.Errorf("pow returned %v after start; the deadline was 50ms", elapsed)
	}
}

func TestExpModMatchesBigExp(t *testing.T) {
	th := &starlark.Thread{}
	for _, c := range []struct{ xBits, yBits, mBits int }{
		{100, 64, 64},        // one Exp call
		{5000, 8192, 4096},   // the windowed loop
		{20000, 3000, 10001}, // odd and even moduli, base above the modulus
		{300, 7, 10000},
		{64, 20000, 2},
		{64, 1 << 16, 1},
	} {
		for _, odd := range []bool{true, false} {
			x, y, m := randInt(t, c.xBits), randInt(t, c.yBits), randInt(t, c.mBits)
			m.SetBit(m, 0, map[bool]uint{true: 1, false: 0}[odd])
			if m.Sign() == 0 {
				m.SetInt64(1)
			}
			got, err := core.ExpMod(th, x, y, m)
			if err != nil {
				t.Fatal(err)
			}
			if want := new(big.Int).Exp(x, y, m); got.Cmp(want) != 0 {
				t.Errorf("expMod of %d, %d, %d bits (odd modulus %v) differs from big.Int.Exp", c.xBits, c.yBits, c.mBits, odd)
			}
		}
	}
}

func randInt(t *testing.T, bits int) *big.Int {
	t.Helper()
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), uint(bits)))
	if err != nil {
		t.Fatal(err)
	}
	return n.SetBit(n, bits-1, 1)
}

func TestIsqrtMatchesSqrtAndStops(t *testing.T) {
	th := &starlark.Thread{}
	for _, bits := range []int{1, 2, 63, 64, 14284, 14285, 14286, 20000, 65537, 200001} {
		for range 3 {
			n := randInt(t, bits)
			for _, v := range []*big.Int{n, new(big.Int).Mul(n, n), new(big.Int).Sub(new(big.Int).Mul(n, n), big.NewInt(1))} {
				got, err := core.Isqrt(th, v)
				if err != nil {
					t.Fatal(err)
				}
				if want := new(big.Int).Sqrt(v); got.Cmp(want) != 0 {
					t.Fatalf("isqrt of a %d-bit number differs from big.Int.Sqrt", v.BitLen())
				}
			}
		}
	}
	// big.Int.Sqrt of this took seconds and ignored the deadline.
	n := starlark.MakeBigInt(randInt(t, core.MaxBuiltIntBits))
	_, err := evalIn(stoppedThread(), `math.isqrt(n)`, starlark.StringDict{"n": n})
	var intr *core.Interrupt
	if !errors.As(err, &intr) {
		t.Errorf("math.isqrt of a 2**22-bit number past the deadline: %v, want an Interrupt", err)
	}
}

func TestIntStringDigitLimit(t *testing.T) {
	big4300 := starlark.MakeBigInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(4300), nil))
	big4299 := starlark.MakeBigInt(new(big.Int).Sub(big4300.BigInt(), big.NewInt(1)))
	neg := starlark.MakeBigInt(new(big.Int).Neg(big4300.BigInt()))
	extra := starlark.StringDict{"big": big4300, "ok": big4299, "neg": neg}
	for _, src := range []string{
		`str(big)`, `repr(big)`, `str(neg)`, `json.dumps(big)`, `json.dumps({big: 1})`, `json.dumps([ok, big])`,
		`format(big)`, `format(big, ",")`, `format(neg, "d")`, `F(big, "", "")`, `MOD("%d", big)`,
		`A("{}", "format")(big)`, `A("{:_}", "format")(neg)`, `str([big])`,
	} {
		_, err := evalIn(&starlark.Thread{}, src, extra)
		if typ, msg := core.Classify(errOrNil(err)); typ != "ValueError" || !strings.Contains(msg, "Exceeds the limit (4300 digits) for integer string conversion") {
			t.Errorf("%s: %s: %s, want CPython's ValueError", src, typ, msg)
		}
	}
	for _, src := range []string{`str(ok)`, `repr(-ok)`, `json.dumps(ok)`, `MOD("%d", ok)`, `format(ok, "")`} {
		v, err := evalIn(&starlark.Thread{}, src, extra)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if s, _ := starlark.AsString(v); strings.Trim(s, "-") != strings.Repeat("9", 4300) {
			t.Errorf("%s: got %d characters, want 4300 nines", src, len(s))
		}
	}
}

func TestIntStringLimitCostsNoConversion(t *testing.T) {
	// The check used to convert the number to find its length: str() of
	// a 2**22-bit number spent a quarter of a second (and more with
	// size) before refusing it.
	n := starlark.MakeBigInt(randInt(t, core.MaxBuiltIntBits))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := evalIn(&starlark.Thread{}, `str(n)`, starlark.StringDict{"n": n})
	runtime.ReadMemStats(&after)
	if typ, _ := core.Classify(errOrNil(err)); typ != "ValueError" {
		t.Fatalf("str of a 2**22-bit int: %v, want ValueError", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("refusing str() of a 2**22-bit int allocated %d bytes: it converted the number", grew)
	}
}

func TestIntFromTextOrBytesBounded(t *testing.T) {
	hexText := starlark.String(strings.Repeat("f", core.MaxBuiltIntBits/4+1))
	raw := starlark.Bytes(strings.Repeat("\xff", core.MaxBuiltIntBits/8+1))
	for _, src := range []string{`int(h, 16)`, `int("0x" + h, 0)`, `A(int, "from_bytes")(b, "big")`, `A(int, "from_bytes")(b, "little")`} {
		_, err := evalIn(&starlark.Thread{}, src, starlark.StringDict{"h": hexText, "b": raw})
		if typ, _ := core.Classify(errOrNil(err)); typ != "MemoryError" {
			t.Errorf("%s: %v, want MemoryError", src, err)
		}
	}
	// Leading zeros do not count; the limit itself is allowed.
	for _, src := range []string{`int("000" + h[1:], 16)`, `A(int, "from_bytes")(b"\0" * 10 + b[1:], "big")`} {
		if _, err := evalIn(&starlark.Thread{}, src, starlark.StringDict{"h": hexText, "b": raw}); err != nil {
			t.Errorf("%s: %v", src, err)
		}
	}
}

func TestGCDOfHugeIntegersRefused(t *testing.T) {
	// math/big's GCD is quadratic: two 2**22-bit numbers take minutes.
	a, b := starlark.MakeBigInt(randInt(t, 1<<22)), starlark.MakeBigInt(randInt(t, 1<<22-5))
	extra := starlark.StringDict{"a": a, "b": b, "small": starlark.MakeInt(1 << 40)}
	for _, src := range []string{`math.gcd(a, b)`, `math.lcm(a, b)`, `pow(3, -1, a)`} {
		_, err := evalIn(&starlark.Thread{}, src, extra)
		if typ, _ := core.Classify(errOrNil(err)); typ != "MemoryError" {
			t.Errorf("%s: %v, want MemoryError", src, err)
		}
	}
	// A huge number against a small one is one division.
	v, err := evalIn(&starlark.Thread{}, `math.gcd(b, small)`, extra)
	if err != nil {
		t.Fatal(err)
	}
	if want := new(big.Int).GCD(nil, nil, b.BigInt(), big.NewInt(1<<40)); v.(starlark.Int).BigInt().Cmp(want) != 0 {
		t.Errorf("gcd(huge, 2**40) = %v, want %v", v, want)
	}
}

func TestFromhexChargesAndMatchesCPython(t *testing.T) {
	// A 40 MB result from an 80 MB string made outside the budget: the old
	// fromhex charged nothing (and built it a byte at a time with Sscanf).
	s := starlark.String(strings.Repeat("00", 40<<20))
	_, err := evalIn(budgetThread(32<<20, 0), `A(bytes, "fromhex")(s)`, starlark.StringDict{"s": s})
	if typ, _ := core.Classify(errOrNil(err)); typ != "MemoryError" {
		t.Errorf("fromhex of 80 MB under a 32 MiB budget: %v, want MemoryError", err)
	}
	// CPython 3.11's results and positions.
	for in, want := range map[string]string{
		"0":            "position 1",
		"0 0":          "position 1",
		"00 0":         "position 4",
		" 00 ":         "\x00",
		"zz":           "position 0",
		"0\u00e90":     "position 1",
		"00\u200300":   "position 2",
		"0\t0":         "position 1",
		"00\x0b00":     "\x00\x00",
		"00\x1c00":     "position 2",
		"DEad be\nef ": "\xde\xad\xbe\xef",
		"":             "",
	} {
		v, err := evalIn(&starlark.Thread{}, `A(bytes, "fromhex")(s)`, starlark.StringDict{"s": starlark.String(in)})
		got := ""
		if err != nil {
			_, got = core.Classify(err)
		} else {
			got = string(v.(starlark.Bytes))
		}
		if !strings.HasSuffix(got, want) || err == nil && got != want {
			t.Errorf("bytes.fromhex(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestFloatFormatHugePrecision(t *testing.T) {
	// Digits past a double's exact expansion are zeros: the text must be
	// the same as strconv's, built without strconv's copies.
	const p = 3000
	for _, c := range []struct {
		f    float64
		spec string
		want string
	}{
		{1e300, ".3000f", strconv.FormatFloat(1e300, 'f', p, 64)},
		{-5e-324, ".3000f", strconv.FormatFloat(-5e-324, 'f', p, 64)},
		{1.5, ".3000e", strconv.FormatFloat(1.5, 'e', p, 64)},
		{-2.5, ".3000E", strings.ToUpper(strconv.FormatFloat(-2.5, 'e', p, 64))},
		{0.25, ".3000%", strconv.FormatFloat(25, 'f', p, 64) + "%"},
		{1.5, "#.3000g", strconv.FormatFloat(1.5, 'f', p-1, 64)},
		{1e-300, "#.3000g", strconv.FormatFloat(1e-300, 'e', p-1, 64)},
		{1.5, ">3010.3000f", "        " + strconv.FormatFloat(1.5, 'f', p, 64)},
		{1.5, "*^3010.3000f", "****" + strconv.FormatFloat(1.5, 'f', p, 64) + "****"},
		{-1.5, "=+3010.3000f", "-       " + strconv.FormatFloat(1.5, 'f', p, 64)},
		{1234.5, ",.3000f", "1,234." + strconv.FormatFloat(1234.5, 'f', p, 64)[5:]},
	} {
		v, err := evalIn(&starlark.Thread{}, `format(f, spec)`, starlark.StringDict{"f": starlark.Float(c.f), "spec": starlark.String(c.spec)})
		if err != nil {
			t.Errorf("format(%v, %q): %v", c.f, c.spec, err)
			continue
		}
		if got, _ := starlark.AsString(v); got != c.want {
			t.Errorf("format(%v, %q) differs from the exact expansion (%d characters, want %d)", c.f, c.spec, len(got), len(c.want))
		}
		// %-formatting goes through the same text.
		if strings.HasPrefix(c.spec, ".") && !strings.HasSuffix(c.spec, "%") {
			v, err := evalIn(&starlark.Thread{}, `MOD("%" + spec, f)`, starlark.StringDict{"f": starlark.Float(c.f), "spec": starlark.String(c.spec)})
			if got, _ := starlark.AsString(v); err != nil || got != c.want {
				t.Errorf("%%%s %% %v: err %v, or differs from the exact expansion", c.spec, c.f, err)
			}
		}
	}
}

func TestFloatFormatHugePrecisionAllocatesItsResult(t *testing.T) {
	// format(1e300, ".265000000f") reached 1.1 GB: strconv's buffer, its
	// string, and a copy per concatenation. It must cost about its result.
	const p = 20 << 20
	for _, src := range []string{`format(1e300, ".20971520f")`, `MOD("%.20971520f", 1e300)`, `A("{:.20971520e}", "format")(-1.5)`} {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		v, err := evalIn(&starlark.Thread{}, src, nil)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if n := len(v.(starlark.String)); n < p {
			t.Fatalf("%s: %d characters", src, n)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 2*p+p/2 {
			t.Errorf("%s allocated %d MiB for a %d MiB result", src, grew>>20, p>>20)
		}
	}
}

func TestPercentFormatChargesOnce(t *testing.T) {
	// Each conversion charged the whole result so far again: three 8 MiB
	// fields were charged 8+16+24 MiB (and their padding twice).
	th := budgetThread(40<<20, 0)
	_, err := evalIn(th, `MOD("%8388608s%8388608s%8388608s", ("a", "b", "c"))`, nil)
	if err != nil {
		t.Errorf("24 MiB of %%-formatting under a 40 MiB budget: %v", err)
	}
}

func TestCombIsNotQuadratic(t *testing.T) {
	for _, c := range [][2]int64{{0, 0}, {10, 0}, {10, 10}, {52, 5}, {100, 50}, {1000, 999}, {5000, 1234}} {
		v, err := evalIn(&starlark.Thread{}, `math.comb(n, k)`, starlark.StringDict{"n": starlark.MakeInt64(c[0]), "k": starlark.MakeInt64(c[1])})
		if err != nil {
			t.Fatal(err)
		}
		if want := new(big.Int).Binomial(c[0], c[1]); v.(starlark.Int).BigInt().Cmp(want) != 0 {
			t.Errorf("comb(%d, %d) = %v, want %v", c[0], c[1], v, want)
		}
	}
	// big.Int.Binomial multiplies and divides k times, in seconds that
	// cannot be interrupted; the products and one division take tens of
	// milliseconds, not started past the deadline.
	_, err := evalIn(stoppedThread(), `math.comb(1000000, 50000)`, nil)
	var intr *core.Interrupt
	if !errors.As(err, &intr) {
		t.Errorf("comb(10**6, 5*10**4) past the deadline: %v, want an Interrupt", err)
	}
}

func TestStatisticsOfHugeFractionsRefused(t *testing.T) {
	// Each exact addition reduces by a gcd of the fractions' size, and
	// stdev squares them: seconds per term, out of reach of the deadline.
	for _, src := range []string{
		`statistics.stdev([P(fractions.Fraction(3, 7), 100000), 1, 2])`,
		`statistics.mean([P(fractions.Fraction(3, 7), 100000), 1])`,
	} {
		_, err := evalIn(&starlark.Thread{}, src, nil)
		if typ, _ := core.Classify(errOrNil(err)); typ != "MemoryError" {
			t.Errorf("%s: %v, want MemoryError", src, err)
		}
	}
	// Big integers are fine (their denominators are 1).
	if _, err := evalIn(&starlark.Thread{}, `statistics.mean([P(2, 100000), P(2, 100001)])`, nil); err != nil {
		t.Error(err)
	}
}

func TestListSearchesStopAtDeadline(t *testing.T) {
	// index and remove walked the whole list without looking at the
	// deadline (count goes through forEach, which does).
	big := make([]starlark.Value, 1<<20)
	for i := range big {
		big[i] = starlark.MakeInt(i)
	}
	for _, src := range []string{`A(l, "index")(-1)`, `A(l, "remove")(-1)`, `A(l, "count")(-1)`, `A(tuple(l), "index")(-1)`} {
		_, err := evalIn(stoppedThread(), src, starlark.StringDict{"l": starlark.NewList(big)})
		var intr *core.Interrupt
		if !errors.As(err, &intr) {
			t.Errorf("%s on 2**20 items past the deadline: %v, want an Interrupt", src, err)
		}
	}
}

func TestDecimalHugeExponentsBounded(t *testing.T) {
	// 10**exp was built for hashes, comparisons and int(): seconds,
	// uninterruptible, for Decimal("1e-99999999").
	for _, src := range []string{`decimal.Decimal("1e-99999999")`, `decimal.Decimal("1e99999999")`, `decimal.Decimal("9" * 200001)`} {
		_, err := evalIn(&starlark.Thread{}, src, nil)
		if typ, _ := core.Classify(errOrNil(err)); typ != "NotImplementedError" {
			t.Errorf("%s: %v, want NotImplementedError", src, err)
		}
	}
	// Within the limits, nothing builds 10**999999 (a 3.3-million-bit
	// number): hash, comparison and int() of the extremes allocate little.
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := evalIn(&starlark.Thread{}, `[hash(decimal.Decimal("1e999999")), hash(decimal.Decimal("-7e-999999")),
		decimal.Decimal("1e-999999") < decimal.Decimal("3e-999998"), int(decimal.Decimal("5e-999999"))]`, nil)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
		t.Errorf("hash, comparison and int() of Decimals of exponent 999999 allocated %d MiB", grew>>20)
	}
}

func TestFractionsBoundedByTheirGCD(t *testing.T) {
	// Every fraction is reduced by a gcd, quadratic and uninterruptible:
	// two 400,000-bit parts took a third of a second, 2**20-bit ones 1.7 s.
	a, b := starlark.MakeBigInt(randInt(t, 400000)), starlark.MakeBigInt(randInt(t, 400000))
	_, err := evalIn(&starlark.Thread{}, `fractions.Fraction(a, b)`, starlark.StringDict{"a": a, "b": b})
	if typ, _ := core.Classify(errOrNil(err)); typ != "MemoryError" {
		t.Errorf("Fraction of two 400,000-bit ints: %v, want MemoryError", err)
	}
	// limit_denominator takes a division per partial quotient.
	c, d := starlark.MakeBigInt(randInt(t, 200000)), starlark.MakeBigInt(randInt(t, 200000))
	f, err := evalIn(&starlark.Thread{}, `fractions.Fraction(c, d)`, starlark.StringDict{"c": c, "d": d})
	if err != nil {
		t.Fatal(err)
	}
	_, err = evalIn(stoppedThread(), `f.limit_denominator(f.denominator - 1)`, starlark.StringDict{"f": f})
	var intr *core.Interrupt
	if !errors.As(err, &intr) {
		t.Errorf("limit_denominator of a 400,000-bit fraction past the deadline: %v, want an Interrupt", err)
	}
}

func TestSumOfBigValuesChecksEachItem(t *testing.T) {
	// sum looked at the deadline every 4096 items: 4096 additions of
	// 2**22-bit ints, or of a list being concatenated, take seconds.
	x := starlark.MakeBigInt(randInt(t, 1<<22))
	for _, src := range []string{`sum([x] * 100)`, `sum([[1] * 1000] * 100, [])`, `math.prod([x] * 100)`} {
		_, err := evalIn(stoppedThread(), src, starlark.StringDict{"x": x})
		var intr *core.Interrupt
		if !errors.As(err, &intr) {
			t.Errorf("%s past the deadline: %v, want an Interrupt", src, err)
		}
	}
}
