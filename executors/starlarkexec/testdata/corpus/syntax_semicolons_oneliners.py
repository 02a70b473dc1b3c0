a = 1; b = 2; c = a + b
if c > 2: print("big")
for i in range(3): print(i, end=" ")
print()
while c > 0: c -= 1
def sq(x): return x * x
print(sq(7), c)
final_answer([sq(i) for i in range(4)])
