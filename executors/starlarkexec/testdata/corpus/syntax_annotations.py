from typing import Optional, List, Dict

max_items: int = 5
ratio: float
names: List[str] = ["b", "a"]

def summarize(values: List[float], label: Optional[str] = None) -> Dict[str, float]:
    result: Dict[str, float] = {"min": min(values), "max": max(values)}
    if label:
        print(f"{label}: {result}")
    return result

def greet(name: str, *, excited: bool = False) -> str:
    return f"Hi {name}" + ("!" if excited else ".")

print(summarize([3.0, 1.5, 2.25], "temps"))
print(greet("Ana"), greet("Bo", excited=True), max_items, sorted(names))
final_answer(summarize([1, 2]))
