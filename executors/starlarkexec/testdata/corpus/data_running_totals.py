from itertools import accumulate

deposits = [100, -20, 50, -75, 200, -10]
balances = list(accumulate(deposits))
print("balances:", balances)
lowest = min(balances)
print("lowest balance:", lowest)
overdrawn = any(b < 0 for b in balances)
print("ever overdrawn?", overdrawn)
peak_index = balances.index(max(balances))
final_answer((peak_index, balances[peak_index]))
