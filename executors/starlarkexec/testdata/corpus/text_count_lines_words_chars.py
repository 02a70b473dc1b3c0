doc = """First line of the file.
Second line, a bit longer than the first.

Fourth line after an empty one.
"""
lines = doc.splitlines()
words = doc.split()
chars = len(doc)
print(f"lines={len(lines)} words={len(words)} chars={chars}")
non_empty = [l for l in lines if l.strip()]
print("non-empty:", len(non_empty))
longest = max(lines, key=len)
print("longest:", longest)
final_answer((len(lines), len(words), chars))
