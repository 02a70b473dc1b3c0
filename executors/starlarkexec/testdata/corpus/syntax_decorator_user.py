calls = []

def logged(func):
    def wrapper(*args, **kwargs):
        calls.append(func.__name__)
        result = func(*args, **kwargs)
        print(f"{func.__name__}{args} -> {result}")
        return result
    return wrapper

def repeat(times):
    def decorate(func):
        def wrapper(*args):
            return [func(*args) for _ in range(times)]
        return wrapper
    return decorate

@logged
def add(a, b):
    return a + b

@repeat(3)
def shout(word):
    return word.upper()

add(2, 3)
add(10, -4)
print(shout("hey"))
final_answer(calls)
