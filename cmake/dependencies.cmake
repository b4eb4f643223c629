# Third-party code. Each dependency is looked for on the system first (a
# package manager's copy: apt, dnf, brew, vcpkg), else fetched at a pinned
# version with FetchContent, as the Khronos OpenCL SDK does.
#   -DCLCONV_FETCH_DEPS=ON             fetch every one, whatever the system has
#   -DFETCHCONTENT_SOURCE_DIR_CLI11=/path/to/CLI11   (and _CATCH2, _STB,
#      _VKFFT, _OPENCL_CLHPP): use a local copy instead of downloading, for
#      a lab without internet (README, "Set-up per platform")
# What it defines for the rest of the build:
#   OpenCL::OpenCL      the ICD loader and the C headers (always the system's:
#                       a GPU driver or the OS installs the loader)
#   CLI11::CLI11        the command-line parser (header-only)
#   CLHPP_INCLUDE_DIR   holds CL/opencl.hpp, the C++ bindings
#   STB_INCLUDE_DIR     holds stb_image.h (Debian's stb/ folder or the flat one)
#   VKFFT_INCLUDE_DIR   holds vkFFT.h (step 9's FFT library, header-only)
#   clconv_catch2       Catch2 v2 or v3 for the tests (tests/catch.hpp hides
#                       the difference); only with BUILD_TESTING
include(FetchContent)
if(POLICY CMP0169)  # CMake 3.30+: FetchContent_Populate for sources we do not build
  cmake_policy(SET CMP0169 OLD)
endif()
option(CLCONV_FETCH_DEPS "Fetch every dependency at its pinned version instead of looking on the system" OFF)

# Fetches a header-only dependency's source (no build of its own) into
# <name>_SOURCE_DIR; FETCHCONTENT_SOURCE_DIR_<NAME> points at a local copy.
# A tag is cloned shallow; a commit hash (stb has no releases) is not.
macro(clconv_fetch_source name repository tag)
  if("${tag}" MATCHES "^[0-9a-f]+$")
    FetchContent_Declare(${name} GIT_REPOSITORY ${repository} GIT_TAG ${tag})
  else()
    FetchContent_Declare(${name} GIT_REPOSITORY ${repository} GIT_TAG ${tag} GIT_SHALLOW TRUE)
  endif()
  FetchContent_GetProperties(${name})
  if(NOT ${name}_POPULATED)
    string(TOUPPER "${name}" upper)
    if(FETCHCONTENT_SOURCE_DIR_${upper})
      message(STATUS "clconv: ${name} from the local copy ${FETCHCONTENT_SOURCE_DIR_${upper}} (meant to be ${tag})")
    else()
      message(STATUS "clconv: fetching ${name} ${tag} (not found on this system, or CLCONV_FETCH_DEPS)")
    endif()
    FetchContent_Populate(${name})
  endif()
endmacro()

find_package(OpenCL REQUIRED)  # Debian: ocl-icd-opencl-dev opencl-c-headers; vcpkg: opencl

# CLI11 (Debian: libcli11-dev)
if(NOT CLCONV_FETCH_DEPS)
  find_package(CLI11 CONFIG QUIET)
endif()
if(NOT TARGET CLI11::CLI11)
  clconv_fetch_source(cli11 https://github.com/CLIUtils/CLI11.git v2.3.2)
  add_library(CLI11::CLI11 INTERFACE IMPORTED)
  target_include_directories(CLI11::CLI11 INTERFACE "${cli11_SOURCE_DIR}/include")
endif()

# The OpenCL C++ bindings (Debian: opencl-clhpp-headers)
if(NOT CLCONV_FETCH_DEPS)
  find_path(CLHPP_INCLUDE_DIR CL/opencl.hpp)
endif()
if(NOT CLHPP_INCLUDE_DIR)
  clconv_fetch_source(opencl_clhpp https://github.com/KhronosGroup/OpenCL-CLHPP.git v2023.02.06)
  set(CLHPP_INCLUDE_DIR "${opencl_clhpp_SOURCE_DIR}/include" CACHE PATH "Folder with CL/opencl.hpp" FORCE)
endif()

# stb_image (Debian: libstb-dev, in include/stb/; vcpkg and the upstream
# repository: flat). The code includes <stb_image.h> from this folder.
if(STB_INCLUDE_DIR AND NOT EXISTS "${STB_INCLUDE_DIR}/stb_image.h")
  unset(STB_INCLUDE_DIR CACHE)  # a build folder configured when this held stb/
endif()
if(NOT CLCONV_FETCH_DEPS)
  find_path(STB_INCLUDE_DIR stb_image.h PATH_SUFFIXES stb)
endif()
if(NOT STB_INCLUDE_DIR)
  clconv_fetch_source(stb https://github.com/nothings/stb.git 8b5f1f37b5b75829fc72d38e7b5d4bcbf8a26d55)
  set(STB_INCLUDE_DIR "${stb_SOURCE_DIR}" CACHE PATH "Folder with stb_image.h" FORCE)
endif()

# VkFFT (Debian: libvkfft-dev, vkFFT.h in include/; the repository: vkFFT/)
if(NOT CLCONV_FETCH_DEPS)
  find_path(VKFFT_INCLUDE_DIR vkFFT.h PATH_SUFFIXES vkFFT VkFFT)
endif()
if(NOT VKFFT_INCLUDE_DIR)
  clconv_fetch_source(vkfft https://github.com/DTolm/VkFFT.git v1.2.26)
  set(VKFFT_INCLUDE_DIR "${vkfft_SOURCE_DIR}/vkFFT" CACHE PATH "Folder with vkFFT.h" FORCE)
endif()

# Catch2, v3 (Ubuntu 24.04, Homebrew, vcpkg) or v2 (Debian 12: catch2)
if(BUILD_TESTING)
  if(NOT CLCONV_FETCH_DEPS)
    find_package(Catch2 3 CONFIG QUIET)
    if(NOT Catch2_FOUND)
      find_package(Catch2 2 CONFIG QUIET)
    endif()
  endif()
  add_library(clconv_catch2 INTERFACE)
  if(Catch2_FOUND)
    string(REGEX MATCH "^[0-9]+" CLCONV_CATCH2_MAJOR "${Catch2_VERSION}")
    target_link_libraries(clconv_catch2 INTERFACE Catch2::Catch2)
    list(APPEND CMAKE_MODULE_PATH "${Catch2_DIR}")  # Catch.cmake: catch_discover_tests
  else()
    clconv_fetch_source(catch2 https://github.com/catchorg/Catch2.git v2.13.10)
    set(CLCONV_CATCH2_MAJOR 2)
    target_include_directories(clconv_catch2 SYSTEM INTERFACE "${catch2_SOURCE_DIR}/single_include")
    list(APPEND CMAKE_MODULE_PATH "${catch2_SOURCE_DIR}/contrib")
  endif()
  target_compile_definitions(clconv_catch2 INTERFACE CLCONV_CATCH2_MAJOR=${CLCONV_CATCH2_MAJOR})
  # A test program's cases, each a ctest test run by its name. A name the
  # program does not match (a ';' in it splits it in two, matching nothing)
  # must fail rather than pass with "No tests ran": --warn NoTests. A case
  # that cannot run here says WARN("SKIPPED: why") and returns: ctest
  # reports it as skipped, not passed.
  function(clconv_discover_tests target)
    include(Catch)
    cmake_parse_arguments(ARG "" "" "PROPERTIES" ${ARGN})
    catch_discover_tests(${target} ${ARG_UNPARSED_ARGUMENTS} EXTRA_ARGS --warn NoTests
                         PROPERTIES ${ARG_PROPERTIES} SKIP_REGULAR_EXPRESSION "SKIPPED: ")
  endfunction()
  # One test main, compiled once, for every test executable but the
  # conformance suite (which registers its cases itself and has its own).
  if(CLCONV_CATCH2_MAJOR GREATER_EQUAL 3)
    add_library(clconv_test_main INTERFACE)
    target_link_libraries(clconv_test_main INTERFACE clconv_catch2 Catch2::Catch2WithMain)
  else()
    add_library(clconv_test_main STATIC "${PROJECT_SOURCE_DIR}/tests/catch_main.cpp")
    target_include_directories(clconv_test_main PRIVATE "${PROJECT_SOURCE_DIR}")
    target_link_libraries(clconv_test_main PUBLIC clconv_catch2)
  endif()
  message(STATUS "clconv: Catch2 v${CLCONV_CATCH2_MAJOR} for the tests")
endif()
