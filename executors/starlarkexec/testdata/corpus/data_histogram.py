ages = [23, 37, 45, 29, 31, 52, 61, 19, 34, 48, 27, 39, 55, 42, 33]
buckets = {}
for age in ages:
    low = age // 10 * 10
    label = f"{low}-{low + 9}"
    buckets[label] = buckets.get(label, 0) + 1
for label in sorted(buckets):
    print(f"{label:>6} | {'#' * buckets[label]} ({buckets[label]})")
largest = max(buckets.items(), key=lambda kv: (kv[1], kv[0]))
final_answer(largest[0])
