count = 3
item = "apples"
print("Building message...")
message = "We have " + count + " " + item
final_answer(message)
