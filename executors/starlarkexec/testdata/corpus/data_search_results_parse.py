search_output = """## Search Results
[1] Eiffel Tower - Wikipedia (https://en.wikipedia.org/wiki/Eiffel_Tower)
The tower is 330 metres (1,083 ft) tall, about the same height as an 81-storey building.
[2] Eiffel Tower facts (https://example.com/facts)
Completed in 1889, it was the tallest man-made structure for 41 years.
[3] Visiting the tower (https://example.org/visit)
Tickets start at 11.80 EUR for the second floor."""
import re
results = re.findall(r"\[(\d+)\] (.+?) \((https?://[^)]+)\)\n(.+)", search_output)
for num, title, url, snippet in results:
    print(num, title, "->", url)
heights = re.findall(r"(\d+) metres", search_output)
year = re.search(r"Completed in (\d{4})", search_output).group(1)
print("height:", heights, "year:", year)
final_answer({"height_m": int(heights[0]), "completed": int(year)})
