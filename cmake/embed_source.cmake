# Turns a text file (an OpenCL kernel) into a C++ source that defines
#   extern const char* const <SYMBOL>;
# Called at build time: cmake -DINPUT=... -DOUTPUT=... -DSYMBOL=... -P embed_source.cmake
file(READ "${INPUT}" content)
# Raw string literal; the delimiter cannot appear in an OpenCL source by accident.
set(delim "CLCONV_EMBED")
string(FIND "${content}" ")${delim}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the embed delimiter )${delim}\"")
endif()
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${INPUT}; edit that file, not this one.\n"
  "namespace conv::embedded {\n"
  "extern const char* const ${SYMBOL};\n"
  "const char* const ${SYMBOL} = R\"${delim}(${content})${delim}\";\n"
  "}\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
