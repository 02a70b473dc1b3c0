from collections import OrderedDict

cache = OrderedDict()
capacity = 3
hits = misses = 0
for key in ["a", "b", "c", "a", "d", "b", "e", "a", "c", "a"]:
    if key in cache:
        hits += 1
        cache.move_to_end(key)
    else:
        misses += 1
        cache[key] = key.upper()
        if len(cache) > capacity:
            evicted, _ = cache.popitem(last=False)
            print("evict", evicted)
print("hits", hits, "misses", misses)
print(list(cache.items()))
final_answer(list(cache))
