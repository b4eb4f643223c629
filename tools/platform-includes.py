#!/usr/bin/env python3
"""Lists every #include of an operating system's header outside the places
allowed to have one, and exits 1 if there is any.

    python3 tools/platform-includes.py [--root DIR]

Allowed: common/machinery/platform/ (the platform layer: docs/architecture.md),
coursework/ (the grader, Linux-only), and the tests that check Linux
behaviour itself (tests/reliability/, tests/coursework/). Everything else,
the steps, the tools, the histogram and the rest of the harness, builds on
Linux, macOS and Windows through the platform layer.
"""
import argparse
import os
import re
import sys

HEADERS = re.compile(r'^\s*#\s*include\s*<(unistd\.h|fcntl\.h|poll\.h|dirent\.h|grp\.h|pwd\.h|'
                     r'sys/[a-z_]+\.h|windows\.h|io\.h|direct\.h)>', re.M)
ALLOWED = ("common/machinery/platform/", "coursework/", "tests/reliability/", "tests/coursework/")
SKIP_DIRS = {".git", "build"}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    root = parser.parse_args().root
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith("build")]
        for name in files:
            if not name.endswith((".cpp", ".hpp", ".h", ".cc")):
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            if rel.startswith(ALLOWED):
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                for m in HEADERS.finditer(f.read()):
                    found.append("{}: #include <{}>".format(rel, m.group(1)))
    for line in found:
        print(line)
    print("platform-includes: {} outside the platform layer".format(len(found)), file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
