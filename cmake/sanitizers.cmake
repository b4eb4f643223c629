# Sanitizer builds (docs/reliability.md). The "asan" and "fuzz" presets include
# this file right after project() through CMAKE_PROJECT_INCLUDE, so the
# top-level CMakeLists.txt stays the same for every build.
#   CLCONV_SANITIZE=address,undefined  host code under ASan and UBSan
#   CLCONV_SANITIZE=fuzzer             the same plus libFuzzer coverage (clang)
set(CLCONV_SANITIZE "" CACHE STRING "Sanitizers for host code: address,undefined or fuzzer")
if(CLCONV_SANITIZE STREQUAL "")
  return()
endif()

set(sanitize "address,undefined")
if(CLCONV_SANITIZE STREQUAL "fuzzer")
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "CLCONV_SANITIZE=fuzzer needs clang++ (Debian: clang, libclang-rt-14-dev)")
  endif()
  # Coverage for everything; only the fuzz targets link libFuzzer's main().
  add_compile_options(-fsanitize=fuzzer-no-link)
elseif(NOT CLCONV_SANITIZE STREQUAL "address,undefined")
  message(FATAL_ERROR "CLCONV_SANITIZE must be address,undefined or fuzzer, not '${CLCONV_SANITIZE}'")
endif()

# No recovery: undefined behaviour must fail the test that hits it, not scroll
# by. Except three checks, which the presets make fatal at run time instead
# (UBSAN_OPTIONS=halt_on_error=1), so that known reports inside stb can be
# suppressed, each by function name (tests/reliability/ubsan.supp):
#   shift-base         stb_image_write's JPEG encoder, which only the tests use;
#   shift-exponent     stb_image's JPEG bit reader on corrupt entropy-coded
#                      data (a shift by 32 or more into its bit buffer);
#   nonnull-attribute  stb_image's memcpy of zero bytes into a PNG's image
#                      data before any was allocated (an empty first IDAT).
add_compile_options(-fsanitize=${sanitize} -fno-sanitize-recover=undefined
                    -fsanitize-recover=shift-base,shift-exponent,nonnull-attribute
                    -fno-omit-frame-pointer)
add_link_options(-fsanitize=${sanitize})
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  # GCC's own advice: its uninitialized-use warnings are unreliable under ASan.
  add_compile_options(-Wno-maybe-uninitialized)
endif()

message(STATUS "clconv: host code built with -fsanitize=${sanitize} (${CLCONV_SANITIZE})")
