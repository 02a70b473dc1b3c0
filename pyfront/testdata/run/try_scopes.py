# Variables, control flow and closures around lowered try bodies.


def loops():
    out = []
    for i in range(6):
        try:
            if i == 1:
                continue
            if i == 4:
                break
            out.append(i)
        except Exception:
            pass
    else:
        out.append("no break")
    n = 0
    while True:
        try:
            n += 1
            if n > 3:
                break
        finally:
            out.append(("f", n))
    else:
        out.append("never")
    return out


print(loops())


def for_else():
    for x in [1, 2]:
        try:
            pass
        except ValueError:
            break
    else:
        return "else ran"
    return "broke"


print(for_else())


def cells_and_closures():
    fns = []
    try:
        total = 0
        for i in range(3):
            total += i
            fns.append(lambda k=i: k * 10)
        squares = [j * j for j in range(total)]
        (first, *rest) = squares
        if (m := max(squares)) > 10:
            label = "big"
        else:
            label = "small"
    except ZeroDivisionError:
        label = "error"
    return total, [f() for f in fns], first, rest, m, label


print(cells_and_closures())


def reads_after_error():
    a = 1
    try:
        a = 2
        b = 1 / 0
    except ZeroDivisionError:
        pass
    try:
        print(b)
    except UnboundLocalError as e:
        print("unbound:", type(e).__name__)
    return a


print(reads_after_error())


def nested_defs():
    try:
        def helper(x):
            return x + offset
        offset = 10
        value = helper(5)
    except NameError:
        value = None
    return value, helper(1)


print(nested_defs())


def return_in_handler(x):
    for attempt in range(3):
        try:
            if x < 0:
                raise ValueError("negative")
            return "ok %d" % attempt
        except ValueError:
            if attempt == 2:
                return "gave up"
            x += 1
        finally:
            print("attempt", attempt)
    return "unreachable?"


print(return_in_handler(5))
print(return_in_handler(-2))
print(return_in_handler(-5))


def recursion(n):
    try:
        if n == 0:
            raise KeyError("bottom")
        return recursion(n - 1)
    except KeyError as e:
        if n < 2:
            raise
        return "caught at %d: %s" % (n, e)


print(recursion(4))

results = {}
for name in ["a", "b", "c"]:
    try:
        if name == "b":
            raise ValueError(name)
        results[name] = name.upper()
    except ValueError as e:
        results[name] = "error " + str(e)
    finally:
        last = name
print(results, last)

try:
    import json
    parsed = json.loads('{"k": [1, 2]}')
    broken = json.loads("{bad")
except json.JSONDecodeError as e:
    print("json error at", e.pos, e.msg)
print(parsed)


class Registry:
    items = {}

    @classmethod
    def register(cls, name):
        def deco(fn):
            cls.items[name] = fn
            return fn
        return deco


@Registry.register("double")
def double(x):
    return 2 * x


print(Registry.items["double"](21), double(2))


def gen_errors():
    errors = []
    for value in ["1", "two", None, "4"]:
        try:
            errors.append(int(value))
        except (TypeError, ValueError) as exc:
            errors.append(type(exc).__name__)
    return errors


print(gen_errors())


def finally_order():
    log = []
    try:
        try:
            log.append("body")
            return log
        finally:
            log.append("inner finally")
    finally:
        log.append("outer finally")


print(finally_order())
