# The two helpers the folders' CMakeLists.txt files use.

# Every symbol clconv_embed defines, listed in the property CLCONV_SYMBOLS of
# this target: the grader's case runner (coursework/CMakeLists.txt) defines
# each as a withheld string instead, so that no reference kernel is inside
# the program a student's code runs in.
if(NOT TARGET clconv_embedded_symbols)
  add_custom_target(clconv_embedded_symbols)
endif()

# clconv_embed(<target> <symbol> <file.cl>): compile <file.cl> into <target> as
# the string conv::embedded::<symbol>, regenerated whenever the file changes.
function(clconv_embed target symbol file)
  set_property(TARGET clconv_embedded_symbols APPEND PROPERTY CLCONV_SYMBOLS ${symbol})
  get_filename_component(abs "${file}" ABSOLUTE)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/embedded_${symbol}.cpp")
  add_custom_command(
    OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -DINPUT=${abs} -DOUTPUT=${out} -DSYMBOL=${symbol}
            -P ${PROJECT_SOURCE_DIR}/cmake/embed_source.cmake
    DEPENDS "${abs}" ${PROJECT_SOURCE_DIR}/cmake/embed_source.cmake
    COMMENT "Embedding ${file}")
  target_sources(${target} PRIVATE "${out}")
endfunction()

# clconv_add_step(<folder> SOURCES <launcher.cpp> [<more.cpp>...]
#                          KERNEL <convolve.cl>)
# Called from <folder>/CMakeLists.txt. Builds the library <id>_lib (<id> is
# <folder> with '-' turned into '_': step3_local_lib) from SOURCES plus
# KERNEL embedded as conv::embedded::<id>_kernel (CLCONV_STEP_KERNEL in the
# library's sources, beside CLCONV_STEP_NAME), and the executable
# build/bin/<folder>. The launcher defines the step's factory, make_<id>().
# The executable's main() is generated from cmake/step_main.cpp.in: it
# hands make_<id>() to step_main(), which also runs the tuning mode of a
# step that is tunable (--tune: steps 7, 8 and 10). The tour, the sweeps
# and the tests link the library through clconv_steps (the top-level
# CMakeLists.txt).
function(clconv_add_step folder)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "KERNEL" "SOURCES")
  if(NOT arg_SOURCES OR NOT arg_KERNEL)
    message(FATAL_ERROR "clconv_add_step(${folder}): SOURCES and KERNEL are both needed")
  endif()
  string(MAKE_C_IDENTIFIER "${folder}" id)
  add_library(${id}_lib STATIC ${arg_SOURCES})
  target_link_libraries(${id}_lib PUBLIC clconv_common)
  clconv_embed(${id}_lib ${id}_kernel ${arg_KERNEL})
  # What a launcher would otherwise spell out itself, so that two adjacent
  # launchers differ only in what their steps do: the step's name and its
  # embedded kernel's symbol, from the folder's name.
  target_compile_definitions(${id}_lib PRIVATE CLCONV_STEP_NAME="${folder}"
                             CLCONV_STEP_KERNEL=${id}_kernel)
  set(factory make_${id})
  set(main "${CMAKE_BINARY_DIR}/generated/${folder}_main.cpp")
  configure_file("${PROJECT_SOURCE_DIR}/cmake/step_main.cpp.in" "${main}" @ONLY)
  add_executable(${folder} ${main})
  target_link_libraries(${folder} PRIVATE ${id}_lib)
endfunction()
