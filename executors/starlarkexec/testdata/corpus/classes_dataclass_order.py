from dataclasses import dataclass

@dataclass(order=True)
class Version:
    major: int
    minor: int = 0
    patch: int = 0

    def __str__(self):
        return f"{self.major}.{self.minor}.{self.patch}"

versions = [Version(1, 2, 3), Version(1, 10), Version(0, 9, 9), Version(1, 2)]
versions.sort()
print([str(v) for v in versions])
print(max(versions), Version(2) > Version(1, 99))
final_answer(repr(versions[-1]))
