temps = [-5, 0, 12, 25, 31]
labels = ["freezing" if t <= 0 else "cold" if t < 15 else "warm" if t < 30 else "hot" for t in temps]
print(list(zip(temps, labels)))
x = None
value = x if x is not None else "default"
print(value, (lambda n: "even" if n % 2 == 0 else "odd")(7))
print("yes" if [] else "no", "yes" if [0] else "no")
final_answer(labels)
