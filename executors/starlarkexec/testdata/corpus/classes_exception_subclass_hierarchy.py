class AppError(Exception):
    pass

class NotFound(AppError):
    def __init__(self, resource):
        super().__init__(f"{resource} not found")
        self.resource = resource

class Forbidden(AppError):
    pass

def handle(path):
    if path.startswith("/admin"):
        raise Forbidden(path)
    if path != "/":
        raise NotFound(path)
    return 200

codes = {}
for path in ["/", "/admin/users", "/missing"]:
    try:
        codes[path] = handle(path)
    except NotFound as e:
        codes[path] = (404, e.resource)
    except AppError as e:
        codes[path] = (403, str(e))
print(codes)
final_answer(codes)
