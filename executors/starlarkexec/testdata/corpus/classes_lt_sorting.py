class Employee:
    def __init__(self, name, salary):
        self.name = name
        self.salary = salary

    def __lt__(self, other):
        return (self.salary, self.name) < (other.salary, other.name)

    def __repr__(self):
        return f"Employee({self.name!r}, {self.salary})"

staff = [Employee("zoe", 5000), Employee("adam", 7000), Employee("mia", 5000)]
print(sorted(staff))
print(min(staff), max(staff))
final_answer([e.name for e in sorted(staff, reverse=True)])
