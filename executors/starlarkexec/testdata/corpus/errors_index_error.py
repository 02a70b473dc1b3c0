results = ["first", "second", "third"]
print(f"{len(results)} results")
for i in range(len(results) + 1):
    print(i, results[i])
final_answer(results)
