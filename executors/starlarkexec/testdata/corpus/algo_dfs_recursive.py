tree = {
    "root": ["docs", "src"],
    "docs": ["intro.md", "api.md"],
    "src": ["main.py", "lib"],
    "lib": ["util.py", "io.py"],
}
def walk(node, depth=0, out=None):
    if out is None:
        out = []
    out.append(("  " * depth) + node)
    for child in tree.get(node, []):
        walk(child, depth + 1, out)
    return out

lines = walk("root")
print("\n".join(lines))
leaves = [l.strip() for l in lines if l.strip() not in tree]
final_answer(leaves)
