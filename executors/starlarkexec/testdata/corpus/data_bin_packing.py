files = {"a.log": 700, "b.bin": 300, "c.txt": 120, "d.iso": 900, "e.csv": 450, "f.db": 500}
capacity = 1000
disks = []
for name, size in sorted(files.items(), key=lambda kv: kv[1], reverse=True):
    for disk in disks:
        if disk["free"] >= size:
            disk["files"].append(name)
            disk["free"] -= size
            break
    else:
        disks.append({"files": [name], "free": capacity - size})
for i, d in enumerate(disks):
    print(f"disk {i}: {d['files']} free={d['free']}")
final_answer(len(disks))
