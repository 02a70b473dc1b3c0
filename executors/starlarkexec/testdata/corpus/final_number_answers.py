values = [3, 4, 5]
hyp = (values[0] ** 2 + values[1] ** 2) ** 0.5
print("hypotenuse:", hyp)
print("is integer:", hyp.is_integer())
final_answer(hyp)
