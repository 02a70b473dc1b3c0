class ValidationError(Exception):
    pass

def validate(record):
    if "@" not in record.get("email", ""):
        raise ValidationError(f"invalid email for {record['name']}")
    return True

records = [{"name": "a", "email": "a@x.io"}, {"name": "b", "email": "b-at-x.io"}]
for r in records:
    print("checking", r["name"])
    validate(r)
final_answer("all valid")
