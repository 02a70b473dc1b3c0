record = {"id": 1, "name": "x", "secret": "hunter2", "tmp": None}
del record["secret"]
del record["tmp"]
print(record)
items = list(range(10))
del items[0]
del items[-1]
del items[2:5]
del items[::2]
print(items)
temp = "scratch"
del temp
print("temp deleted")
a, b = 1, 2
del a, b
final_answer((record, items))
