def min_coins(amount, coins):
    best = [0] + [float("inf")] * amount
    choice = [None] * (amount + 1)
    for a in range(1, amount + 1):
        for c in coins:
            if c <= a and best[a - c] + 1 < best[a]:
                best[a] = best[a - c] + 1
                choice[a] = c
    if best[amount] == float("inf"):
        return None
    used = []
    while amount:
        used.append(choice[amount])
        amount -= choice[amount]
    return sorted(used, reverse=True)

print(min_coins(63, [1, 5, 10, 21, 25]))
print(min_coins(7, [2, 4]))
print(min_coins(30, [1, 10, 25]))
final_answer(min_coins(63, [1, 5, 10, 21, 25]))
