meetings = [(9, 10), (9.5, 11), (13, 14), (10.5, 12), (15, 16), (14, 15)]
meetings.sort()
merged = [list(meetings[0])]
for start, end in meetings[1:]:
    if start <= merged[-1][1]:
        merged[-1][1] = max(merged[-1][1], end)
    else:
        merged.append([start, end])
print("busy blocks:", merged)
free = [(a[1], b[0]) for a, b in zip(merged, merged[1:])]
print("free gaps:", free)
final_answer(merged)
