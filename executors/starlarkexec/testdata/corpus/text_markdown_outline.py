doc = """# Guide
Intro text.
## Install
Run the installer.
### Linux
Use the package.
### macOS
Use brew.
## Usage
Call the CLI.
# Appendix
"""
outline = []
for line in doc.splitlines():
    if line.startswith("#"):
        level = len(line) - len(line.lstrip("#"))
        title = line.lstrip("#").strip()
        outline.append((level, title))
        print("  " * (level - 1) + "- " + title)
counts = {}
for level, _ in outline:
    counts[level] = counts.get(level, 0) + 1
final_answer(counts)
