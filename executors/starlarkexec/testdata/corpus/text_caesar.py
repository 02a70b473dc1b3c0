def caesar(text, shift):
    out = []
    for ch in text:
        if ch.isupper():
            out.append(chr((ord(ch) - ord("A") + shift) % 26 + ord("A")))
        elif ch.islower():
            out.append(chr((ord(ch) - ord("a") + shift) % 26 + ord("a")))
        else:
            out.append(ch)
    return "".join(out)

secret = caesar("Attack at Dawn, 5 AM!", 3)
print("encrypted:", secret)
plain = caesar(secret, -3)
print("decrypted:", plain)
final_answer(secret)
