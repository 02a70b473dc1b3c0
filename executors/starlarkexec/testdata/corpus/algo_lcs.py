def lcs(a, b):
    dp = [[""] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) - 1, -1, -1):
        for j in range(len(b) - 1, -1, -1):
            if a[i] == b[j]:
                dp[i][j] = a[i] + dp[i + 1][j + 1]
            else:
                dp[i][j] = max(dp[i + 1][j], dp[i][j + 1], key=len)
    return dp[0][0]

pairs = [("AGGTAB", "GXTXAYB"), ("ABCBDAB", "BDCABA"), ("kitten", "sitting")]
results = [lcs(a, b) for a, b in pairs]
for (a, b), r in zip(pairs, results):
    print(a, b, "->", r, len(r))
final_answer(results)
