import re

html = '<div class="post"><h1>Title &amp; More</h1><p>First <b>bold</b> para.</p><p>Second&nbsp;para.</p></div>'
text = re.sub(r"<[^>]+>", " ", html)
text = text.replace("&amp;", "&").replace("&nbsp;", " ")
text = re.sub(r"\s+", " ", text).strip()
print(text)
headings = re.findall(r"<h1>(.*?)</h1>", html)
paragraphs = re.findall(r"<p>(.*?)</p>", html)
print(headings, len(paragraphs))
final_answer(text)
