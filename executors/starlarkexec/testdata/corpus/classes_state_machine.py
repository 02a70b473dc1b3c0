class TrafficLight:
    transitions = {"green": "yellow", "yellow": "red", "red": "green"}
    durations = {"green": 30, "yellow": 5, "red": 25}

    def __init__(self):
        self.state = "red"
        self.elapsed = 0

    def tick(self, seconds):
        self.elapsed += seconds
        while self.elapsed >= self.durations[self.state]:
            self.elapsed -= self.durations[self.state]
            self.state = self.transitions[self.state]
            print("->", self.state)

light = TrafficLight()
for step in [10, 20, 30, 12]:
    light.tick(step)
print(light.state, light.elapsed)
final_answer(light.state)
