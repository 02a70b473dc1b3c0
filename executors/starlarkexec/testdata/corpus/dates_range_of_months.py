from datetime import date

def month_range(start, months):
    out = []
    y, m = start.year, start.month
    for _ in range(months):
        out.append(date(y, m, 1))
        m += 1
        if m > 12:
            y, m = y + 1, 1
    return out

months = month_range(date(2023, 10, 15), 6)
print([d.strftime("%b %Y") for d in months])
print(months[0] < months[-1], months[2].replace(day=28))
final_answer([d.isoformat() for d in months])
