# Starlark's own fail() is not a Python builtin: the name is undefined,
# and code may bind it like any other.
try:
    fail
except NameError as e:
    print('NameError', e)
try:
    fail('boom')
except NameError as e:
    print('NameError', e)
def fail(msg):
    return 'failed: ' + msg
final_answer(fail('x'))
