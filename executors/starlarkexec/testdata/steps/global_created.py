# global of a name the function creates.
def setup():
    global config, calls
    config = {"mode": "fast"}
    calls = 0
def use():
    global calls
    calls += 1
    return config["mode"], calls
# --- step
setup()
# --- step
print(use(), use())
# --- step
print(config, calls)
# --- step
config["mode"] = "slow"
print(use())
