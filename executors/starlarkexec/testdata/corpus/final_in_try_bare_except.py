answers = []
try:
    answers.append(42)
    final_answer(answers)
except:
    print("a bare except must not swallow final_answer")
answers.append(43)
print("after try")
final_answer("wrong")
