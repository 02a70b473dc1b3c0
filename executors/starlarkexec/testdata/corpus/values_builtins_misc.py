# Builtins and module details that models use: id(), json indents,
# strftime's keyword, re.Match / re.Pattern, slice equality, range and
# list.index errors, math.modf of infinities.
import json
import math
import re
import datetime

a = [1, 2]
b = a
print(id(a) == id(b), id(a) == id([1, 2]), isinstance(id(a), int), id(a) > 0)
objs = [[i] for i in range(200)]
print(len({id(o) for o in objs}), id(None) == id(None), id("x") == id("x"))


class Node:
    pass


n, m = Node(), Node()
print(id(n) == id(n), id(n) == id(m))
seen = {}
for o in [n, m, n]:
    seen[id(o)] = seen.get(id(o), 0) + 1
print(sorted(seen.values()))

doc = {"a": [1, 2], "b": {"c": None}}
for indent in [False, True, 0, 1, "  ", "\t", None]:
    print(repr(indent), json.dumps(doc, indent=indent))

print(datetime.date(2020, 1, 2).strftime(format="%Y-%m-%d"), datetime.datetime(2020, 1, 2, 3, 4).strftime(format="%H:%M"))

m = re.match(r"(\d+)", "42 apples")
print(isinstance(m, re.Match), isinstance(re.compile("a"), re.Pattern), isinstance("a", re.Pattern))


def first_number(match: re.Match) -> int:
    return int(match.group(1))


print(first_number(m), re.Match, re.Pattern)
for pattern in ["(?P<>a)", "(?P<1a>x)", "(?P<a b>x)", "(?P=)", "(?P<a>x)(?P=b c)"]:
    try:
        re.compile(pattern)
        print(pattern, "compiled")
    except re.error as e:
        print(pattern, "error:", e)
print(re.match("(?P<é>x)", "x").group("é"))

print(slice(1, 2) == slice(1, 2), slice(1, 2) == slice(1, 3), slice(1, 2) != slice(1, 2), slice(1, 2) < slice(1, 3))
print(slice(None) == slice(None, None, None), [slice(1, 2)].index(slice(1, 2)), slice(0, 5) in [slice(0, 5)])

for f in [lambda: range(0, 10, 0), lambda: range(), lambda: range(1, 2, 3, 4), lambda: [1, 2].index(1, None), lambda: (1, 2).index(2, 0, None)]:
    try:
        print(f())
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)
print("abc".index("b", None), [1, 2].index(2, -5, 10), list(range(10, 0, -3)))

print(math.modf(float("inf")), math.modf(-math.inf), math.modf(float("nan")), math.modf(-0.0), math.modf(2.5))
final_answer(math.modf(math.inf))
