dna = "ATGCGATACGCTTGAGGCTAATGCGAATGCGTAG"
codons = [dna[i:i + 3] for i in range(0, len(dna) - 2, 3)]
print(codons)
print("ATG occurrences (non-overlapping):", dna.count("ATG"))
overlapping = sum(1 for i in range(len(dna) - 1) if dna[i:i + 2] == "GC")
print("GC pairs (overlapping):", overlapping)
gc_content = (dna.count("G") + dna.count("C")) / len(dna)
print(f"GC content: {gc_content:.2%}")
complement = dna.translate(str.maketrans("ATGC", "TACG"))
final_answer(complement[:12])
