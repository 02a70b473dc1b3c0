# A datetime is a date subclass but the two do not compare; dates far
# from 1970 compare, hash and convert to timestamps correctly.
import datetime as dt

print(dt.datetime(2024, 1, 1) == dt.date(2024, 1, 1), dt.datetime(2024, 1, 1) != dt.date(2024, 1, 1))
print(dt.time(1) == dt.date(2020, 1, 1), isinstance(dt.datetime(2024, 1, 1), dt.date))
for f in [lambda: dt.date(2024, 1, 1) < dt.datetime(2024, 1, 2), lambda: dt.datetime(2024, 1, 2) >= dt.date(2024, 1, 2), lambda: dt.time(1) < dt.date(2020, 1, 1)]:
    try:
        print(f())
    except TypeError as e:
        print("TypeError:", e)
print(dt.datetime(3000, 1, 1) > dt.datetime(1000, 1, 1), dt.datetime(9999, 1, 1) > dt.datetime(2000, 1, 1))
print(sorted([dt.date(9000, 1, 1), dt.date(1, 1, 1), dt.date(2500, 5, 5)]))
print(len({dt.datetime(3000, 1, 1), dt.datetime(3000, 1, 1), dt.datetime(1000, 1, 1)}))
utc = dt.timezone.utc
print(dt.datetime(3000, 1, 1, tzinfo=utc).timestamp(), dt.datetime(1000, 1, 1, 0, 0, 0, 1, tzinfo=utc).timestamp())
print(dt.datetime(2024, 1, 1, 0, 0, 0, 123456, tzinfo=utc).timestamp())
final_answer(max(dt.date(2262, 4, 12), dt.date(2262, 4, 11), dt.date(1677, 9, 21)))
