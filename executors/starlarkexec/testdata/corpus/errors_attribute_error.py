data = [3, 1, 2]
data.sort()
print(data)
data.push(4)
final_answer(data)
