# object.__format__ takes only an empty spec: a class without __format__
# cannot be formatted with one.
class P:
    def __str__(self): return 'p'
print(f"{P()}", format(P(), ''))
try:
    print(f"{P():>5}")
except TypeError as e:
    print('TypeError', e)
from dataclasses import dataclass
@dataclass
class D:
    x: int
try:
    print(format(D(1), 'x'))
except TypeError as e:
    print('TypeError', e)
final_answer('ok')
