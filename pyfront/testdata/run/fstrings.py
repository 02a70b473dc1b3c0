name = "Ada"
n = 42
pi = 3.14159
items = {"a": 1}
print(f"hi {name}! {n} {pi:.2f} {n:>6} {n:<4}| {n:^7}|")
print(f"{name!r} {name!s} {name!a}")
print(f"{n=} {pi = :.1f} {name=!s}")
print(f"{{literal}} {{{n}}}")
print(f"{items['a']} {len(name)} {n * 2} {'nested' + name}")
width = 8
prec = 3
print(f"{pi:{width}.{prec}f}|")
print(f'''triple {name}
second line {n}''')
print(rf"raw \n {name}")
print(f"{n:,} {1234567:,}")
print(f"{0.25:.1%}")
print("a" f"{n}" "b" f"{name}")
print(f"")
print(f"{n}")
print(f"{'x' if n > 1 else 'y'}")
print(f"{[1, 2][0]}")
print(f"{n:08d}|{-n:+d}")
print(f"{n!r:>5}")
print(f"{(lambda v: v * 2)(3)}")
