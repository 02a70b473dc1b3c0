# Answer the question: which city is the hottest?
city_temps = {"Paris": 18.5, "Oslo": 9.0, "Cairo": 31.2}
hottest = max(city_temps, key=city_temps.get)
print(f"The hottest city is {hottest}")
final_answer(f"{hottest} ({city_temps[hottest]}°C)")
