user = {"name": "Ada", "langs": ["python", "go"]}
print(f"{user['name']} knows {len(user['langs'])} languages")
print(f'{user["name"]} likes {user["langs"][-1]}')
print(f"""Triple: {user["name"]!r} and {'single'}""")
print(f"{'yes' if user['langs'] else 'no'}")
print(F"upper-case prefix {user['name']}", rf"raw\n{user['name']}")
msg = f"{user['name']}" f" and friends" " (plain)"
print(msg)
final_answer(msg)
