#!/usr/bin/env python3
"""Tell LeakSanitizer's own crashes apart from the failures it exists to find.

LeakSanitizer stops every thread of a process at exit to scan its memory.
Its stop-the-world "tracer" sometimes segfaults while doing so (a known,
intermittent sanitizer-runtime fault: google/sanitizers#1353), or cannot
attach to a thread that is exiting (then it prints no signal, only the
fatal error and "HINT: LeakSanitizer does not work under ptrace"), and the
test then fails with

    Tracer caught signal 11: addr=0x... pc=0x... sp=0x...
    ==N==LeakSanitizer has encountered a fatal error.

after its own checks have all passed. That is no finding about our code, and
a rerun passes; a real leak, memory error or undefined behaviour fails the
same way every time.

Usage: tracer_crashes.py LastTest.log
  The failed tests are the ones LastTestsFailed.log (beside it) names; a
  test that passes by its PASS_REGULAR_EXPRESSION may print "FAILED:" on
  purpose. Exit 0 and list the failed tests when every one of them failed
  only this way (the caller then reruns them, up to three times); exit 1 otherwise, naming
  the first failure that was something else.
Usage: tracer_crashes.py --self-check
  Classify built-in sample logs; exit 1 if any is classified wrongly.
"""
import os
import re
import sys

TRACER = "Tracer caught signal"
FATAL = "LeakSanitizer has encountered a fatal error"
# The other way the stop-the-world step fails: it could not attach to every
# thread (one exiting while it attached, under load). LeakSanitizer then
# gives up with FATAL and this hint, no tracer signal.
PTRACE = "LeakSanitizer does not work under ptrace"
# Any of these in a test's output is a real finding, whatever else it says.
FINDINGS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:",
            "FAILED:", "test cases failed", "assertions failed")


def failed_tests(log, failed_names=None):
    """(name, output) for every failed test: those in failed_names, or else
    those the log does not record as passed."""
    tests = []
    pattern = re.compile(r"^\d+/\d+ Test: (.*)$", re.M)
    starts = list(pattern.finditer(log))
    for i, match in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(log)
        block = log[match.start():end]
        if failed_names is not None:
            if match.group(1) not in failed_names:
                continue
        elif "\nTest Passed." in block or "\nTest Pass Reason:" in block:
            continue
        output = block.split("\nOutput:\n", 1)[-1].split("<end of output>", 1)[0]
        tests.append((match.group(1), output))
    return tests


def classify(log, failed_names=None):
    """(only_tracer_crashes, message)"""
    tests = failed_tests(log, failed_names)
    if not tests:
        return False, "no failed test in the log"
    for name, output in tests:
        finding = next((f for f in FINDINGS if f in output), None)
        if finding:
            return False, f"'{name}' failed with a finding ('{finding}')"
        if FATAL not in output or (TRACER not in output and PTRACE not in output):
            return False, f"'{name}' failed, and not by LeakSanitizer's tracer crashing"
    return True, "\n".join(f"  {name}" for name, _ in tests)


SAMPLE_BLOCK = """{i}/9 Testing: {name}
{i}/9 Test: {name}
Command: "/bin/x"
Output:
----------------------------------------------------------
{output}
<end of output>
Test time =   0.65 sec
----------------------------------------------------------
Test {result}.
"""
CRASH = ("All tests passed (14 assertions in 1 test case)\n\n"
         "Tracer caught signal 11: addr=0xd38 pc=0x7fd14b4e80f0 sp=0x7fd12faabd10\n"
         "==9196==LeakSanitizer has encountered a fatal error.")
ATTACH = ("All tests passed (3 assertions in 1 test case)\n\n"
          "==31688==LeakSanitizer has encountered a fatal error.\n"
          "==31688==HINT: For debugging, try setting environment variable LSAN_OPTIONS=verbosity=1:log_threads=1\n"
          "==31688==HINT: LeakSanitizer does not work under ptrace (strace, gdb, etc)")
LEAK = "==77==ERROR: LeakSanitizer: detected memory leaks\nDirect leak of 8 byte(s)"
CATCH = ("FAILED:\n  REQUIRE( x == y )\n" + CRASH)


def sample(*tests):
    return "".join(SAMPLE_BLOCK.format(i=i + 1, name=n, output=o, result=r)
                   for i, (n, o, r) in enumerate(tests))


def self_check():
    cases = [
        (sample(("a", CRASH, "Failed"), ("b", "ok", "Passed")), True),
        (sample(("a", CRASH, "Failed"), ("b", CRASH, "Failed")), True),
        (sample(("a", CRASH, "Failed"), ("b", LEAK, "Failed")), False),
        (sample(("a", CATCH, "Failed")), False),
        (sample(("a", "Segmentation fault", "Failed")), False),
        (sample(("a", TRACER + " 11", "Failed")), False),
        (sample(("a", ATTACH, "Failed"), ("b", CRASH, "Failed")), True),
        (sample(("a", PTRACE, "Failed")), False),
        (sample(("a", LEAK + "\n" + ATTACH, "Failed")), False),
        (sample(("a", CRASH, "Passed")), False),
        # a test that passes by its regex, with "FAILED:" in its output
        (sample(("a", CRASH, "Failed"), ("b", CATCH, "Pass Reason:\nRequired regular expression found")), True),
    ]
    named = [  # the failed tests as LastTestsFailed.log names them
        (sample(("a", CRASH, "Failed"), ("b", CATCH, "Failed")), {"a"}, True),
        (sample(("a", CRASH, "Failed"), ("b", CATCH, "Failed")), {"a", "b"}, False),
        (sample(("a", CRASH, "Failed")), set(), False),
    ]
    wrong = [i for i, (log, want) in enumerate(cases) if classify(log)[0] != want]
    wrong += [len(cases) + i for i, (log, names, want) in enumerate(named) if classify(log, names)[0] != want]
    cases += named
    if wrong:
        print(f"tracer_crashes: sample logs {wrong} classified wrongly", file=sys.stderr)
        return 1
    print(f"tracer_crashes: {len(cases)} sample logs classified correctly")
    return 0


def main(argv):
    if argv[1:] == ["--self-check"]:
        return self_check()
    if len(argv) != 2:
        print("usage: tracer_crashes.py LastTest.log | --self-check", file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding="utf-8", errors="replace") as f:
            log = f.read()
    except OSError as e:
        print(f"tracer_crashes: {argv[1]}: {e.strerror}", file=sys.stderr)
        return 2
    failed_names = None
    listed = os.path.join(os.path.dirname(argv[1]), "LastTestsFailed.log")
    if os.path.exists(listed):
        with open(listed, encoding="utf-8", errors="replace") as f:  # "N:name" per line
            failed_names = {line.rstrip("\n").split(":", 1)[1] for line in f if ":" in line}
    only, message = classify(log, failed_names)
    if only:
        print("LeakSanitizer's tracer crashed (no finding) in:\n" + message)
        return 0
    print(f"tracer_crashes: {message}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
