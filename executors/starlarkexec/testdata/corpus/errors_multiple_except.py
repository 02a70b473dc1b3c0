def parse(entry):
    key, value = entry.split("=")
    return key, 100 / int(value)

entries = ["a=4", "b=0", "c", "d=x", "e=5"]
good = {}
for e in entries:
    try:
        k, v = parse(e)
        good[k] = v
    except ZeroDivisionError:
        print(e, "-> division by zero")
    except ValueError as err:
        print(e, "-> value error:", err)
print(good)
final_answer(good)
