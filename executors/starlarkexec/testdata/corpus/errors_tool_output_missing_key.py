weather = {"city": "Oslo", "current": {"temp_c": -3.5, "condition": "snow"}}
print(f"Weather for {weather['city']}:")
print("condition:", weather["current"]["condition"])
print("temperature:", weather["current"]["temp_c"])
print("wind:", weather["current"]["wind_kph"])
final_answer(weather["current"])
