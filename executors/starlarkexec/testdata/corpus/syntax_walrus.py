import re

data = [5, 12, 7, 30, 2, 18]
if (n := len(data)) > 5:
    print(f"list is long ({n} elements)")
big = [y for x in data if (y := x * 2) > 20]
print(big)
lines = ["id: 42", "no match", "id: 7"]
ids = []
for line in lines:
    if (m := re.match(r"id: (\d+)", line)):
        ids.append(int(m.group(1)))
print(ids)
queue = [3, 2, 1]
while (item := queue.pop()) != 3:
    print("processing", item)
final_answer((n, ids))
