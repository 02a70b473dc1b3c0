# The answer is passed by keyword, as some models do.
words = "final answers can be passed by keyword".split()
longest = max(words, key=len)
print(longest)
final_answer(answer=longest.upper())
