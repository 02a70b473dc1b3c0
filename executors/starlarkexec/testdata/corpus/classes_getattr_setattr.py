class Settings:
    def __init__(self, **values):
        for key, value in values.items():
            setattr(self, key, value)

s = Settings(theme="dark", size=12)
print(getattr(s, "theme"), getattr(s, "missing", "default"), hasattr(s, "size"))
setattr(s, "size", 14)
fields = [name for name in ["theme", "size", "lang"] if hasattr(s, name)]
print(fields, s.size)
print(vars(s))
final_answer(vars(s))
