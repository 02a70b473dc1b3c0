line = 'id,"Smith, John",42,"says ""hi"""'
fields = []
current = ""
in_quotes = False
i = 0
while i < len(line):
    ch = line[i]
    if ch == '"':
        if in_quotes and i + 1 < len(line) and line[i + 1] == '"':
            current += '"'
            i += 1
        else:
            in_quotes = not in_quotes
    elif ch == "," and not in_quotes:
        fields.append(current)
        current = ""
    else:
        current += ch
    i += 1
fields.append(current)
print(fields)
final_answer(fields)
