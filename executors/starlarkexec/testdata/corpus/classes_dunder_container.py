class Playlist:
    def __init__(self, name, songs=None):
        self.name = name
        self.songs = list(songs or [])

    def __len__(self):
        return len(self.songs)

    def __getitem__(self, index):
        return self.songs[index]

    def __contains__(self, song):
        return song.lower() in (s.lower() for s in self.songs)

    def __iter__(self):
        return iter(self.songs)

p = Playlist("road trip", ["Africa", "Holiday", "Roam", "Go"])
print(len(p), p[0], p[-1], p[1:3])
print("roam" in p, "Yesterday" in p)
for i, song in enumerate(p, 1):
    print(i, song)
print(sorted(p), list(p) == p.songs)
final_answer(len(p))
