events = [
    ("u1", "login"), ("u2", "login"), ("u1", "view"), ("u1", "purchase"),
    ("u3", "login"), ("u2", "view"), ("u3", "view"), ("u3", "view"), ("u1", "logout"),
]
per_user = {}
for user, action in events:
    per_user.setdefault(user, []).append(action)
for user, actions in sorted(per_user.items()):
    print(user, "->", " > ".join(actions))
buyers = {u for u, a in events if a == "purchase"}
conversion = len(buyers) / len(per_user)
print(f"conversion: {conversion:.1%}")
final_answer(round(conversion, 4))
