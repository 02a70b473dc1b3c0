x = 10
y = 3.5
name = "agent"
print(f"{x=}")
print(f"{x + 1=}, {y * 2=}")
print(f"{name=}, {name=!s}, {len(name)=}")
print(f"{y=:.3f}")
print(f"{x = }")
final_answer(f"{x=} {y=}")
