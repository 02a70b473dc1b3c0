items = [("map", 9, 150), ("compass", 13, 35), ("water", 153, 200), ("sandwich", 50, 160),
         ("glucose", 15, 60), ("tin", 68, 45), ("banana", 27, 60), ("apple", 39, 40)]
capacity = 250
best = [[0] * (capacity + 1) for _ in range(len(items) + 1)]
for i, (name, weight, value) in enumerate(items, 1):
    for w in range(capacity + 1):
        best[i][w] = best[i - 1][w]
        if weight <= w and best[i - 1][w - weight] + value > best[i][w]:
            best[i][w] = best[i - 1][w - weight] + value
chosen, w = [], capacity
for i in range(len(items), 0, -1):
    if best[i][w] != best[i - 1][w]:
        chosen.append(items[i - 1][0])
        w -= items[i - 1][1]
print("value:", best[-1][-1], "items:", sorted(chosen))
final_answer(best[-1][-1])
