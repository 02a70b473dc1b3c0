def outer(values):
    def helper(v, depth=0):
        if isinstance(v, list):
            return max((helper(x, depth + 1) for x in v), default=depth + 1)
        return depth
    return helper(values)

print(outer([1, [2, [3, [4]]], []]))
print(outer([]), outer(5))

def compose(*funcs):
    def run(x):
        for f in reversed(funcs):
            x = f(x)
        return x
    return run

inc_then_double = compose(lambda x: x * 2, lambda x: x + 1)
final_answer((outer([[[[]]]]), inc_then_double(5)))
