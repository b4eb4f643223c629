# Coursework mode (docs/coursework.md): CLCONV_KERNEL_STEP<N>=FILE makes the
# conformance cases of step N grade FILE instead of the embedded kernel.
# These tests prove the hook both ways on one small case per step: each
# skeleton in docs/exercises/ builds and fails the check, the real kernel
# passes through the same hook, and a missing file fails with its name.

set(_case "a constant image gives the weight sum")
set(_folders ${CLCONV_STEPS})
foreach(folder ${_folders})
  string(REGEX MATCH "^step([0-9]+)-" _ ${folder})
  set(_var CLCONV_KERNEL_STEP${CMAKE_MATCH_1})
  set(_skeleton ${PROJECT_SOURCE_DIR}/docs/exercises/${folder}.cl)
  if(NOT EXISTS ${_skeleton})
    continue()
  endif()
  # The grading line and a failed check, in either order (stderr and stdout);
  # a build error or a pass fails the test.
  add_test(NAME coursework_skeleton_fails_${folder}
           COMMAND conformance_tests "${folder}: ${_case}")
  set_tests_properties(coursework_skeleton_fails_${folder} PROPERTIES
    LABELS coursework TIMEOUT 120
    ENVIRONMENT "${_var}=${_skeleton}"
    PASS_REGULAR_EXPRESSION "grading [^\n]*exercises/${folder}\\.cl.*test cases: +1 \\| +1 failed;test cases: +1 \\| +1 failed.*grading [^\n]*exercises/${folder}\\.cl"
    FAIL_REGULAR_EXPRESSION "unexpected exception;All tests passed")
endforeach()

add_test(NAME coursework_hook_passes_real_kernel
         COMMAND conformance_tests "step3-local: ${_case}")
set_tests_properties(coursework_hook_passes_real_kernel PROPERTIES
  LABELS coursework TIMEOUT 120
  ENVIRONMENT "CLCONV_KERNEL_STEP3=${PROJECT_SOURCE_DIR}/step3-local/convolve.cl"
  PASS_REGULAR_EXPRESSION "grading [^\n]*step3-local/convolve\\.cl.*All tests passed;All tests passed.*grading [^\n]*step3-local/convolve\\.cl")

add_test(NAME coursework_missing_kernel_fails
         COMMAND conformance_tests "step3-local: ${_case}")
set_tests_properties(coursework_missing_kernel_fails PROPERTIES
  LABELS coursework TIMEOUT 120
  ENVIRONMENT "CLCONV_KERNEL_STEP3=no-such-dir/my-kernel.cl"
  PASS_REGULAR_EXPRESSION "CLCONV_KERNEL_STEP3=no-such-dir/my-kernel\\.cl: [^\n]*cannot open"
  FAIL_REGULAR_EXPRESSION "All tests passed")
