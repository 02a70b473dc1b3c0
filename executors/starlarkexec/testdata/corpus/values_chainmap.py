# collections.ChainMap: layered settings, writes to the first mapping.
import collections

defaults = {"color": "red", "user": "guest", "size": 10}
overrides = {"user": "admin"}
settings = collections.ChainMap(overrides, defaults)
print(settings["user"], settings["color"], len(settings), list(settings), dict(settings))
print("color" in settings, settings.get("missing", "n/a"), settings)
settings["color"] = "blue"
print(overrides, defaults["color"], sorted(settings.items()))
local = settings.new_child({"user": "tmp"})
print(local["user"], local.parents["user"], len(local.maps), {**local})
print(settings.pop("color"), overrides, collections.ChainMap(), bool(collections.ChainMap()))
try:
    settings["nope"]
except KeyError as e:
    print("KeyError", e)
counts = collections.ChainMap({}, collections.Counter("aab"))
print(counts["a"], counts.get("z"), "z" in counts)
final_answer(dict(settings))
