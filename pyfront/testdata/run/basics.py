# Numbers, strings, operators.
a = 1_000_000
b = 0x_ff + 0o17 + 0b101
c = 1e3 + .5 + 5.
print(a, b, c)
print(2 ** 10, 2 ** -1, (-2) ** 3, 2 ** 100)
x = 3
x **= 3
print(x)
s = "ab" * 3
t = 3 * [0]
print(s, t, 2.5 * 2, 7 // 2, -7 // 2, 7 % 3, 7 / 2)
n = 4
n *= 2
w = "x"
w *= 3
print(n, w)
print(~5, -(-3), +4, 1 << 4, 256 >> 2, 6 & 3, 6 | 3, 6 ^ 3)
print('single', "double", '''triple
quoted''', """also
triple""")
print('it\'s', "tab\there", r'raw\n', 'oct\101', 'hex\x41', 'uni\u00e9', 'nl\
joined')
print("implicit" ' concat' """ triple""")
print(b'bytes' == b'bytes', len(b'abc'))
print('unknown \d escape')
print(True and False, True or False, not True, None is None)
print(1 if x > 2 else 2, [1, 2, 3][1:], [1, 2, 3][::-1], "hello"[1:3])
