# Edges other projects' test suites check: bool products, updating a
# dict with itself, and the reprs and names of functions and objects
# (an address is hex(id(x))).
print(True * True, True * False, False * False, True * 2.5, 3 * True)
flag = True
print(flag * flag, flag * 4)

d = {"a": 1}
d.update(d)
d |= d
print(d)

square = lambda x: x * x
def cube(x):
    return x ** 3

print(square.__name__, cube.__name__)
print(repr(square).startswith("<function <lambda> at 0x"), repr(cube).startswith("<function cube at 0x"))
print(hex(id(cube)) in repr(cube), hex(id(square)) in repr(square))

class Plain:
    pass

p = Plain()
print(repr(p).startswith("<__main__.Plain object at 0x"), hex(id(p)) in repr(p), str(p) == repr(p))
final_answer(True * True + d["a"])
