import re

def slugify(title):
    s = title.lower().strip()
    s = re.sub(r"[^a-z0-9\s-]", "", s)
    s = re.sub(r"[\s_-]+", "-", s)
    return s.strip("-")

titles = ["Hello, World!", "  Python 3.11: What's New?  ", "Go -- vs -- Rust", "100% Pure_Data"]
slugs = [slugify(t) for t in titles]
for t, s in zip(titles, slugs):
    print(f"{t!r} -> {s}")
final_answer(slugs)
