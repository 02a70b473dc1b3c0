samples = [b"", b"abc", b"Hello World", b"hello world", b"HELLO", b" \t\n a b\x0b\x0cc \r\n", b"caf\xe9 \xc0la", b"\xb5\xb2\xaa", b"a\x1cb\x1dc\x1ed\x85e", b"line1\nline2\r\nline3\rlast", b"Ab Cd", b"ab1 Cd2", b"x\xa0y", b"123", b"12a", b"\x7f\x80\xff", b"a\tbc\tdef\t\n\tx"]
methods = ["isalnum", "isalpha", "isdigit", "isspace", "isascii", "islower", "isupper", "istitle", "lower", "upper", "swapcase", "title", "capitalize", "splitlines", "expandtabs", "split", "rsplit", "strip", "lstrip", "rstrip"]
for s in samples:
    print(s, [getattr(s, m)() for m in methods])
for s in samples:
    print(s.split(None, 1), s.rsplit(None, 1), s.split(maxsplit=0), s.rsplit(maxsplit=2), s.splitlines(True), s.splitlines(keepends=True), s.expandtabs(2), s.expandtabs(tabsize=0), s.expandtabs(-1))
for s in samples:
    print(s.find(b"\xe9"), s.count(b"l"), s.replace(b"\xe9", b"E"), s.split(b"\x85"), s.partition(b" "), s.strip(b"\xb5a\xff"), s.center(20, b"\xa4"), s.zfill(5), s.startswith((b"\xb5", b"ab")), s.index(b"") , s.rfind(255), s.removesuffix(b"\xff"))
print(b"-".join([b"\xe9", b"a", b"\x85"]), b"\xe9".join([b"1", b"2"]))
t = bytes.maketrans(b"abc\xe9", b"xyz\x00")
print(len(t), t[97:100], t[0xe9], b"abc\xe9d".translate(t), b"abcd".translate(None, b"bd"), b"abcd".translate(t, delete=b"a"), b"".maketrans(b"", b"")[:3])
def attempt(f):
    try:
        print(repr(f()))
    except Exception as e:
        print(type(e).__name__, e)
attempt(lambda: bytes.maketrans(b"ab", b"x"))
attempt(lambda: bytes.maketrans("ab", b"xy"))
attempt(lambda: b"a".translate(b"short"))
attempt(lambda: b"a".translate("x" * 256))
attempt(lambda: b"a".isalpha(1))
attempt(lambda: b"a b".split(" "))
attempt(lambda: b"a b".strip(" "))
attempt(lambda: b"a\tb".expandtabs(2.0))
attempt(lambda: b"ab".split(maxsplit=1.5))
final_answer("done")
