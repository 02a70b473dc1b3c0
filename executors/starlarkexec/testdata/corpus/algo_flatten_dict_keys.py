def flatten(d, prefix=""):
    out = {}
    for k, v in d.items():
        key = f"{prefix}.{k}" if prefix else k
        if isinstance(v, dict):
            out.update(flatten(v, key))
        else:
            out[key] = v
    return out

config = {"db": {"host": "localhost", "port": 5432, "auth": {"user": "app", "ssl": True}}, "debug": False, "workers": 4}
flat = flatten(config)
for k, v in flat.items():
    print(f"{k} = {v!r}")
final_answer(flat)
