principal = 25_000.0
annual_rate = 0.06
months = 12
r = annual_rate / 12
payment = principal * r / (1 - (1 + r) ** -months)
print(f"monthly payment: {payment:.2f}")
balance = principal
total_interest = 0.0
for m in range(1, months + 1):
    interest = balance * r
    balance -= payment - interest
    total_interest += interest
    if m % 3 == 0:
        print(f"month {m:>2}: interest {interest:7.2f} balance {max(balance, 0):10.2f}")
final_answer(round(total_interest, 2))
