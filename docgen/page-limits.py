#!/usr/bin/env python3
"""Checks that every page is read in one sitting.

    python3 docgen/page-limits.py          print each page's words; exit 1 over a limit
    python3 docgen/page-limits.py PAGE...  those pages only

A word is a run of non-space characters outside HTML comments (the markers
of generated blocks and values are comments; what they wrap counts). Code
blocks and tables count: a reader reads them. The limits:
  a lesson page (docs/stepN-*.md, docs/histogram.md)   3,500 words
  docs/results.md (the cross-step tables)               8,000 words
Companion pages (docs/deeper/) hold the experiments beyond a lesson's
argument and have no limit here. Every lesson page that has an Exercises
section must have its worked solutions in docs/solutions/<page>.
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COMMENT = re.compile(r"<!--.*?-->", re.S)
LESSON = re.compile(r"^(step\d+-[a-z0-9-]+|histogram)\.md$")
LIMITS = {"results.md": 8000}
LESSON_LIMIT = 3500


def words(path):
    with open(path, encoding="utf-8") as f:
        return len(COMMENT.sub(" ", f.read()).split())


def limit(path):
    name = os.path.basename(path)
    if os.path.dirname(os.path.abspath(path)) != os.path.join(ROOT, "docs"):
        return None
    if name in LIMITS:
        return LIMITS[name]
    return LESSON_LIMIT if LESSON.match(name) else None


def main(argv):
    pages = argv or sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    bad = []
    for page in pages:
        n, lim = words(page), limit(page)
        rel = os.path.relpath(os.path.abspath(page), ROOT)
        mark = ""
        if lim is not None and n > lim:
            mark = "  OVER (limit {})".format(lim)
            bad.append(rel)
        print("{:6d}  {}{}".format(n, rel, mark))
        name = os.path.basename(page)
        if lim is not None and LESSON.match(name):
            with open(page, encoding="utf-8") as f:
                has_exercises = re.search(r"^#+ .*Exercises", f.read(), re.M)
            if has_exercises and not os.path.exists(os.path.join(ROOT, "docs", "solutions", name)):
                print("        {}: has exercises and no docs/solutions/{}".format(rel, name))
                bad.append(rel)
    if bad:
        print("page-limits: {} page(s) over a limit or without solutions: {}".format(len(bad), ", ".join(bad)),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
