# Arithmetic across the int32 and int64 boundaries, where the VM switches
# between its small-int representations and big ints.
edges = [2**31 - 1, 2**31, -2**31, -2**31 - 1, 2**32, 2**62, 2**63 - 1, 2**63, -2**63, -2**63 - 1, 2**64, 3 * 10**18]
out = []
for a in edges:
    out.append((a + 1, a - 1, -a, abs(a), a * 2, a * -3, a // 7, a % 7, a // -1, a >> 3, a << 1, a & 0xFFFF, a | 1, a ^ -1, ~a))
for row in out[:4]:
    print(row)
print(out[-1])
print((2**63 - 1) + 1, -2**63 - 1, (-2**63) * -1, (-2**63) // -1, (-2**63) % -1, 2**32 * 2**31, -(2**31) * 2**32)
print(sorted(edges), max(edges), min(edges))
print(sorted(edges, key=lambda v: -v)[:3], sum(edges), sum(e * e for e in edges[:6]))
print(2**63 - 1 == 9223372036854775807, 2**63 - 1 < 2**63, -2**63 > -2**63 - 1, 2**62 * 2 == 2**63)
d = {2**63 - 1: 'max', -2**63: 'min', 2**40: 'mid'}
print(d[9223372036854775807], d[-9223372036854775808], d[1099511627776], (2**40) in {1099511627776.0})
print(hash(2**40) == hash(2**40.0 if False else float(2**40)), float(2**63), int(float(2**62)))
print(divmod(-2**63, 3), divmod(2**63 - 1, -10), pow(2, 62), pow(-2, 63), (2**31) ** 2)
t = 0
for i in range(100000, 100100):
    t += i * i * i
print(t, t.bit_length(), (2**63 - 1).bit_length(), str(-2**63), repr(2**64 - 1))
final_answer([x // 3 for x in edges])
