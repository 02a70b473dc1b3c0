# Exceptions: try/except/else/finally, raise, the built-in hierarchy,
# errors raised by the runtime itself, user exception classes.

def safe_div(a, b):
    try:
        result = a / b
    except ZeroDivisionError as e:
        print("caught:", e, type(e), repr(e))
        result = None
    else:
        print("no error")
    finally:
        print("finally", a, b)
    return result

print(safe_div(1, 2))
print(safe_div(1, 0))

d = {"a": 1}
try:
    d["x"]
except LookupError as e:
    print("lookup", repr(e), str(e), e.args)

try:
    [1, 2][5]
except (KeyError, IndexError) as e:
    print(type(e).__name__, e)

try:
    int("abc")
except ValueError as err:
    print("value error:", err)

try:
    raise ValueError("bad value", 42)
except Exception as e:
    print(e.args, str(e), repr(e))

try:
    raise KeyError
except KeyError as e:
    print("bare class", repr(e), e.args)

class AppError(Exception):
    pass

class NotFound(AppError):
    def __init__(self, name):
        super().__init__(f"{name} not found")
        self.name = name

try:
    raise NotFound("user")
except AppError as e:
    print(type(e).__name__, e, e.name, e.args, isinstance(e, Exception), isinstance(e, NotFound))

def find(items, x):
    for i, v in enumerate(items):
        try:
            if v == x:
                return i
            if v is None:
                continue
            if v == "stop":
                break
        finally:
            print("checked", v)
    return -1

print(find([1, 2, 3], 2))
print(find([None, 5], 7))
print(find(["stop", 1], 1))

total = 0
count = 0
for s in ["1", "x", "3", "", "5"]:
    try:
        total += int(s)
        count += 1
    except ValueError:
        print("skip", repr(s))
print(total, count)

def reraiser():
    try:
        1 / 0
    except ZeroDivisionError:
        print("logging")
        raise

try:
    reraiser()
except ArithmeticError as e:
    print("outer", type(e).__name__, e)

try:
    try:
        raise TypeError("inner")
    except TypeError as e:
        raise RuntimeError("wrapped") from e
except RuntimeError as e:
    print(repr(e))

def check(x):
    assert x > 0, f"x must be positive, got {x}"
    return x

try:
    check(-1)
except AssertionError as e:
    print("assert:", e)

try:
    assert 1 == 2
except AssertionError as e:
    print("assert args:", e.args)

results = []
for i in range(4):
    try:
        if i % 2:
            raise ValueError(i)
        results.append(i)
    except ValueError as e:
        results.append(-e.args[0])
print(results)

def nested():
    out = []
    try:
        try:
            out.append("a")
            raise IndexError("i")
        finally:
            out.append("f1")
    except IndexError:
        out.append("caught")
    finally:
        out.append("f2")
    return out

print(nested())

try:
    x = undefined_name
except NameError as e:
    print("name:", e)

try:
    "a" + 1
except TypeError as e:
    print("type:", e)

try:
    None.foo
except AttributeError as e:
    print("attr:", e)

print(issubclass(KeyError, LookupError), issubclass(ZeroDivisionError, ArithmeticError), issubclass(ValueError, KeyError))
print(KeyError, ValueError("x"))
e = ValueError()
print(repr(e), str(e) == "", e.args)

def gen_error(kind):
    errors = {"k": KeyError, "v": ValueError, "t": TypeError}
    raise errors[kind]("msg " + kind)

for k in "kvt":
    try:
        gen_error(k)
    except (KeyError, ValueError) as e:
        print("handled", type(e).__name__, e)
    except Exception as e:
        print("generic", type(e).__name__, e)

try:
    pass
except Exception:
    print("never")
else:
    print("else runs")

def early():
    try:
        return "from try"
    finally:
        print("finally before return")

print(early())

def override():
    try:
        raise ValueError("lost")
    finally:
        return "finally wins"

print(override())

value = "unset"
try:
    value = "set in try"
    missing = {}["k"]
except KeyError:
    pass
print(value)
