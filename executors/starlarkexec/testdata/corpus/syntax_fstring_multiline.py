items = {"apples": 3, "pears": 12}
total = sum(items.values())
report = f"""Inventory report
----------------
{chr(10).join(f"{k:<8}{v:>4}" for k, v in items.items())}
----------------
total   {total:>4}"""
print(report)
summary = (
    f"{len(items)} kinds, "
    f"{total} units, "
    f"avg {total / len(items):.1f}"
)
print(summary)
final_answer(summary)
