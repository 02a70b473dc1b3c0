user = {"name": "Ada", "email": "ada@example.com"}
print("Looking up user fields...")
print("name:", user["name"])
print("phone:", user["phone"])
final_answer(user)
