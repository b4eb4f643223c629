#!/usr/bin/env python3
"""Writes the exercise skeletons, docs/exercises/stepN-*.cl, from the steps' kernels.

A skeleton is its step's convolve.cl with the body of every __kernel function
replaced by that kernel's TODO text, under a header that says how to grade it.
The body is the region from the line after the one that opens it with "{"
to the next line that is exactly "}". Everything else
(the comments that explain the step, the signatures, the preprocessor
symbols) comes from the solution, so a signature changes in one place.

The header and the TODO text of each kernel are in docs/exercises/todo/<step>.txt:
the lines before the first "@@ <kernel>" line are the header; the lines
after "@@ <kernel>" (up to the next "@@" line) are that kernel's body.

    python3 docgen/exercises.py           # writes every skeleton
    python3 docgen/exercises.py --check   # exit 1 when a committed one differs
"""
import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXERCISES = ROOT / "docs" / "exercises"
# "__kernel void name(", or "__kernel __attribute__((...))" with "void name(" on the next line.
KERNEL = re.compile(r"^__kernel\b(?:\s+__attribute__\(\(.*?\)\))?\s+void\s+(\w+)\s*\(", re.S)


def read_todo(path):
    """(header lines, {kernel name: body lines}) from a todo file."""
    header, bodies, current = [], {}, None
    for line in path.read_text().splitlines(keepends=True):
        m = re.match(r"^@@ (\w+)\s*$", line)
        if m:
            current = m.group(1)
            if current in bodies:
                sys.exit(f"{path}: kernel {current} has two @@ sections")
            bodies[current] = []
        elif current is None:
            header.append(line)
        else:
            bodies[current].append(line)
    return header, bodies


def skeleton(kernel_path, todo_path):
    header, bodies = read_todo(todo_path)
    lines = kernel_path.read_text().splitlines(keepends=True)
    out, seen, i = list(header), [], 0
    while i < len(lines):
        m = KERNEL.match("".join(lines[i:i + 2])) if lines[i].startswith("__kernel") else None
        if not m:
            out.append(lines[i])
            i += 1
            continue
        name = m.group(1)
        if name not in bodies:
            sys.exit(f"{todo_path}: no '@@ {name}' section for the kernel {name}() of {kernel_path}")
        seen.append(name)
        while i < len(lines) and "{" not in lines[i].split("//")[0]:  # the signature
            out.append(lines[i])
            i += 1
        if i == len(lines):
            sys.exit(f"{kernel_path}: the signature of {name}() has no opening brace")
        out.append(lines[i])
        i += 1
        while i < len(lines) and lines[i].rstrip("\n") != "}":  # the body: dropped
            i += 1
        if i == len(lines):
            sys.exit(f"{kernel_path}: the body of {name}() has no closing brace at column 0")
        out.extend(bodies[name])
    extra = sorted(set(bodies) - set(seen))
    if extra:
        sys.exit(f"{todo_path}: sections for kernels {kernel_path} does not have: {', '.join(extra)}")
    return "".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when a skeleton differs from its generated text")
    args = parser.parse_args()
    todos = sorted((EXERCISES / "todo").glob("*.txt"))
    if not todos:
        sys.exit(f"no todo files in {EXERCISES / 'todo'}")
    stale = []
    for todo in todos:
        step = todo.stem
        kernel = ROOT / step / "convolve.cl"
        if not kernel.is_file():
            sys.exit(f"{todo}: there is no {kernel.relative_to(ROOT)}")
        text = skeleton(kernel, todo)
        target = EXERCISES / f"{step}.cl"
        old = target.read_text() if target.is_file() else None
        if old == text:
            continue
        if args.check:
            stale.append(str(target.relative_to(ROOT)))
        else:
            target.write_text(text)
            print(f"wrote {target.relative_to(ROOT)}")
    if stale:
        print("out of date (run python3 docgen/exercises.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    if args.check:
        print(f"{len(todos)} skeletons match their kernels")
    return 0


if __name__ == "__main__":
    sys.exit(main())
