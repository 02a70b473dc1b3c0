config = {"timeout": 30}
ports = [8080, 8081]
caught = []
def get_retries():
    return config["retries"]
def get_port():
    return ports[5]
def get_timeout():
    return config["timeout"]
for action in (get_retries, get_port, get_timeout):
    try:
        print("ok:", action())
    except LookupError as e:
        caught.append(type(e).__name__)
        print("lookup failed:", type(e).__name__, e)
final_answer(caught)
