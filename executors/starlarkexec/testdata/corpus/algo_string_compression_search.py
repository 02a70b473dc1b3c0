def kmp_table(p):
    table = [0] * len(p)
    k = 0
    for i in range(1, len(p)):
        while k and p[i] != p[k]:
            k = table[k - 1]
        if p[i] == p[k]:
            k += 1
        table[i] = k
    return table

def find_all(text, p):
    t, k, hits = kmp_table(p), 0, []
    for i, ch in enumerate(text):
        while k and ch != p[k]:
            k = t[k - 1]
        if ch == p[k]:
            k += 1
        if k == len(p):
            hits.append(i - k + 1)
            k = t[k - 1]
    return hits

print(kmp_table("abababca"))
final_answer(find_all("abababcabababcab", "ababc"))
