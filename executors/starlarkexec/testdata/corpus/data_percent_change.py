population = {2019: 8_336_817, 2020: 8_804_190, 2021: 8_467_513, 2022: 8_335_897}
years = sorted(population)
for prev, cur in zip(years, years[1:]):
    change = (population[cur] - population[prev]) / population[prev]
    print(f"{prev}->{cur}: {change:+.2%}")
overall = (population[years[-1]] - population[years[0]]) / population[years[0]] * 100
print("Overall change (%):", round(overall, 3))
final_answer(round(overall, 3))
