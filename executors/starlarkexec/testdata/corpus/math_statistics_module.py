import statistics as st

samples = [2.5, 3.1, 4.7, 3.1, 5.0, 2.9, 3.8, 4.2]
print("mean", st.mean(samples))
print("median", st.median(samples))
print("mode", st.mode(samples))
print("pstdev", round(st.pstdev(samples), 6))
print("variance", round(st.variance(samples), 6))
print("median_low/high", st.median_low(samples), st.median_high(samples))
print("fmean", st.fmean([1, 2, 3, 4]))
print(st.mean([1, 2, 3, 4]), st.median([1, 3, 2]), st.harmonic_mean([1, 2, 4]))
final_answer(round(st.stdev(samples), 4))
