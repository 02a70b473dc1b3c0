import textwrap

paragraph = ("Large language models can write code that calls tools, inspects the results "
             "and decides what to do next. Running that code safely and quickly is the job "
             "of the executor, which must also report errors the model can act on.")
wrapped = textwrap.wrap(paragraph, width=40)
for line in wrapped:
    print(f"|{line:<40}|")
print(textwrap.shorten(paragraph, width=60, placeholder=" [...]"))
final_answer(len(wrapped))
