stock = {"apple": 5, "banana": 0, "cherry": 12, "date": 0, "elder": 3}
available = {k: v for k, v in stock.items() if v}
print(available)
labels = {k: ("out" if v == 0 else "low" if v < 5 else "ok") for k, v in stock.items()}
print(labels)
by_label = {}
for k, lab in labels.items():
    by_label.setdefault(lab, []).append(k)
print(by_label)
final_answer({lab: len(ks) for lab, ks in by_label.items()})
