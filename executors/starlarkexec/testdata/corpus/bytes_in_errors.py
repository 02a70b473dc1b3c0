for f in (lambda: 350 in b"ab", lambda: -1 in b"ab", lambda: "a" in b"ab", lambda: 97 in b"ab", lambda: True in b"\x01", lambda: False in b"a", lambda: b"b" in b"ab", lambda: None in b"", lambda: 2.0 in b"\x02", lambda: [97] in b"a"):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
final_answer("done")
