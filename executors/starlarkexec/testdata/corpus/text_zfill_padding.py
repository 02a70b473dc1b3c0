invoice_ids = [7, 42, 315, 9001]
for i in invoice_ids:
    print("INV-" + str(i).zfill(5), f"{i:>6}", f"{i:<6}|", f"{i:^7}|")
print("-42".zfill(6), "+7".zfill(4))
codes = [f"{n:03d}" for n in range(1, 4)]
print(codes)
final_answer(["INV-" + str(i).zfill(5) for i in invoice_ids])
