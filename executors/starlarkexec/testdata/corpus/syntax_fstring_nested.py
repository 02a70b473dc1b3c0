width = 12
precision = 3
value = 3.14159265
label = "pi"
print(f"{value:{width}.{precision}f}|")
print(f"{label:>{width}}|")
print(f"{value:{'>' if width > 10 else '<'}{width}.2f}|")
rows = [("alpha", 1.5), ("beta", 22.25)]
for key, v in rows:
    print(f"{key:<{width - 4}}{v:>{width}.{precision}f}")
final_answer(f"{value:.{precision}f}")
