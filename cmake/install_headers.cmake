# Installs simgrad's C++ headers as <simgrad/core/...>, <simgrad/sims/...> and so on: each layer's
# headers go to <prefix>/include/simgrad/<layer>/, with their includes of one another rewritten
# from "core/x.hpp" to "simgrad/core/x.hpp". A consumer's include path then holds simgrad/ only,
# never a top-level core/ that would collide with an engine's own. The source tree keeps its short
# paths. Run by `cmake --install` with SIMGRAD_SOURCE_DIR, SIMGRAD_GENERATED_DIR and
# SIMGRAD_HEADER_DESTINATION set (CMakeLists.txt).
set(layers core tune sims report scenario)
set(headers)
foreach(layer ${layers})
  file(GLOB_RECURSE found RELATIVE ${SIMGRAD_SOURCE_DIR} ${SIMGRAD_SOURCE_DIR}/${layer}/*.hpp)
  list(APPEND headers ${found})
endforeach()
set(destination "$ENV{DESTDIR}${SIMGRAD_HEADER_DESTINATION}")
string(REPLACE ";" "|" layer_pattern "${layers}")
foreach(relative ${headers} report/version.hpp)
  if(relative STREQUAL "report/version.hpp")
    file(READ ${SIMGRAD_GENERATED_DIR}/${relative} text)
  else()
    file(READ ${SIMGRAD_SOURCE_DIR}/${relative} text)
  endif()
  string(REGEX REPLACE "#include \"(${layer_pattern})/" "#include \"simgrad/\\1/" text "${text}")
  get_filename_component(folder ${destination}/${relative} DIRECTORY)
  file(MAKE_DIRECTORY ${folder})
  file(WRITE ${destination}/${relative} "${text}")
endforeach()
list(LENGTH headers count)
math(EXPR count "${count} + 1")
message(STATUS "Installed ${count} C++ headers to ${destination}")
