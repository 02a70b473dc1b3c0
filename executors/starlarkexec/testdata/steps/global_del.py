# del of a global, from a function and at top level.
token = "abc"
def drop():
    global token
    del token
# --- step
drop()
# --- step
try:
    print(token)
except NameError as e:
    print("NameError:", e)
# --- step
try:
    drop()
except NameError as e:
    print("NameError:", e)
# --- step
token = "new"
print(token)
# --- step
del token
# --- step
print(token)
