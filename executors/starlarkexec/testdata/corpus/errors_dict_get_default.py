settings = {"theme": "dark", "font_size": 14}
for key in ["theme", "language", "font_size", "autosave"]:
    value = settings.get(key)
    if value is None:
        print(f"{key}: not set, using default")
    else:
        print(f"{key}: {value}")
print(settings.get("language", "en"), settings.setdefault("autosave", True))
print(settings["missing_required_key"])
final_answer(settings)
