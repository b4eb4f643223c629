#!/usr/bin/env python3
"""Runs every shell command the pages print as runnable, so that a command
that breaks, or selects nothing, fails the build.

    python3 docgen/doc-commands.py            run them all (from the repository root)
    python3 docgen/doc-commands.py --list     print them, with page and line
    python3 docgen/doc-commands.py docs/step3-local.md   one page's only

A runnable block is a fenced block whose info string is `sh runnable` (the
commands must exit 0) or `sh runnable-fails` (they show a failure on purpose:
the block must exit non-zero). The command in a lesson's header
(`**Run:** `...``, `**Diff:**`, `**Tests:**`) is runnable too. Each block runs as one bash script under
`set -euo pipefail`, from the repository root, with a time limit. Blocks
marked plain `sh` are shown, not run (a GPU, a photo of your own, an hour).

`ctest` in a block selects tests and must select at least one: the presets
say `noTestsAction: error`. With --list-tests (what CI passes: the whole
suite has already run in the same job) each ctest command is run with
`--show-only` added, so the selection is checked without running the tests
twice; a command that selects nothing still fails.

A block must leave the working tree as it found it: new untracked files
outside build/ fail it (write scratch files under $TMPDIR or build/).

What a block prints can be checked against what the page says of it. Right
after the closing fence, each line of the form

    <!-- expect: REGEX -->                  the output must match REGEX
    <!-- expect: REGEX in LO..HI -->        ... and its first group, a number,
                                            lie in [LO, HI]
    <!-- expect: REGEX / REGEX in LO..HI --> the ratio of the two numbers
                                            (first group of each) in [LO, HI]

is one check (Python regular expressions, searched in stdout and stderr
together, MULTILINE). The ranges state what the prose claims: direction and
order of magnitude, wide enough for a noisy 2-core machine. Checks are
skipped under --list-tests only for ctest blocks, which then list instead
of running.
"""
import argparse
import glob
import os
import re
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FENCE = re.compile(r"^```(\S*)(?:[ \t]+(\S+))?[ \t]*$")
HEADER = re.compile(r"\*\*(Run|Diff|Tests):\*\* `([^`]+)`")  # a lesson's header line
# Header commands not run here, and why (printed as skipped).
NOT_RUN = {"bash tests/reliability/ci.sh": "the reliability stages: CI runs them itself, right after"}


def pages():
    return [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))


EXPECT = re.compile(r"^<!-- expect: (.*?) -->$")
EXPECT_RANGE = re.compile(r"^(.*?) in (-?[0-9.eE+-]+)\.\.(-?[0-9.eE+-]+)$")


def expectations(page, lines, i):
    """The expect lines right after the fence that closes at lines[i]."""
    out = []
    j = i + 1
    while j < len(lines) and EXPECT.match(lines[j].strip()):
        spec = EXPECT.match(lines[j].strip()).group(1)
        m = EXPECT_RANGE.match(spec)
        try:
            if m:
                pats = [re.compile(p.strip(), re.M) for p in re.split(r" / ", m.group(1))]
                if len(pats) > 2:
                    raise re.error("at most two patterns (A / B)")
                out.append((spec, pats, float(m.group(2)), float(m.group(3))))
            else:
                out.append((spec, [re.compile(spec, re.M)], None, None))
        except (re.error, ValueError) as e:
            raise SystemExit("{}:{}: bad expect line ({})".format(os.path.relpath(page, ROOT), j + 1, e))
        j += 1
    return out


def check_expectations(output, expects):
    """What the output does not bear out, one line each."""
    problems = []
    for spec, pats, lo, hi in expects:
        found = [p.search(output) for p in pats]
        if not all(found):
            problems.append("expected /{}/ in the output".format(
                next(p.pattern for p, f in zip(pats, found) if not f)))
            continue
        if lo is None:
            continue
        try:
            nums = [float(f.group(1)) for f in found]
        except (IndexError, ValueError, TypeError):
            problems.append("expect '{}': a pattern's first group is not a number".format(spec))
            continue
        value = nums[0] / nums[1] if len(nums) == 2 and nums[1] != 0 else nums[0]
        if len(nums) == 2 and nums[1] == 0:
            problems.append("expect '{}': divides by 0".format(spec))
        elif not lo <= value <= hi:
            problems.append("expect '{}': got {:.4g}".format(spec, value))
    return problems


def blocks(page):
    """(line, marker, text, expectations) of each runnable block of one page."""
    out = []
    with open(page) as f:
        lines = f.read().split("\n")
    for n, line in enumerate(lines):
        for m in HEADER.finditer(line):
            out.append((n + 1, "skipped" if m.group(2) in NOT_RUN else "runnable", m.group(2) + "\n", []))
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i].strip())
        if m and m.group(1):
            start = i
            body = []
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                body.append(lines[i])
                i += 1
            marker = m.group(2) or ""
            if m.group(1) == "sh" and marker.startswith("runnable"):
                if marker not in ("runnable", "runnable-fails"):
                    raise SystemExit("{}:{}: unknown marker '{}' (runnable or runnable-fails)".format(
                        os.path.relpath(page, ROOT), start + 1, marker))
                out.append((start + 1, marker, "\n".join(body) + "\n", expectations(page, lines, i)))
        i += 1
    return sorted(out, key=lambda b: b[0])


# Sourced before each block in --list-tests mode: ctest lists what it selects
# instead of running it, and a selection of nothing fails.
CTEST_LIST_ONLY = r'''
ctest() {
  local out
  out=$(command ctest "$@" --show-only 2>&1) || { echo "$out" >&2; return 1; }
  echo "$out" | tail -n 1
  echo "$out" | grep -Eq '^Total Tests: [1-9]' || { echo "ctest $*: selects no tests" >&2; return 1; }
}
'''
# Otherwise ctest runs as printed, and "No tests were found" (exit 0 without
# a preset) fails the block all the same.
CTEST_CHECKED = r'''
ctest() {
  local log status=0
  log=$(mktemp)
  command ctest "$@" 2>&1 | tee "$log" || status=$?
  if grep -q 'No tests were found' "$log"; then
    echo "ctest $*: selects no tests" >&2
    status=1
  fi
  rm -f "$log"
  return $status
}
'''


def untracked():
    r = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=ROOT,
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None  # not a git checkout: the check is skipped
    return {line[3:] for line in r.stdout.splitlines() if line.startswith("??")
            and not line[3:].startswith(("build", "out/", "Testing/"))}


def run_block(page, line, marker, text, expects, args):
    where = "{}:{}".format(os.path.relpath(page, ROOT), line)
    script = "set -euo pipefail\n" + (CTEST_LIST_ONLY if args.list_tests else CTEST_CHECKED) + text
    if marker == "skipped":
        print("skip   {}: {} ({})".format(where, text.strip(), NOT_RUN[text.strip()]))
        return True
    before = untracked()
    start = time.time()
    # Its own process group, so that a block that runs out of time is ended
    # with everything it started.
    proc = subprocess.Popen(["bash", "-c", script], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=args.timeout)
        status = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        output, _ = proc.communicate()
        status, output = None, "timed out after {} s\n".format(args.timeout) + (output or "")
    took = time.time() - start
    after = untracked()
    problems = []
    if status is None:
        problems.append("did not finish in {} s".format(args.timeout))
    elif marker == "runnable" and status != 0:
        problems.append("exited {} (it should succeed)".format(status))
    elif marker == "runnable-fails" and status == 0:
        problems.append("exited 0 (the page shows it failing)")
    if status is not None and not (args.list_tests and re.search(r"^\s*ctest\b", text, re.M)):
        problems += check_expectations(output or "", expects)
    if before is not None and after is not None and after - before:
        problems.append("left files in the tree: " + ", ".join(sorted(after - before)))
    if problems:
        print("FAILED {} ({:.0f} s): {}".format(where, took, "; ".join(problems)))
        print("  " + text.strip().replace("\n", "\n  "))
        print("  --- output (last 40 lines) ---")
        print("  " + "\n  ".join(output.strip().split("\n")[-40:]))
        return False
    print("ok     {} ({:.0f} s{})".format(where, took, ", {} expect(s) held".format(len(expects)) if expects else ""))
    return True


def main():
    parser = argparse.ArgumentParser(description="Run the shell blocks the pages mark as runnable.")
    parser.add_argument("pages", nargs="*", help="pages to run (default: README.md and every page under docs/)")
    parser.add_argument("--list", action="store_true", help="print the blocks, do not run them")
    parser.add_argument("--list-tests", action="store_true",
                        help="ctest commands list their selection (--show-only) instead of running it")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per block (default 600)")
    args = parser.parse_args()
    chosen = [os.path.abspath(p) for p in args.pages] or pages()
    for p in chosen:
        if not os.path.isfile(p):
            print("doc-commands.py: no such page: " + p, file=sys.stderr)
            return 2
    if not args.list and not os.path.isdir(os.path.join(ROOT, "build", "bin")):
        print("doc-commands.py: build/bin does not exist: build first (cmake --preset default && "
              "cmake --build --preset default)", file=sys.stderr)
        return 2
    total, failed, start = 0, 0, time.time()
    for page in chosen:
        for line, marker, text, expects in blocks(page):
            total += 1
            if args.list:
                print("{}:{} [{}]\n  {}".format(os.path.relpath(page, ROOT), line, marker,
                                                text.strip().replace("\n", "\n  ")))
                for spec, _, _, _ in expects:
                    print("  expect: " + spec)
                continue
            failed += not run_block(page, line, marker, text, expects, args)
    if args.list:
        return 0
    if total == 0:
        print("doc-commands.py: no runnable blocks found", file=sys.stderr)
        return 1
    print("doc-commands.py: {} blocks, {} failed, {:.0f} s".format(total, failed, time.time() - start))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
