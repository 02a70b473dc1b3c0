from functools import reduce, partial, cmp_to_key, lru_cache
import operator

print(reduce(operator.mul, range(1, 6)), reduce(lambda a, b: a + b, ["a", "b", "c"], ">"))
power_of_two = partial(pow, 2)
print([power_of_two(n) for n in range(5)])
int_from_binary = partial(int, base=2)
print(int_from_binary("1011"))
def compare(a, b):
    return (len(a) > len(b)) - (len(a) < len(b)) or (a > b) - (a < b)
print(sorted(["ccc", "a", "bb", "aa", "b"], key=cmp_to_key(compare)))
@lru_cache(maxsize=2)
def slow_square(n):
    print("computing", n)
    return n * n
print([slow_square(n) for n in [2, 3, 2, 4, 2]])
print(slow_square.cache_info())
final_answer(reduce(operator.add, [1, 2, 3, 4]))
