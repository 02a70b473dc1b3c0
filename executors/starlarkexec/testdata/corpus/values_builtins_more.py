# More builtins as CPython has them: sorted's reverse as an int and its
# keyword-only arguments, dict views compared as sets, a Counter's unary
# + and -, and character classes mixing \W, \S or \D with other items.
import collections
import re

print(sorted([2, 1, 3], reverse=1), sorted([2, 1], reverse=0))
scores = [3, 1, 2]
scores.sort(reverse=1)
print(scores)
for f in [lambda: sorted([1], 2), lambda: sorted([1], reverse=1.5)]:
    try:
        print(f())
    except TypeError as e:
        print("TypeError:", e)

a = {"a": 1, "b": 2}
b = {"b": 3, "a": 4}
print(a.keys() == b.keys(), a.keys() != b.keys(), a.items() == b.items())
print(a.keys() < {"a": 1, "b": 1, "c": 1}.keys(), a.values() == a.values(), {}.keys() == {}.items())
if a.keys() == b.keys():
    print("same fields")

stock = collections.Counter({"apple": 3, "pear": -2, "fig": 0})
print(+stock, -stock, -collections.Counter())

text = "Hello, World! foo-bar_baz 42 é"
print(re.findall(r"[^\W\d_]+", text))
print(re.findall(r"[\W\d]+", "ab12 cd"), re.findall(r"[a-c\Wx]+", "abx yz."), re.findall(r"[^\S\n]+", "a \n b"))
print(re.sub(r"[^\w\s-]", "", text), re.findall(r"[\D]+", "a1b"), re.findall(r"[^\D]+", "a12b"))
final_answer(re.findall(r"[^\W\d_]+", "x1y_z"))
