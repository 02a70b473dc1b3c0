template = "Dear {name},\nYour order #{order_id} of {count} item(s) totals ${total:.2f}.\nShipping to {city}."
orders = [
    {"name": "Ms. Park", "order_id": 1042, "count": 3, "total": 59.5, "city": "Busan"},
    {"name": "Mr. Okafor", "order_id": 1043, "count": 1, "total": 1200, "city": "Lagos"},
]
letters = []
for o in orders:
    letter = template.format(**o)
    letters.append(letter)
    print(letter)
    print("-" * 20)
final_answer(letters[1].splitlines()[1])
