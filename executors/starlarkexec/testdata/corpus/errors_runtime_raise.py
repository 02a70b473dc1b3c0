state = {"step": 0}
def advance():
    state["step"] += 1
    if state["step"] > 3:
        raise RuntimeError(f"too many steps: {state['step']}")
    print("step", state["step"])

for _ in range(5):
    advance()
final_answer(state)
