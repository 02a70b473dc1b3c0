import random
random.seed(5); print(random.randbytes(0), random.randbytes(3), random.random())
random.seed(5); print(random.getrandbits(0), random.random())
for n in [1, 2, 3, 4, 5, 7, 8, 9, 13]:
    random.seed(n); print(n, random.randbytes(n), random.getrandbits(20))
try: random.randbytes(-1)
except Exception as e: print(type(e).__name__, e)
try: random.randbytes(2.0)
except Exception as e: print(type(e).__name__, e)
r = random.Random(7); print(r.randbytes(9))
final_answer("done")
