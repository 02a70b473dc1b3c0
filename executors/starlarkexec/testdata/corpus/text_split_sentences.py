import re

text = "Dr. Smith arrived at 9 a.m. sharp. Was he late? No! He was early. The meeting began."
sentences = re.split(r"(?<=[.!?])\s+(?=[A-Z])", text)
for i, s in enumerate(sentences, 1):
    print(i, s)
questions = [s for s in sentences if s.endswith("?")]
print("questions:", questions)
final_answer(len(sentences))
