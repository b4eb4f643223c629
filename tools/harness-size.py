#!/usr/bin/env python3
"""The size of the harness a step-1 student reads.

Starts from every .cpp and .hpp file in step1-naive/, follows the project's
`#include "..."` lines transitively and prints two numbers with their files:

  headers  the lines of every project header reached (goal: at most 400);
  core     those headers plus the definitions behind them: each reached
           header's matching .cpp, whose own project includes are followed
           in turn (goal: at most 1,500).

Exits 1 when either number is over its goal. Usage:
  tools/harness-size.py [--root DIR] [--quiet]
"""
import argparse
import os
import re
import sys

HEADER_GOAL = 400
CORE_GOAL = 1500
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
HEADER_ENDINGS = (".hpp", ".h")


def project_includes(root, path):
    """The project files that `path` includes with #include "...": found
    from the repository root, else beside `path`."""
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
        text = f.read()
    found = []
    for name in INCLUDE.findall(text):
        for candidate in (name, os.path.join(os.path.dirname(path), name)):
            candidate = os.path.normpath(candidate)
            if os.path.isfile(os.path.join(root, candidate)):
                found.append(candidate)
                break
    return found


def count_lines(root, path):
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
        return sum(1 for _ in f)


def matching_source(root, header):
    source = os.path.splitext(header)[0] + ".cpp"
    return source if os.path.isfile(os.path.join(root, source)) else None


def reach(root, start, with_sources):
    """The headers (and, with_sources, the matching .cpp files) reached from
    `start`."""
    seen, headers, sources = set(), set(), set()
    stack = list(start)
    while stack:
        path = stack.pop()
        if path in seen:
            continue
        seen.add(path)
        for included in project_includes(root, path):
            if included.endswith(HEADER_ENDINGS):
                headers.add(included)
                stack.append(included)
        if with_sources and path.endswith(HEADER_ENDINGS):
            source = matching_source(root, path)
            if source:
                sources.add(source)
                stack.append(source)
    return headers, sources


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    parser.add_argument("--quiet", action="store_true", help="only the two numbers")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    folder = "step1-naive"
    start = sorted(os.path.join(folder, name) for name in os.listdir(os.path.join(root, folder))
                   if name.endswith((".cpp",) + HEADER_ENDINGS))

    headers, _ = reach(root, start, with_sources=False)
    header_lines = sum(count_lines(root, h) for h in headers)
    core_headers, core_sources = reach(root, start, with_sources=True)
    core_files = sorted(core_headers | core_sources)
    core_lines = sum(count_lines(root, p) for p in core_files)

    if not args.quiet:
        print("from: " + " ".join(start))
        print("headers reached:")
        for h in sorted(headers):
            print("  %5d  %s" % (count_lines(root, h), h))
        print("headers and the definitions behind them:")
        for p in core_files:
            print("  %5d  %s" % (count_lines(root, p), p))
    over = header_lines > HEADER_GOAL or core_lines > CORE_GOAL
    print("headers: %d lines in %d files (goal: at most %d)" % (header_lines, len(headers), HEADER_GOAL))
    print("core: %d lines in %d files (goal: at most %d)" % (core_lines, len(core_files), CORE_GOAL))
    print("over the goal" if over else "within the goals")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
