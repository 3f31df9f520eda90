"""Checks that every relative link and anchor in the repository's Markdown resolves (`make
check-links`, in CI): `[text](path)`, `![alt](path)` and `[text](path#anchor)` to a file of the
checkout, and `#anchor` to a heading of the file it points at (GitHub's slugs: lower case,
punctuation dropped, spaces as `-`, a repeated heading `-1`, `-2`…). Links with a scheme
(`https:`, `mailto:`) and those inside code are not followed. Exits 1 listing what does not."""

import os
import re
import sys

from . import paths

LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^()\s]+(?:\([^()\s]*\))?)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")


def slug(text):
    """GitHub's anchor for a heading's text."""
    # Code spans are text (`<focal-img>` is "focal-img"); tags outside them are markup.
    parts = re.split(r"(`[^`]*`)", text)
    text = "".join(p[1:-1] if p.startswith("`") else re.sub(r"<[^>]+>", "", p) for p in parts)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def prose(path):
    """The file's lines outside fenced code, with inline code blanked."""
    out, fenced = [], False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if FENCE.match(line):
                fenced = not fenced
                out.append("")
                continue
            out.append("" if fenced else re.sub(r"`[^`]*`", "``", line.rstrip("\n")))
    return out


def anchors(path):
    """Every anchor a Markdown file offers: its headings' slugs (numbered when repeated) and
    explicit `<a id>`/`<a name>` targets."""
    seen, found = {}, set()
    with open(path, encoding="utf-8") as f:
        fenced = False
        for line in f:
            if FENCE.match(line):
                fenced = not fenced
                continue
            if fenced:
                continue
            m = HEADING.match(line)
            if m:
                base = slug(m.group(2))
                n = seen.get(base, 0)
                found.add(base if n == 0 else f"{base}-{n}")
                seen[base] = n + 1
            for name in re.findall(r"<a\s+(?:id|name)=\"([^\"]+)\"", line):
                found.add(name)
    return found


def markdown_files(root):
    skip = {".build", ".cache", "models", "node_modules", ".git"}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in skip and not d.startswith(".build")]
        for name in files:
            if name.endswith(".md"):
                yield os.path.join(folder, name)


def check(root):
    """The broken links under `root`: (file, line, target, why)."""
    broken, cache = [], {}
    for path in sorted(markdown_files(root)):
        for number, line in enumerate(prose(path), 1):
            for target in LINK.findall(line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
                    continue
                file_part, _, anchor = target.partition("#")
                goal = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
                if not os.path.exists(goal):
                    broken.append((path, number, target, "no such file"))
                    continue
                if anchor and goal.endswith(".md"):
                    if goal not in cache:
                        cache[goal] = anchors(goal)
                    if anchor not in cache[goal]:
                        broken.append((path, number, target, "no such heading"))
    return broken


def main():
    root = paths.ROOT
    broken = check(root)
    for path, number, target, why in broken:
        print(f"{os.path.relpath(path, root)}:{number}: {target}: {why}", file=sys.stderr)
    count = sum(1 for _ in markdown_files(root))
    print(f"links: {count} Markdown files, {len(broken)} broken link(s)")
    sys.exit(1 if broken else 0)


if __name__ == "__main__":
    main()
