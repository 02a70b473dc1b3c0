attempts = 0
try:
    attempts += 1
    result = {"status": "ok", "attempts": attempts}
    print("computed result")
    final_answer(result)
except Exception as e:
    print("this must not catch final_answer:", type(e).__name__)
    final_answer("wrong path")
