inventory = {"apple": (3, 0.5), "pear": (0, 0.75), "kiwi": (12, 0.2)}
for fruit, (qty, price) in inventory.items():
    print(f"{fruit}: {qty} x {price} = {qty * price:.2f}")
points = [(1, 2), (3, 4), (5, 6)]
xs, ys = zip(*points)
print(xs, ys)
for i, (x, y) in enumerate(points):
    print(i, x + y)
(a, b), c = [1, 2], 3
print(a, b, c)
final_answer(dict(zip(xs, ys)))
