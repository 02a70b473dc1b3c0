import json

samples = ['{"ok": 1}', "{'single': 1}", "[1, 2,]", "", '{"a": NaN}', "42"]
results = []
for s in samples:
    try:
        value = json.loads(s)
        results.append(("ok", value))
    except json.JSONDecodeError as e:
        results.append(("error", e.msg))
    except ValueError as e:
        results.append(("value error", str(e)))
for r in results:
    print(r)
final_answer([r[0] for r in results])
