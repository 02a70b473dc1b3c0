def is_leap(y):
    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)

years = [1900, 1996, 2000, 2023, 2024, 2100, 2400]
for y in years:
    print(y, "leap" if is_leap(y) else "common")
leaps = [y for y in range(2000, 2101) if is_leap(y)]
print(len(leaps), "leap years from 2000 to 2100")
final_answer(leaps[-3:])
