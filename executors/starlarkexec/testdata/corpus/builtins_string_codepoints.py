s = "héllo wörld ✓"
print(len(s), s[1], s[-1], s[1:4], s.upper(), s.title())
print([c for c in s if not c.isascii()])
print(s.encode("utf-8"), len(s.encode("utf-8")))
print(list(reversed("añb")), "ñ" in s, s.index("w"), s.find("ö"))
print(ord("✓"), chr(10003), chr(233) + chr(0x1F600))
final_answer(len(s))
