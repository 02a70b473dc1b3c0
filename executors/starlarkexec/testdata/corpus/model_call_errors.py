# Calls that fail raise the exception types CPython raises, so that
# except clauses catch them.
def f(a, b=2, *, c=3):
    return a + b + c

def pos_only(a, b=5, /, c=1, **kw):
    return a, b, c, kw

def kinds(call):
    try:
        call()
    except TypeError:
        return "TypeError"
    except ValueError:
        return "ValueError"
    except Exception as e:
        return "other " + type(e).__name__
    return "ok"

print(kinds(lambda: f(**[1, 2, 3])))
print(kinds(lambda: f(*5)))
print(kinds(lambda: f(1, 2, 3)))
print(kinds(lambda: f(1, d=4)))
print(kinds(lambda: f(1, a=4)))
print(kinds(lambda: f(**{1: 2})))
print(kinds(lambda: pos_only(b=3)))
print(kinds(lambda: pos_only(1, 2, 3, 4)))
print(pos_only(1), pos_only(1, 2, 3), pos_only(1, a=9, b=8))
try:
    f()
except TypeError as e:
    print(e)
try:
    pos_only()
except TypeError as e:
    print(e)
try:
    a, b = 42
except TypeError as e:
    print(e)
first, second = "xy"
head, *tail = "abc"
print(first, second, head, tail)
final_answer(kinds(lambda: f(1, 2, 3)))
