def balanced(s):
    pairs = {")": "(", "]": "[", "}": "{"}
    stack = []
    for i, ch in enumerate(s):
        if ch in "([{":
            stack.append(ch)
        elif ch in pairs:
            if not stack or stack.pop() != pairs[ch]:
                return False, i
    return (not stack), len(s)

tests = ["([]{})", "((())", "{[}]", "print(d['k'][0])", ""]
for t in tests:
    print(repr(t), balanced(t))
final_answer([balanced(t)[0] for t in tests])
