package builtins_test

import (
	"testing"

	"github.com/star-agent/star-agent/builtins/internal/builtinstest"
)

func TestSubscript(t *testing.T) { builtinstest.RunCases(t, subscriptCases) }

// subscriptCases: a str is indexed and sliced by code point, instances get
// slice objects, and errors are CPython's.
var subscriptCases = []builtinstest.Case{
	{Name: "str_code_points", Src: `s = "héllo wörld ✓"
print(s[1], s[-1], s[1:4], s[::-1], s[::2], s[-3:], s[:100], s[7:2], s[2:9:3])
long = "é" * 100 + "abc"
print(long[100:], long[-3], len(long[::2]), long[99:101], long[-1:-5:-1])
for i in range(len(long) - 2, len(long)):
    print(i, long[i], end="; ")
print()
print("ascii"[1:3], "ascii"[::-2], ""[:], "x"[0])
`, Want: "\u00e9 \u2713 \u00e9ll \u2713 dlr\u00f6w oll\u00e9h hlowrd\u2713 d \u2713 h\u00e9llo w\u00f6rld \u2713  l r\nabc a 52 \u00e9a cba\u00e9\n101 b; 102 c; \nsc ica  x\n"},
	{Name: "sequences", Src: `l = [1, 2, 3, 4]
print(l[True], l[-1], l[1:3], l[::-1], l[10:], l[-10:2], (1, 2, 3)[::2], range(10)[2:8:2], range(10)[-1])
print(b"abc"[1], b"abc"[0:2], b"abc"[::-1], {"a": 1}["a"], [[1, 2], [3]][0][1])
`, Want: "2 4 [2, 3] [4, 3, 2, 1] [] [1, 2] (1, 3) range(2, 8, 2) 9\n98 b'ab' b'cba' 1 2\n"},
	{Name: "slice_objects", Src: `class Grid:
    def __init__(self):
        self.d = list(range(10))
    def __getitem__(self, k):
        if isinstance(k, slice):
            print("slice", k, k.start, k.stop, k.step, k.indices(10))
            return self.d[k]
        return self.d[k]
g = Grid()
print(g[2:5], g[::-3], g[3], g[-1])
sl = slice(1, 8, 3)
print(slice(3), sl, [0, 1, 2, 3, 4, 5, 6, 7, 8][sl], "abcdefghi"[sl], type(sl).__name__, isinstance(sl, slice))
`, Want: "slice slice(2, 5, None) 2 5 None (2, 5, 1)\nslice slice(None, None, -3) None None -3 (9, -1, -3)\n[2, 3, 4] [9, 6, 3, 0] 3 9\nslice(None, 3, None) slice(1, 8, 3) [1, 4, 7] beh slice True\n"},
	{Name: "errors", Src: `def attempt(f):
    try:
        f()
    except Exception as e:
        print(type(e).__name__, e)
l = [1, 2, 3]
attempt(lambda: l[5])
attempt(lambda: l["a"])
attempt(lambda: l[1.0])
half = 1.5
attempt(lambda: "abc"[half])
attempt(lambda: "abc"[3])
attempt(lambda: "é"[-2])
attempt(lambda: (1, 2)[2])
attempt(lambda: b"ab"[5])
attempt(lambda: {}[[1]])
attempt(lambda: {"a": 1}["b"])
attempt(lambda: {"a": 1}[1:2])
attempt(lambda: l[::0])
nothing = None
attempt(lambda: nothing[0])
attempt(lambda: slice())
`, Want: "IndexError list index out of range\nTypeError list indices must be integers or slices, not str\nTypeError list indices must be integers or slices, not float\nTypeError string indices must be integers, not 'float'\nIndexError string index out of range\nIndexError string index out of range\nIndexError tuple index out of range\nIndexError index out of range\nTypeError unhashable type: 'list'\nKeyError 'b'\nTypeError unhashable type: 'slice'\nValueError slice step cannot be zero\nTypeError 'NoneType' object is not subscriptable\nTypeError slice expected at least 1 argument, got 0\n"},
}
