from typing import Any, Dict, List, Optional, Tuple, Union, Callable

Record = Dict[str, Any]

def pick(records: List[Record], key: str, default: Optional[Any] = None) -> List[Any]:
    return [r.get(key, default) for r in records]

def apply(fn: Callable[[int], int], values: Tuple[int, ...]) -> List[int]:
    return [fn(v) for v in values]

def describe(x: Union[int, str]) -> str:
    return f"{type(x).__name__}:{x}"

rows: List[Record] = [{"a": 1}, {"a": 2, "b": 3}, {}]
print(pick(rows, "a"), pick(rows, "b", 0))
print(apply(lambda v: v * 10, (1, 2, 3)), describe(5), describe("x"))
final_answer(pick(rows, "a", -1))
