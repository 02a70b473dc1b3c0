import re

m = re.search(r"(\d+)-(\d+)(?:-(\d+))?", "range: 10-20 end")
print(m.group(0), m.group(1, 2), m.groups(), m.groups("none"), m.span(2), m.end())
print(m.string, m.re.pattern, m[1], m.lastindex)
dates = re.findall(r"(\d{4})-(\d{2})", "2023-01 and 2024-12")
print(dates)
print(re.sub(r"(?P<first>\w+) (?P<last>\w+)", r"\g<last>, \g<first>", "Ada Lovelace"))
print([m.group() for m in re.finditer(r"[A-Z][a-z]+", "Hello Big World")])
print(re.findall(r"a(?=b)", "ab ac ab"), re.findall(r"a(?!b)", "ab ac ad"), re.findall(r"(?<!x)y", "xy zy y"))
final_answer(m.groups())
