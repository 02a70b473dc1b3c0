# itertools.islice and math.perm errors as CPython words them; re.ASCII
# and inline flags at the start of a pattern.
import itertools as it
import math
import re

checks = [
    lambda: math.perm(-1), lambda: math.perm(-1, 2), lambda: math.perm(3, -1), lambda: math.perm(5),
    lambda: it.islice([1], "a"), lambda: it.islice([1], -1), lambda: it.islice([1], 1, "a"),
    lambda: it.islice([1], "a", 2), lambda: it.islice([1], 0, 2, 0), lambda: it.islice([1], 0, 2, "x"),
    lambda: list(it.islice("abcdef", 1, None, 2)), lambda: list(it.islice("abc", None)),
    lambda: re.compile("x", re.A | re.U),
]
for f in checks:
    try:
        print(f())
    except ValueError as e:
        print("ValueError", e)

print(re.findall(r"\w+", "héllo", re.A), re.findall(r"(?a)\w+", "héllo"), re.findall(r"(?ai)\w+", "HéLLO"))
print(re.findall(r"\d", "1٣"), re.findall(r"\d", "1٣", re.ASCII), re.sub(r"(?a)\s+", " ", "a\u00a0 \tb"))
print(re.compile("(?a)x"), re.compile("(?a)x").flags, re.compile("x").flags, re.compile("(?i)x").flags, re.compile("(?im)x").flags)
print(re.compile("(?x) a b # c").match("ab"), re.findall(r"[\w-]+", "é-a b", re.A), re.findall(r"(?ai)[a-z]+", "ÀbC"))
final_answer(re.findall(r"(?a)\w+", "naïve café"))
