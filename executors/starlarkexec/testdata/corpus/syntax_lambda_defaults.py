scale = lambda x, factor=2: x * factor
print(scale(5), scale(5, 3), scale(factor=10, x=1))
adders = [lambda x, n=n: x + n for n in range(3)]
print([f(10) for f in adders])
late = [lambda x: x + n for n in range(3)]
print([f(10) for f in late])
fmt = lambda *args, sep=", ": sep.join(map(str, args))
print(fmt(1, 2, 3), fmt("a", "b", sep="|"))
key = lambda item: (-item[1], item[0])
print(sorted({"b": 2, "a": 2, "c": 5}.items(), key=key))
final_answer([f(0) for f in adders])
