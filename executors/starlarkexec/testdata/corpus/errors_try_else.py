def safe_div(a, b):
    try:
        result = a / b
    except ZeroDivisionError:
        print(f"cannot divide {a} by zero")
        return None
    else:
        print(f"{a} / {b} = {result}")
        return result
    finally:
        print("division attempted")

answers = [safe_div(10, 4), safe_div(1, 0), safe_div(-9, 3)]
final_answer(answers)
