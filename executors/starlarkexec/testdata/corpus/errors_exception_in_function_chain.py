def load(name):
    data = {"alpha": [1, 2, 3], "beta": []}
    return data[name]

def average(name):
    values = load(name)
    return sum(values) / len(values)

print("alpha avg:", average("alpha"))
print("beta avg:", average("beta"))
final_answer("done")
