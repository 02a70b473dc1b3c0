def walk(tree):
    for key, value in tree.items():
        if isinstance(value, dict):
            yield from walk(value)
        else:
            yield key, value

def chunks(items, size):
    for i in range(0, len(items), size):
        yield items[i:i + size]

config = {"db": {"host": "h", "port": 5432}, "debug": True, "cache": {"ttl": {"seconds": 60}}}
leaves = list(walk(config))
print(leaves)
print(list(chunks(list(range(7)), 3)))
final_answer(dict(leaves))
