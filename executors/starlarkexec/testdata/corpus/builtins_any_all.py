passwords = ["hunter2", "Secur3Pass!", "abc", "NoDigitsHere"]
def strong(p):
    checks = [len(p) >= 8, any(c.isdigit() for c in p), any(c.isupper() for c in p), any(not c.isalnum() for c in p)]
    return all(checks), checks
for p in passwords:
    print(p, strong(p))
print(all([]), any([]), all([1, "", 3]), any([0, None, "x"]))
final_answer([p for p in passwords if strong(p)[0]])
