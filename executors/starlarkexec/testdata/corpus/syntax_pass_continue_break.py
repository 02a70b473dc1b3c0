results = []
for n in range(20):
    if n % 2 == 0:
        continue
    if n > 13:
        break
    if n == 5:
        pass
    results.append(n)
print(results)
while True:
    results.pop()
    if len(results) < 4:
        break
class Empty:
    pass
def todo():
    ...
print(results, todo(), type(Empty()).__name__)
final_answer(results)
