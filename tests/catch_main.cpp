// Catch2 v2's main(), compiled once into clconv_test_main and linked by every
// test executable but the conformance suite (cmake/dependencies.cmake); v3
// brings its own (Catch2::Catch2WithMain).
#define CATCH_CONFIG_MAIN
#include "tests/catch.hpp"
