# bytes methods refuse str arguments with CPython's TypeError, and decode
# reports invalid UTF-8 as CPython's UnicodeDecodeError does.
def attempt(label, f):
    try:
        print(label, repr(f()))
    except (TypeError, ValueError, LookupError) as e:
        print(label, type(e).__name__, e)


b = b"hello"
attempt("endswith str", lambda: b.endswith("o"))
attempt("startswith str", lambda: b.startswith("h"))
attempt("startswith tuple", lambda: b.startswith((b"x", "h")))
attempt("find str", lambda: b.find("l"))
attempt("find int", lambda: b.find(108))
attempt("count int", lambda: b.count(108))
attempt("index 300", lambda: b.index(300))
attempt("split str", lambda: b.split("e"))
attempt("replace str", lambda: b.replace(b"l", "L"))
attempt("strip str", lambda: b.strip("h"))
attempt("partition str", lambda: b.partition("l"))
attempt("removeprefix str", lambda: b.removeprefix("h"))
attempt("center str", lambda: b.center(9, "*"))
attempt("join str", lambda: b",".join(["a"]))
attempt("bytes ok", lambda: (b.endswith(b"o"), b.split(b"l"), b.center(9, b"*"), b.rfind(b"l", 1)))
for raw in [b"\xff", b"abc\xffdef", b"\xc3", b"\xe2\x82", b"\xe2\x82x", b"\xe0\x80", b"\xed\xa0\x80", b"\xf0\x9f\x98", b"\xc0\xaf", b"\xf0\x9f\x98\x80\xff"]:
    attempt("decode", lambda: raw.decode())
    attempt("replace", lambda: raw.decode(errors="replace"))
    attempt("backslash", lambda: raw.decode("utf-8", "backslashreplace"))
    attempt("ignore", lambda: raw.decode("utf-8", errors="ignore"))
attempt("bogus handler", lambda: b"\xff".decode("utf-8", "bogus"))
attempt("bogus unused", lambda: b"ok".decode("utf-8", "bogus"))
try:
    b"\xff".decode()
except ValueError as e:
    print("caught as ValueError:", type(e).__name__)
final_answer(b"\xe2\x82\xac".decode())
