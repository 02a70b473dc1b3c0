title = "The Hitchhiker's Guide"
quote = 'He said "don\'t panic"'
answer = f"{title}: {quote}"
print(answer)
final_answer(answer)
