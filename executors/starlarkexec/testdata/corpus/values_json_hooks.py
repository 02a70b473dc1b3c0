# json.loads hooks: object_hook, object_pairs_hook, parse_float,
# parse_int and parse_constant, called as CPython calls them.
import json
from decimal import Decimal

print(json.loads('{"a": 1, "b": {"c": 2}}', object_hook=lambda d: sorted(d.items())))
print(json.loads('{"a": 1, "a": 2, "b": []}', object_pairs_hook=lambda p: p), json.loads("{}", object_pairs_hook=list))
print(json.loads("[1.10, 2, 3e2]", parse_float=Decimal), json.loads("[1, 2.5]", parse_int=float))
print(json.loads("[NaN, -Infinity, Infinity]", parse_constant=str))
print(json.loads('{"x": 1, "y": 2}', object_hook=lambda d: d, object_pairs_hook=lambda p: dict(reversed(p))))


def as_point(d):
    if "__point__" in d:
        return (d["x"], d["y"])
    return d


points = json.loads('[{"__point__": true, "x": 1, "y": 2}, {"z": 3}]', object_hook=as_point)
print(points)
try:
    json.loads('{"a": 1}', object_hook=lambda d: d["missing"])
except KeyError as e:
    print("KeyError from the hook:", e)
final_answer(points)
