def common_prefix(strings):
    if not strings:
        return ""
    prefix = strings[0]
    for s in strings[1:]:
        while not s.startswith(prefix):
            prefix = prefix[:-1]
            if not prefix:
                return ""
    return prefix

groups = [["interspecies", "interstellar", "interstate"], ["throne", "dungeon"], ["flower", "flow", "flight"]]
answers = [common_prefix(g) for g in groups]
print(answers)
final_answer(answers)
