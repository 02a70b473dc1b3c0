class Animal:
    def __init__(self, name):
        self.name = name

    def speak(self):
        return "..."

    def intro(self):
        return f"{self.name} says {self.speak()}"

class Dog(Animal):
    def speak(self):
        return "Woof"

class Puppy(Dog):
    def speak(self):
        return super().speak() + " (squeaky)"

for a in [Animal("generic"), Dog("Rex"), Puppy("Bit")]:
    print(a.intro(), type(a).__name__)
print(issubclass(Puppy, Animal), isinstance(Puppy("x"), Dog))
final_answer(Puppy("Bit").intro())
