raw_values = ["10", "20", "thirty", "40"]
parsed = []
for v in raw_values:
    parsed.append(int(v))
    print("parsed", v)
final_answer(sum(parsed))
