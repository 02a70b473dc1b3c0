def summarize(values):
    import statistics
    from math import floor
    return {"mean": statistics.mean(values), "floor_max": floor(max(values))}

def encode(obj):
    import json
    return json.dumps(obj, sort_keys=True)

s = summarize([1.5, 2.5, 9.75])
print(s)
final_answer(encode(s))
