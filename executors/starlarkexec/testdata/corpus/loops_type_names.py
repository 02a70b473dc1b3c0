# __name__ of a type from a module is its bare name.
from collections import OrderedDict, Counter, defaultdict, deque
import datetime

for obj in [OrderedDict(), Counter(), defaultdict(int), deque(), {}, [], 1.5]:
    print(type(obj).__name__)
print(datetime.datetime.__name__, datetime.date.__name__, datetime.timedelta.__name__)
names = {type(x).__name__: x for x in [OrderedDict(a=1), Counter('aa')]}
final_answer(sorted(names))
