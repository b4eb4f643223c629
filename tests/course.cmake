# The course's own tools, each shown failing the way a student would meet it
# (docs/step1-naive.md, docs/coursework.md): a student's kernel reaches
# kernel_check and sweep, diff-steps.sh names a step that does not exist, and
# a page's command that selects no tests fails the pages' runner.
set(_skeleton ${PROJECT_SOURCE_DIR}/docs/exercises/step3-local.cl)

if(TARGET kernel_check)
  add_test(NAME course_kernel_check_uses_student_kernel
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/exit-status.sh $<TARGET_FILE:kernel_check> --step 3
                   --image synthetic:19x13:1 --filter random:3:1 --wg 8x8)
  set_tests_properties(course_kernel_check_uses_student_kernel PROPERTIES
    LABELS coursework TIMEOUT 120
    ENVIRONMENT "CLCONV_KERNEL_STEP3=${_skeleton}"
    PASS_REGULAR_EXPRESSION "checking [^\n]*exercises/step3-local\\.cl \\(CLCONV_KERNEL_STEP3\\)[^\n]*\n.*FAILED.*\nexit status 1\n$"
    FAIL_REGULAR_EXPRESSION "0 failed")
endif()

add_test(NAME course_sweep_times_student_kernel
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/exit-status.sh $<TARGET_FILE:sweep> --steps 3 --kernel ${_skeleton}
                 --images 40x33 --filters box:3 --reps 1)
set_tests_properties(course_sweep_times_student_kernel PROPERTIES
  LABELS coursework TIMEOUT 120
  PASS_REGULAR_EXPRESSION "WRONG result: step3-local default kernel=[^\n]*exercises/step3-local\\.cl.*\nexit status 1\n$")

add_test(NAME course_sweep_kernel_needs_one_step
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/exit-status.sh $<TARGET_FILE:sweep> --kernel ${_skeleton} --images 8x8)
set_tests_properties(course_sweep_kernel_needs_one_step PROPERTIES
  LABELS coursework TIMEOUT 60
  PASS_REGULAR_EXPRESSION "name the one step it replaces.*\nexit status 2\n$")

add_test(NAME course_diff_steps_refuses_a_missing_step
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/exit-status.sh ${PROJECT_SOURCE_DIR}/tools/diff-steps.sh 99)
set_tests_properties(course_diff_steps_refuses_a_missing_step PROPERTIES
  LABELS docs TIMEOUT 60
  PASS_REGULAR_EXPRESSION "there is no step 99.*\nexit status 2\n$")

if(Python3_Interpreter_FOUND)
  add_test(NAME course_page_command_selecting_nothing_fails
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/exit-status.sh ${Python3_EXECUTABLE}
                   ${PROJECT_SOURCE_DIR}/docgen/doc-commands.py --list-tests
                   ${CMAKE_CURRENT_SOURCE_DIR}/data/page-selecting-nothing.md)
  set_tests_properties(course_page_command_selecting_nothing_fails PROPERTIES
    LABELS docs TIMEOUT 120
    PASS_REGULAR_EXPRESSION "FAILED [^\n]*page-selecting-nothing\\.md:5[^\n]*\n.*selects no tests.*1 failed.*\nexit status 1\n$")
endif()

# A figure quoted in a sentence that disagrees with its CSV is rewritten (so
# --check fails on it), and one naming a row the CSV lacks is an error.
if(Python3_Interpreter_FOUND)
  add_test(NAME course_docs_catch_a_wrong_quoted_figure
           COMMAND ${Python3_EXECUTABLE} -c "
import sys; sys.path.insert(0, '${PROJECT_SOURCE_DIR}/docgen'); import docs
wrong = '<!-- value: speedup tour-h100 step1-naive step2-constant -->9.99<!-- end value -->'
right = docs.render_values(wrong)
assert right != wrong and '9.99' not in right, right
try:
    docs.render_values('<!-- value: speedup tour-h100 step1-naive no-such-step -->1<!-- end value -->')
except SystemExit as e:
    assert 'matches 0 rows' in str(e), e
else:
    raise AssertionError('a missing row passed')
print('caught')")
  set_tests_properties(course_docs_catch_a_wrong_quoted_figure PROPERTIES
    LABELS docs TIMEOUT 60 PASS_REGULAR_EXPRESSION "^caught")
endif()

# A kernel's signature is edited in one place: the skeleton generated from a
# kernel that gained an argument has it too, and differs from the committed one.
if(Python3_Interpreter_FOUND)
  add_test(NAME course_skeleton_follows_its_kernel
           COMMAND ${Python3_EXECUTABLE} -c "
import pathlib, sys, tempfile
root = pathlib.Path('${PROJECT_SOURCE_DIR}'); sys.path.insert(0, str(root / 'docgen')); import exercises
kernel = (root / 'step1-naive/convolve.cl').read_text()
changed = kernel.replace('const int filter_width)', 'const int filter_width, const int extra)')
assert changed != kernel, 'step 1 kernel no longer ends its signature with filter_width'
with tempfile.TemporaryDirectory() as d:
    path = pathlib.Path(d) / 'convolve.cl'
    path.write_text(changed)
    text = exercises.skeleton(path, root / 'docs/exercises/todo/step1-naive.txt')
committed = (root / 'docs/exercises/step1-naive.cl').read_text()
assert 'const int extra' in text and 'const int extra' not in committed, text
assert 'TODO' in text and 'sum +=' not in text, text
print('follows')")
  set_tests_properties(course_skeleton_follows_its_kernel PROPERTIES
    LABELS coursework TIMEOUT 60 PASS_REGULAR_EXPRESSION "^follows")
endif()

# diff-steps.sh shows every source file of the two steps (step 8's
# decompose.hpp, and no candidates/ folder's files by default), and the
# lessons that change the algorithm stay one idea: steps 8 and 10 under 500
# changed lines over every lesson file, step 8's kernel under 300 lines.
if(Python3_Interpreter_FOUND)
  add_test(NAME course_diff_steps_shows_every_file_and_stays_small
           COMMAND ${Python3_EXECUTABLE} -c "
import subprocess, sys
root = '${PROJECT_SOURCE_DIR}'
def diff(n, *extra):
    r = subprocess.run([root + '/tools/diff-steps.sh', str(n), *extra], capture_output=True, text=True, cwd=root)
    assert r.returncode in (0, 1), r.stderr
    return r.stdout, r.stderr
out, _ = diff(8)
assert '+++ step8-separable/decompose.hpp' in out, 'step 8 decompose.hpp missing'
for n, most in ((8, 500), (10, 500)):
    out, err = diff(n)
    changed = sum(1 for l in out.splitlines() if l[:1] in '+-' and l[:3] not in ('+++', '---'))
    assert 'candidates/' not in out, 'step %d: candidates in the lesson diff' % n
    print('step %d: %d changed lines' % (n, changed))
    assert changed < most, 'step %d: %d changed lines, over %d' % (n, changed, most)
    full, _ = diff(n, '--candidates')
    assert len(full) >= len(out)
lines = sum(1 for _ in open(root + '/step8-separable/convolve.cl'))
assert lines < 300, 'step8-separable/convolve.cl: %d lines, over 300' % lines
print('ok')")
  set_tests_properties(course_diff_steps_shows_every_file_and_stays_small PROPERTIES
    LABELS docs TIMEOUT 60 PASS_REGULAR_EXPRESSION "\nok")
endif()

# tools/tune tunes every tunable step and the histogram in one command, and
# stores each one's result where its later runs find it.
add_test(NAME course_tune_tunes_every_tunable_step
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/exit-status.sh $<TARGET_FILE:tune> --small --budget 2 --reps 1
                 --image synthetic:64x48 --histogram-image synthetic:64x64 --filters box:3)
set_tests_properties(course_tune_tunes_every_tunable_step PROPERTIES
  LABELS "tuner" TIMEOUT 300
  ENVIRONMENT "XDG_CACHE_HOME=${CMAKE_CURRENT_BINARY_DIR}/tune-cache-all"
  PASS_REGULAR_EXPRESSION "  step7-tuned F=3: [^\n]*\n  step8-separable F=3 box: [^\n]*\n  step10-fft-tiled F=3: [^\n]*\n  histogram pixels=4096: [^\n]*\nStored in [^\n]*tune-cache-all/clconv/tuned.txt.*\nexit status 0\n$")
add_test(NAME course_tune_refuses_an_unknown_step
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/exit-status.sh $<TARGET_FILE:tune> --steps 3)
set_tests_properties(course_tune_refuses_an_unknown_step PROPERTIES
  LABELS "tuner" TIMEOUT 60
  PASS_REGULAR_EXPRESSION "'3' is not a tunable step.*\nexit status 2\n$")

# tour --recommend runs the last step of each algorithm at its tuned winner
# or its defaults, names the fastest, and how to tune the steps not yet
# tuned for this filter (an empty store: all of them).
add_test(NAME course_tour_recommends_a_step
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/exit-status.sh $<TARGET_FILE:tour> --recommend --image synthetic:96x80
                 --filter box:5 --reps 2)
set_tests_properties(course_tour_recommends_a_step PROPERTIES
  LABELS "tuner" TIMEOUT 300
  ENVIRONMENT "XDG_CACHE_HOME=${CMAKE_CURRENT_BINARY_DIR}/tune-cache-recommend"
  PASS_REGULAR_EXPRESSION "\nUse step[0-9]+-[a-z-]+ for box:5 on this device \\([^\n]*documented defaults\\)\nNot tuned here[^\n]*\n  build/bin/step10-fft-tiled --tune --filters random:5\n  build/bin/step7-tuned --tune --filters random:5\n  build/bin/step8-separable --tune --filters box:5\n.*exit status 0\n$")
