package builtins_test

// The bounded builtins at normal sizes print what CPython 3.11 prints:
// pow with a modulus on both of its paths, the 4300-digit limit at and
// past it, bytes.fromhex, float precisions past a double's expansion,
// isqrt, gcd, comb, getrandbits, exact statistics and join.

import (
	"testing"

	"github.com/star-agent/star-agent/builtins/internal/builtinstest"
)

var boundedCases = []builtinstest.Case{{Name: "bounded builtins at normal sizes", Src: `import math, json, random, statistics, fractions
print(pow(3, 10**30 + 7, 2**127 - 1), pow(-5, 12345, 1000003), pow(7, -1, 13), pow(5, 3, -7), pow(0, 0, 1))
print(pow(3, 2**4000 + 1, 2**4096 + 27) % 10**9, pow(3, 2**4000 + 1, -(2**4096 + 27)) % 10**9, pow(2**5000 + 3, 2**4500 - 1, 2**4100) % 10**9)
print(len(str(10**4299)), len(repr(-10**4299)), len(json.dumps(10**4299)), len(format(10**4299, ",")), len("%d" % 10**4299), len(f"{10**4299:_}"))
for f in [lambda: str(10**4300), lambda: repr(-10**4300), lambda: json.dumps([10**4300]), lambda: "%d" % 10**4300, lambda: f"{10**4300}", lambda: "{:,}".format(10**4300)]:
    try:
        f()
    except ValueError as e:
        print("ValueError", str(e).split(";")[0])
for f in [lambda: int("1" * 4301), lambda: int("1" * 4301, 3), lambda: int("-" + "7" * 4301, 36), lambda: json.loads("9" * 4301)]:
    try:
        f()
    except ValueError as e:
        print("ValueError", str(e).split(";")[0])
print(int("f" * 5000, 16) % 1000, int("1" * 4300) % 1000, json.loads("-" + "9" * 4300) % 10, len(hex(10**5000)), int.from_bytes(b"\xff" * 1000, "little") % 1000)
for s in ["0", "0 0", "00 0", " 00 ", "zz", "0\u00e90", "00\u200300", "0\t0", "00\x0b00", "00\x1c00", "DEad be\nef ", ""]:
    try:
        print(repr(s), bytes.fromhex(s))
    except ValueError as e:
        print(repr(s), e)
print(len(format(1e300, ".5000f")), format(2.5, ".2000e")[-10:], format(0.1, "#.1200g")[:30], ("%.3000f" % 0.1)[-5:], format(0.1, ".1500%")[-3:], len(f"{-1.5:*^3010.3000f}"))
print(format(1e-300, "#.1500g")[-12:], format(1.5, "#.1200")[-5:], len("%.2000e" % 5e-324), ("%-3010.3000f|" % 1.5)[-4:], ("%+.1200E" % 1.5)[:4])
print(math.isqrt(10**4000) == 10**2000, math.isqrt(2**30001 + 12345) % 10**9, math.isqrt(3**20000) % 10**9, math.isqrt(0), math.isqrt(15))
print(math.gcd(2**20000 - 1, 2**15000 - 1) == 2**5000 - 1, math.gcd(3**5000, 6**100, 0) % 10**9, math.lcm(2**300, 3**200, 6) % 10**9, math.gcd(), math.gcd(-12, 18), math.lcm(4, -6))
print(math.comb(1000, 500) % 10**9, math.comb(10**5, 3 * 10**3) % 1000003, math.comb(5, 7), math.perm(20, 10), math.factorial(2000) % 10**9, math.prod(range(1, 500)) % 10**9)
random.seed(7)
print(random.getrandbits(100), random.getrandbits(32), random.getrandbits(1000) % 10**9, random.randrange(10**40))
F = fractions.Fraction
print(statistics.mean([F(1, 3), F(2, 7), 5]), statistics.variance([F(1, 3), F(2, 7), 5]), statistics.stdev([1, 2, 3, 4]), statistics.mean([2**200, 3**100]))
print("-".join(str(i) for i in range(20)), "".join(x for x in []), ",".join(iter(["a", "b"])))
`,
	Want: `54631787851297679057193916214609968830 663457 2 -1 0
495704654 341514291 978030251
4300 4301 4300 5733 4300 5733
ValueError Exceeds the limit (4300 digits) for integer string conversion
ValueError Exceeds the limit (4300 digits) for integer string conversion
ValueError Exceeds the limit (4300 digits) for integer string conversion
ValueError Exceeds the limit (4300 digits) for integer string conversion
ValueError Exceeds the limit (4300 digits) for integer string conversion
ValueError Exceeds the limit (4300 digits) for integer string conversion
ValueError Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits
ValueError Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits
ValueError Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits
ValueError Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits
375 111 1 4155 375
'0' non-hexadecimal number found in fromhex() arg at position 1
'0 0' non-hexadecimal number found in fromhex() arg at position 1
'00 0' non-hexadecimal number found in fromhex() arg at position 4
' 00 ' b'\x00'
'zz' non-hexadecimal number found in fromhex() arg at position 0
'0é0' non-hexadecimal number found in fromhex() arg at position 1
'00\u200300' non-hexadecimal number found in fromhex() arg at position 2
'0\t0' non-hexadecimal number found in fromhex() arg at position 1
'00\x0b00' b'\x00\x00'
'00\x1c00' non-hexadecimal number found in fromhex() arg at position 2
'DEad be\nef ' b'\xde\xad\xbe\xef'
'' b''
5302 000000e+00 0.1000000000000000055511151231 00000 00% 3010
0000000e-300 00000 2007    | +1.5
True 296222703 552200001 0 3
True 107522001 491941376 0 6 12
821216320 637983 0 670442572800 0 0
487320478161116480663150048312 2795742288 232962512 2714178966890536600191214763756944231157
118/63 9703/1323 1.2909944487358056 8.034690221297528e+59
0-1-2-3-4-5-6-7-8-9-10-11-12-13-14-15-16-17-18-19  a,b
`}, {Name: "decimal comparisons and hashes without 10**exp", Src: `import decimal
D = decimal.Decimal
xs = [D("1e-999999"), D("-1e999999"), D("0"), D("-0"), D("1.5"), D("15e-1"), D("1.50"), D("-2.5"), D("123456789e-5"), D("1e6"), D("999999e0"), D("-1e-999999"), D("7.000"), D("7")]
print([[(a < b) - (a > b) for b in xs] for a in xs])
print([hash(x) for x in xs])
`,
	Want: `[[0, -1, -1, -1, 1, 1, 1, -1, 1, 1, 1, -1, 1, 1], [1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [1, -1, 0, 0, 1, 1, 1, -1, 1, 1, 1, -1, 1, 1], [1, -1, 0, 0, 1, 1, 1, -1, 1, 1, 1, -1, 1, 1], [-1, -1, -1, -1, 0, 0, 0, -1, 1, 1, 1, -1, 1, 1], [-1, -1, -1, -1, 0, 0, 0, -1, 1, 1, 1, -1, 1, 1], [-1, -1, -1, -1, 0, 0, 0, -1, 1, 1, 1, -1, 1, 1], [1, -1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1], [-1, -1, -1, -1, -1, -1, -1, -1, 0, 1, 1, -1, -1, -1], [-1, -1, -1, -1, -1, -1, -1, -1, -1, 0, -1, -1, -1, -1], [-1, -1, -1, -1, -1, -1, -1, -1, -1, 1, 0, -1, -1, -1], [1, -1, 1, 1, 1, 1, 1, -1, 1, 1, 1, 0, 1, 1], [-1, -1, -1, -1, -1, -1, -1, -1, 1, 1, 1, -1, 0, 0], [-1, -1, -1, -1, -1, -1, -1, -1, 1, 1, 1, -1, 0, 0]]
[2239689609886435038, -2137339169833320222, 0, 0, 1152921504606846977, 1152921504606846977, 1152921504606846977, -1152921504606846978, 513303712281061645, 1000000, 999999, -2239689609886435038, 7, 7]
`}}

func TestBoundedBuiltinsMatchCPython(t *testing.T) { builtinstest.RunCases(t, boundedCases) }
