# Checks the runner's one-pass compilation (Runner._compile) against the
# syntax tree: for every program given (and for each of its prefixes that
# ends after a top-level statement, with and without an expression
# appended), the step must return a value exactly when its last top-level
# statement is an expression statement, and that expression must start on
# the same line. Prints "ok N" or the first differences.
import ast
import sys
import types

runner_src = open(sys.argv[1]).read()
ns = {"__name__": "runner_under_test"}
exec(compile(runner_src, "runner.py", "exec"), ns)
compile_step = ns["Runner"]._compile
me = types.SimpleNamespace(tools={"search": None})
Protected = ns["_Protected"]


def by_tree(code):
    tree = ast.parse(code)
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        return True, tree.body[-1].lineno
    return False, None


def by_runner(code):
    body, last = compile_step(me, code, "<code>")
    if last is None:
        return False, None
    return True, min(p[0] for p in last.co_positions() if p[0])


def check(code):
    try:
        want = by_tree(code)
        compile(code, "<code>", "exec")
    except (SyntaxError, ValueError):
        return None
    try:
        got = by_runner(code)
    except Protected:
        return None  # refused before it runs: the tool check's own tests
    return None if got == want else (want, got)


programs = [open(f).read() for f in sys.argv[2:]]
programs += [
    "x = 1\n5", "a; b", "if c: a; b", "x = [\n1]\n(1 +\n 2)", "print(\n'x')", "x = '''\nabc\n'''",
    "s = '''\n'''; 5", "@d\ndef f(): pass", "try:\n    x\nexcept E:\n    y\nelse:\n    z\nfinally:\n    w",
    "x = y \\\n(z)", "x = 1\n# c\n", "", "#c", "x = 1\n  \n", "if a:\n    b\nelif c:\n    d",
    "match x:\n    case 1:\n        y", "x = 1; y = 2", "f(a=1)", "x\r\ny", "x = 1\r\ny\r\n", "lambda: 1",
    "for i in x:\n    i\nelse:\n    i", "x = (\n1,\n2)", "x = 1\n@dec\nclass A:\n    pass",
    "class A:\n    x = 1\nA.x", "elsewhere = 1\nelsewhere", "x = 1\n\\\n2", "x = 1\n'doc'",
    "from __future__ import annotations\nx: int = 1\nx", "x = 'a;b'\nx", "x = 1\n(x)\n# end",
    "def f():\n    return 1\n\n\nf()\n\n", "x = 1\nsearch('q')", "search = 1", "x = 1\nif x:\n    x\nx + 1",
    "lambda: 1", "x = 1\nlambda x: x", "x = 1\nx == 1", "x = 1\nx . real", "x = 1\nx.imag = 2", "x = 1\nx += 1",
    "x: int", "x = 1\nx //= 2", "x = 1\nx<=2", "x = 1\nmatch = 3", "x = 1\nmatch", "x = 1\n_ = x", "x=[1]\nx[0] = 2",
]
n = bad = 0
for src in programs:
    cases = [src]
    try:
        tree = ast.parse(src)
        lines = src.splitlines(True)
        cases += ["".join(lines[:s.end_lineno]) for s in tree.body]
    except (SyntaxError, ValueError):
        pass
    for code in cases:
        for c in (code, code + "\nzz_last\n"):
            n += 1
            diff = check(c)
            if diff is not None:
                bad += 1
                if bad <= 5:
                    print("differs (tree, runner) %r:\n%s\n----" % (diff, c[-400:]))
print("ok %d" % n if not bad else "%d of %d differ" % (bad, n))
