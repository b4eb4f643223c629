# The tests live in build/, not here: a bare `ctest` in the repository root
# would find none and exit 0, which reads like a pass. This file makes it
# fail with the command to use instead (the preset also fails when a label
# selects nothing).
message(FATAL_ERROR "no tests here: run `ctest --preset default` (add -L LABEL for some), or ctest in build/")
