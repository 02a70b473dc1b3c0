x = 10
x += 5; x -= 3; x *= 2; x //= 5; x %= 3
print(x)
y = 7.0
y /= 2
y **= 2
print(y)
s = "ab"
s += "cd"
s *= 2
print(s)
lst = [1]
alias = lst
lst += [2, 3]
print(lst, alias, lst is alias)
t = (1,)
t += (2,)
print(t)
bits = 0b1100
bits &= 0b1010; bits |= 0b0001; bits ^= 0b1111; bits <<= 2; bits >>= 1
print(bits)
final_answer((x, y, s, bits))
