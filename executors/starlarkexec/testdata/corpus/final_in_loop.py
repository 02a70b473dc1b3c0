candidates = ["apple", "banana", "cherry", "date"]
for i, word in enumerate(candidates):
    print("checking", word)
    if word.count("a") >= 3:
        final_answer({"index": i, "word": word})
print("no match found")
final_answer(None)
