import re

notes = "Met on 2023-11-05, follow-up 2023-12-01; invoice due 01/15/2024 and 2024-02-29."
iso = re.findall(r"(\d{4})-(\d{2})-(\d{2})", notes)
print("ISO dates:", iso)
us = re.search(r"(?P<m>\d{2})/(?P<d>\d{2})/(?P<y>\d{4})", notes)
print("US date:", us.group("y"), us.group("m"), us.group("d"), us.span())
normalized = re.sub(r"(\d{2})/(\d{2})/(\d{4})", r"\3-\1-\2", notes)
print(normalized)
final_answer(len(re.findall(r"\d{4}-\d{2}-\d{2}", normalized)))
