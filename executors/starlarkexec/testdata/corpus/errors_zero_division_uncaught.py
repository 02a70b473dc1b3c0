totals = {"north": 120, "south": 0, "east": 45}
counts = {"north": 4, "south": 0, "east": 3}
for region in totals:
    avg = totals[region] / counts[region]
    print(f"{region}: {avg:.1f}")
final_answer("done")
