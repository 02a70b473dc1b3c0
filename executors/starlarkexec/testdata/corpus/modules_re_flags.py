import re

text = """Title: Report
title: draft
TITLE: Final
body line"""
print(re.findall(r"^title: (\w+)$", text, re.IGNORECASE | re.MULTILINE))
print(re.findall(r"^t.*", text, flags=re.M | re.I))
print(re.search(r"Report.body", text, re.DOTALL) is not None, re.search(r"Report.body", text) is None)
verbose = re.compile(r"""
    (\d{3})   # area
    [-.\s]?
    (\d{4})   # number
""", re.VERBOSE)
print(verbose.findall("call 555-1234 or 555.9876 or 5554321"))
print(re.escape("a.b*c"), re.sub(r"\s+", " ", "a   b \n c"), re.subn("a", "A", "banana"))
final_answer(verbose.findall("555 0000"))
