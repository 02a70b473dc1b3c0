import statistics

prices = [12.5, 13.0, 12.75, 14.25, 13.5, 12.0, 15.0]
print(statistics.mean(prices), statistics.median(prices), statistics.pstdev(prices))
print(statistics.quantiles(prices, n=4))
print(statistics.mode(["red", "blue", "red", "green"]), statistics.multimode([1, 1, 2, 2, 3]))
print(statistics.median_grouped([1, 2, 2, 3, 4]), statistics.geometric_mean([1, 10, 100]))
try:
    statistics.mean([])
except statistics.StatisticsError as e:
    print("StatisticsError:", e)
print(statistics.correlation([1, 2, 3, 4], [2, 4, 5, 9]))
final_answer(round(statistics.stdev(prices), 5))
