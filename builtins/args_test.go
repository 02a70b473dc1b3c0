package builtins_test

import (
	"testing"

	"github.com/star-agent/star-agent/builtins/internal/builtinstest"
)

// TestIntegerArguments: builtins and modules take integer arguments as
// CPython does (core.Index and its variants): huge slice bounds clamped,
// bools as ints, and CPython's messages for what is no integer or does
// not fit. (Objects with __index__ are accepted by core.Index too, but
// the front end does not let a class define __index__ yet.)
func TestIntegerArguments(t *testing.T) {
	builtinstest.RunCases(t, []builtinstest.Case{{
		Name: "index and its variants",
		Src: `import bisect, math, operator, time
print("ab".center(6, "*"), chr(97), bin(True), hex(255), list(range(True, 3)), "abcd"[-2:])
print("abcabc".find("c", 3), "abc".find("a", 10**30), "abc".find("c", -10**30), "abc".count("b", 0, 10**30), "abc".rfind("c", 0, 10**30))
print([1, 2, 3].index(3, -10**30, 10**30), "abc"[10**30:], "abc"[-10**30:1])
print(operator.index(7), operator.index(True), math.factorial(True), math.comb(5, 2), math.gcd(True, 4))
print(bisect.bisect([1, 2, 3], 2, True, 3), time.gmtime(True).tm_sec, pow(True, 3, 5))
for f in [lambda: chr(1.5), lambda: operator.index(1.5), lambda: "ab"[1.5:], lambda: "ab".find("a", 1.5),
          lambda: "ab".center(10**30), lambda: time.sleep(10**400), lambda: math.gcd(2.0, 4),
          lambda: range(1.5), lambda: bin(1.5), lambda: bisect.bisect([1], 1, 1.5)]:
    try:
        f()
    except (TypeError, OverflowError) as e:
        print(type(e).__name__, e)
`,
		Want: `**ab** a 0b1 0xff [1, 2] cd
5 -1 2 1 2
2  a
7 1 1 10 1
2 1 1
TypeError 'float' object cannot be interpreted as an integer
TypeError 'float' object cannot be interpreted as an integer
TypeError slice indices must be integers or None or have an __index__ method
TypeError slice indices must be integers or None or have an __index__ method
OverflowError Python int too large to convert to C ssize_t
OverflowError timestamp too large to convert to C _PyTime_t
TypeError 'float' object cannot be interpreted as an integer
TypeError 'float' object cannot be interpreted as an integer
TypeError 'float' object cannot be interpreted as an integer
TypeError 'float' object cannot be interpreted as an integer
`,
	}})
}
