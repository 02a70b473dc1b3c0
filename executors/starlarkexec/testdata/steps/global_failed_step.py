# A step that fails after a function assigned a global keeps the
# assignment, as CPython does.
state = "start"
def advance(to):
    global state
    state = to
# --- step
advance("middle")
raise ValueError("boom")
# --- step
print(state)
# --- step
def fail():
    global state
    state = "inside"
    return 1 / 0
fail()
# --- step
print(state)
# --- step
state = "top"
advance("again")
print(undefined_name)
# --- step
print(state)
