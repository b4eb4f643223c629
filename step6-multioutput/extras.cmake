# Step 6's filter bank and 3D volume (docs/step6-multioutput.md): a library
# with both kernels embedded, two executables, and their tests.
add_library(step6_extras STATIC ${CMAKE_CURRENT_LIST_DIR}/extras.cpp)
target_link_libraries(step6_extras PUBLIC step6_multioutput_lib clconv_common)
clconv_embed(step6_extras step6_bank_kernel ${CMAKE_CURRENT_LIST_DIR}/bank.cl)
clconv_embed(step6_extras step6_volume_kernel ${CMAKE_CURRENT_LIST_DIR}/volume.cl)

add_executable(step6-bank ${CMAKE_CURRENT_LIST_DIR}/bank_main.cpp)
target_link_libraries(step6-bank PRIVATE step6_extras)
add_executable(step6-volume ${CMAKE_CURRENT_LIST_DIR}/volume_main.cpp)
target_link_libraries(step6-volume PRIVATE step6_extras)

if(BUILD_TESTING)
  find_package(Catch2 2 REQUIRED)  # Debian: catch2 (v2)
  include(Catch)
  add_executable(step6_extras_tests ${PROJECT_SOURCE_DIR}/tests/step6_extras.cpp)
  target_link_libraries(step6_extras_tests PRIVATE step6_extras clconv_test_support Catch2::Catch2)
  add_dependencies(step6_extras_tests step6-bank step6-volume)
  catch_discover_tests(step6_extras_tests PROPERTIES LABELS "conformance-step6-multioutput-extras" TIMEOUT 600)
endif()
