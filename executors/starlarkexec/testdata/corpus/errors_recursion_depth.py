def depth(n):
    return depth(n + 1)

print("starting deep recursion")
depth(0)
final_answer("unreachable")
