values = [1, 2.5, "x", True, None, [1], (1,), {"k": 1}, {1}]
for v in values:
    kinds = [t.__name__ for t in (int, float, str, bool, list, tuple, dict, set) if isinstance(v, t)]
    print(repr(v), kinds)
print(isinstance(True, int), isinstance(1, (str, float)), isinstance(1, (str, int)))
print(issubclass(bool, int), issubclass(int, float), issubclass(KeyError, LookupError))
final_answer(isinstance(3, (int, float)))
