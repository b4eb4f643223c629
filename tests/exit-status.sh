#!/bin/sh
# Runs a command, its stderr with its stdout, and prints its exit status last:
# "exit status N". For a ctest test that checks its output by
# PASS_REGULAR_EXPRESSION, which ignores the exit status: the expression
# ends in "exit status N" to check both.
"$@" 2>&1
echo "exit status $?"
