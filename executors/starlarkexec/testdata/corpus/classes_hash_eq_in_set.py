class Coord:
    def __init__(self, lat, lon):
        self.lat, self.lon = lat, lon

    def __eq__(self, other):
        return (self.lat, self.lon) == (other.lat, other.lon)

    def __hash__(self):
        return hash((self.lat, self.lon))

    def __repr__(self):
        return f"Coord({self.lat}, {self.lon})"

visits = [Coord(48.85, 2.35), Coord(51.5, -0.12), Coord(48.85, 2.35), Coord(40.7, -74.0)]
unique = set(visits)
print(len(unique))
counts = {}
for c in visits:
    counts[c] = counts.get(c, 0) + 1
print(counts)
final_answer(counts[Coord(48.85, 2.35)])
