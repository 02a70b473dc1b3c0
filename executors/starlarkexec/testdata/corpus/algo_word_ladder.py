from collections import deque

words = {"hot", "dot", "dog", "lot", "log", "cog", "hit"}
def ladder(begin, end):
    queue = deque([[begin]])
    seen = {begin}
    while queue:
        path = queue.popleft()
        word = path[-1]
        if word == end:
            return path
        for i in range(len(word)):
            for ch in "abcdefghijklmnopqrstuvwxyz":
                cand = word[:i] + ch + word[i + 1:]
                if cand in words and cand not in seen:
                    seen.add(cand)
                    queue.append(path + [cand])
    return []

path = ladder("hit", "cog")
print(" -> ".join(path))
final_answer(len(path))
