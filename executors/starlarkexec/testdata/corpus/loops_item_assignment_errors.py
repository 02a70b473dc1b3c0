# Immutable values refuse item assignment with TypeError, which except
# TypeError catches.
for value in ['abc', (1, 2), range(3), 42]:
    try:
        value[0] = 'x'
    except TypeError as e:
        print("TypeError:", e)

missing = None
try:
    missing['key']
except TypeError as e:
    print("TypeError:", e)

try:
    n = 5
    n.real_part = 1
except AttributeError as e:
    print("AttributeError:", e)

try:
    print(1 in 5)
except TypeError as e:
    print("TypeError:", e)

add = lambda a, b: a + b
for call in [lambda: add(1), lambda: add(1, 2, 3), lambda: add(1, c=2)]:
    try:
        call()
    except TypeError as e:
        print("TypeError:", e)

word = list('hello')
word[0] = 'j'
final_answer(''.join(word))
