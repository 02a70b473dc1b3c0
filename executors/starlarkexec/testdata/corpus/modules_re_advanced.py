import re

log = "user=alice id=42 ip=10.0.0.1; user=bob id=7 ip=10.0.0.22; user=carol id=x ip=bad"
pattern = re.compile(r"user=(?P<user>\w+) id=(?P<id>\d+) ip=(?P<ip>(?:\d{1,3}\.){3}\d{1,3})")
for m in pattern.finditer(log):
    print(m.group("user"), int(m.group("id")), m.group("ip"), m.start(), m.groupdict())
print(re.findall(r"(?<=id=)\d+", log))
print(re.findall(r"\b(\w)\w*\1\b", "anna bob civic deed eye level"))
print(re.sub(r"id=(\d+)", lambda m: f"id={int(m.group(1)) * 100}", log))
print(re.split(r"\s*;\s*", log))
print(bool(re.fullmatch(r"[a-z]+", "abc")), re.match(r"\d+", "abc") is None, re.search(r"(?i)BOB", log).group())
final_answer(pattern.findall(log))
