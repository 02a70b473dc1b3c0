errors = []
try:
    raise ValueError("bad value", 42)
except ValueError as e:
    errors.append(e.args)
    print(repr(e), str(e))
try:
    {}["missing"]
except KeyError as e:
    print(repr(e), str(e), e.args)
    errors.append(str(e))
try:
    [][0]
except IndexError as e:
    print(type(e).__name__, e)
    errors.append(str(e))
final_answer(errors)
