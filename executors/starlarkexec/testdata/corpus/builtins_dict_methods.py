d = {"b": 2, "a": 1}
d.update({"c": 3}, d=4)
print(d, list(d.keys()), list(d.values()), list(d.items()))
print(d.get("z"), d.pop("a"), d.pop("z", "none"), d.setdefault("e", 5), d)
print(dict.fromkeys(["x", "y"], 0), dict.fromkeys("ab"))
print(d.popitem(), d)
merged = {"a": 1} | {"b": 2, "a": 3}
merged |= {"c": 0}
print(merged, "a" in merged, len(merged))
keys = d.keys()
d["new"] = 1
print(keys, "new" in keys, sorted(d.items()))
print(dict([("k", 1), ("j", 2)]), dict(a=1, b=2), {**d})
final_answer(merged)
