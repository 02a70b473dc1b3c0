class Student:
    def __init__(self, name, grades):
        self.name = name
        self.grades = grades

    def average(self):
        return sum(self.grades) / len(self.grades) if self.grades else 0.0

class Course:
    def __init__(self, title):
        self.title = title
        self.students = []

    def enroll(self, student):
        self.students.append(student)
        return self

    def ranking(self):
        return sorted(self.students, key=lambda s: s.average(), reverse=True)

course = Course("Algorithms").enroll(Student("Ana", [90, 85])).enroll(Student("Ben", [70, 95, 80])).enroll(Student("Cal", []))
for s in course.ranking():
    print(f"{s.name}: {s.average():.1f}")
final_answer([s.name for s in course.ranking()])
