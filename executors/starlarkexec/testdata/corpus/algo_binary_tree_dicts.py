def insert(node, value):
    if node is None:
        return {"value": value, "left": None, "right": None}
    side = "left" if value < node["value"] else "right"
    node[side] = insert(node[side], value)
    return node

def inorder(node):
    return inorder(node["left"]) + [node["value"]] + inorder(node["right"]) if node else []

def height(node):
    return 0 if node is None else 1 + max(height(node["left"]), height(node["right"]))

root = None
for v in [50, 30, 70, 20, 40, 60, 80, 35, 45, 65]:
    root = insert(root, v)
print(inorder(root))
print("height:", height(root))
final_answer(height(root))
