log = []
try:
    log.append("work")
    value = sum(range(10))
finally:
    log.append("cleanup")
    print(log)
final_answer(value)
