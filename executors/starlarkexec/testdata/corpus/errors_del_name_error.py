token = "abc123"
print("using token", token)
del token
print("token deleted")
print(token)
final_answer("unreachable")
