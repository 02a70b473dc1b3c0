log = []
def process(item):
    log.append(f"open {item}")
    try:
        if item < 0:
            raise ValueError(f"negative item: {item}")
        return item * 2
    finally:
        log.append(f"close {item}")

results = []
for item in [3, -1, 5]:
    try:
        results.append(process(item))
    except ValueError as e:
        print("error:", e)
print(log)
final_answer(results)
