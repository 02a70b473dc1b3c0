calls = []
def risky(x):
    try:
        calls.append(f"try {x}")
        if x == 2:
            raise KeyError(x)
        return x * 10
    except KeyError:
        calls.append(f"except {x}")
        return -1
    finally:
        calls.append(f"finally {x}")

values = [risky(i) for i in range(4)]
print(values)
print(calls)
final_answer(values)
