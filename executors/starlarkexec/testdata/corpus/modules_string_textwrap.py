import string
import textwrap

print(string.ascii_uppercase, string.digits, string.hexdigits, len(string.printable))
t = string.Template("Hello $name, you owe $$${amount}")
print(t.substitute(name="Ann", amount="12.50"), t.safe_substitute(name="Bo"))
print(string.capwords("the quick  brown fox"))
text = "    indented line one\n    indented line two\n"
print(textwrap.dedent(text))
print(textwrap.indent("a\nb", "> "))
print(textwrap.fill("word " * 15, width=30))
print(textwrap.wrap("short", 10), textwrap.shorten("Hello world, how are you today?", 20))
final_answer(string.Template("$x-$y").substitute(x=1, y=2))
