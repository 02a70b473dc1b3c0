title = "Quarterly Report"
width = 30
print("+" + "-" * (width - 2) + "+")
print("|" + title.center(width - 2) + "|")
print("|" + "Q3 2024".center(width - 2, " ") + "|")
print("+" + "-" * (width - 2) + "+")
for label, value in [("Revenue", "1.2M"), ("Growth", "8%"), ("Churn", "2.1%")]:
    print("| " + label.ljust(12, ".") + value.rjust(width - 16) + " |")
print("+" + "=" * (width - 2) + "+")
final_answer(title.center(20, "*"))
