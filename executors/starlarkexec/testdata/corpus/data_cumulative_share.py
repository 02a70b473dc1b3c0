market = {"A": 340, "B": 120, "C": 95, "D": 60, "E": 30, "F": 15}
total = sum(market.values())
running = 0
top = []
for name, value in sorted(market.items(), key=lambda kv: kv[1], reverse=True):
    running += value
    share = running / total
    print(f"{name}: {value} cumulative {share:.1%}")
    top.append(name)
    if share >= 0.8:
        break
final_answer(top)
