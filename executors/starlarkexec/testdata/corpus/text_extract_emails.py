import re

doc = """Contact sales@acme.com or support@acme.co.uk for help.
Old address: jane.doe+news@mail.example.org (deprecated).
Not an email: foo@bar, @handle, user@.com"""
pattern = r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
emails = re.findall(pattern, doc)
print(emails)
domains = sorted({e.split("@")[1] for e in emails})
print("domains:", domains)
final_answer(emails)
