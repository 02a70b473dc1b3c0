import re

def to_snake(name):
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()

def to_camel(name):
    first, *rest = name.split("_")
    return first + "".join(p.title() for p in rest)

names = ["getHTTPResponseCode", "parseJSON", "userId", "simple"]
snakes = [to_snake(n) for n in names]
print(snakes)
print([to_camel(s) for s in snakes])
final_answer(snakes)
