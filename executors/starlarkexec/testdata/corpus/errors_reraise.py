attempts = []
def fetch(n):
    attempts.append(n)
    if n < 3:
        raise ConnectionError(f"attempt {n} failed")
    return "payload"

def with_retry():
    for n in range(1, 3):
        try:
            return fetch(n)
        except ConnectionError as e:
            print("retrying after:", e)
            if n == 2:
                raise

with_retry()
final_answer(attempts)
