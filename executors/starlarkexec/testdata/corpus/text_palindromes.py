candidates = ["Racecar", "A man, a plan, a canal: Panama", "hello", "Was it a car or a cat I saw?", "No lemon, no melon", "Python"]
def is_palindrome(s):
    cleaned = "".join(ch.lower() for ch in s if ch.isalnum())
    return cleaned == cleaned[::-1]
results = {c: is_palindrome(c) for c in candidates}
for c, ok in results.items():
    print(f"{c!r}: {ok}")
final_answer([c for c, ok in results.items() if ok])
