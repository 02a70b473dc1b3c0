items = []
found = next((i for i in items if i > 3), None)
print("found:", found)
if found is None:
    final_answer(False)
final_answer(True)
