import re

page = "Contact us at the office. Phone: n/a"
match = re.search(r"Phone: (\d{3}-\d{4})", page)
print("searching for a phone number...")
phone = match.group(1)
final_answer(phone)
