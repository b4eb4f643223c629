#!/usr/bin/env python3
"""Checks every relative link of the pages: the file exists, and an anchor
(#heading) names a heading of that page, as GitHub makes them.

    python3 docgen/links.py           README.md, every page under docs/, every folder README
    python3 docgen/links.py PAGE...   those pages only

Links to the web (http:, https:, mailto:) are not followed. Exit 1 on a
broken link, one line each: page:line: target: why.
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINK = re.compile(r"(?<!\!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|\!\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")


def slug(text):
    """GitHub's anchor for a heading."""
    text = re.sub(r"<[^>]+>", "", text)           # inline HTML
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links keep their text
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)           # punctuation out, underscores kept
    return text.replace(" ", "-")


def lines_outside_code(path):
    with open(path, encoding="utf-8") as f:
        inside = False
        for n, line in enumerate(f, 1):
            if FENCE.match(line):
                inside = not inside
                continue
            if not inside:
                yield n, line


_anchors = {}


def anchors(path):
    if path not in _anchors:
        seen, out = {}, set()
        for _, line in lines_outside_code(path):
            m = HEADING.match(line)
            if not m:
                continue
            s = slug(m.group(2))
            k = seen.get(s, 0)
            out.add(s if k == 0 else "{}-{}".format(s, k))
            seen[s] = k + 1
        with open(path, encoding="utf-8") as f:
            out |= set(re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", f.read()))
        _anchors[path] = out
    return _anchors[path]


def check(page):
    bad = []
    for n, line in lines_outside_code(page):
        line = re.sub(r"`[^`]*`", "", line)  # code spans are not links
        for m in LINK.finditer(line):
            target = m.group(1) or m.group(2)
            if re.match(r"^[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            full = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            where = "{}:{}: {}".format(os.path.relpath(page, ROOT), n, target)
            if not os.path.exists(full):
                bad.append(where + ": no such file")
            elif anchor and full.endswith(".md") and anchor not in anchors(full):
                bad.append(where + ": no heading with that anchor")
    return bad


def main(argv):
    pages = argv or ([os.path.join(ROOT, "README.md")] +
                     sorted(glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True)) +
                     sorted(p for p in glob.glob(os.path.join(ROOT, "*", "README.md"))))
    bad = []
    for p in pages:
        bad += check(os.path.abspath(p))
    for b in bad:
        print(b)
    print("links.py: {} page(s), {} broken link(s)".format(len(pages), len(bad)), file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
