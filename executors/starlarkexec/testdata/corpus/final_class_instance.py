class Result:
    def __init__(self, label, score):
        self.label = label
        self.score = score

    def __repr__(self):
        return f"Result(label={self.label!r}, score={self.score})"

best = max([Result("a", 0.4), Result("b", 0.9), Result("c", 0.7)], key=lambda r: r.score)
print(best)
final_answer(best)
