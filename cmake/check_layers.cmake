# Fails when an #include points the wrong way between layers or simulators: core/ sees only
# core/; tune/ sees core/ and tune/; a simulator sees core/, tune/, itself and the simulators it
# is declared to be built on (SIMGRAD_BUILT_ON_<sim> in CMakeLists.txt); report/ sees those and
# every simulator; scenario/ sees report/ too; dist/ (MPI) sees core/ and tune/; only the command line (app/) sees app/. Run by the build (target `layering`) as
#   cmake -DSOURCE_DIR=... -DSIMULATORS=a,b -DBUILT_ON_<sim>=x,y -P cmake/check_layers.cmake
set(violations "")
string(REPLACE "," ";" SIMULATORS "${SIMULATORS}")

# Appends to `violations` every include in `files` of a project folder not in `allowed`.
function(check_includes files allowed)
  foreach(file ${files})
    file(STRINGS ${file} lines REGEX "^[ \t]*#[ \t]*include[ \t]+\"")
    foreach(line ${lines})
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]+\"([^\"]+)\".*" "\\1" target "${line}")
      # Only the project's own folders are layered; system and generated headers pass.
      if(NOT target MATCHES "^(core|tune|sims|report|scenario|dist|app)/")
        continue()
      endif()
      string(REGEX MATCH "^(core|tune|report|scenario|dist|app)/|^sims/[a-z_]+/" folder "${target}")
      list(FIND allowed "${folder}" at)
      if(at EQUAL -1)
        file(RELATIVE_PATH relative ${SOURCE_DIR} ${file})
        set(violations "${violations}\n  ${relative} includes ${target}")
      endif()
    endforeach()
  endforeach()
  set(violations "${violations}" PARENT_SCOPE)
endfunction()

file(GLOB core_files ${SOURCE_DIR}/core/*.hpp ${SOURCE_DIR}/core/*.cpp)
check_includes("${core_files}" "core/")
file(GLOB tune_files ${SOURCE_DIR}/tune/*.hpp ${SOURCE_DIR}/tune/*.cpp)
check_includes("${tune_files}" "core/;tune/")
foreach(sim ${SIMULATORS})
  set(allowed "core/;tune/;sims/${sim}/")
  string(REPLACE "," ";" built_on "${BUILT_ON_${sim}}")
  foreach(base ${built_on})
    list(APPEND allowed "sims/${base}/")
  endforeach()
  file(GLOB sim_files ${SOURCE_DIR}/sims/${sim}/*.hpp ${SOURCE_DIR}/sims/${sim}/*.cpp)
  check_includes("${sim_files}" "${allowed}")
endforeach()

set(all_sims "")
foreach(sim ${SIMULATORS})
  list(APPEND all_sims "sims/${sim}/")
endforeach()
file(GLOB report_files ${SOURCE_DIR}/report/*.hpp ${SOURCE_DIR}/report/*.cpp)
check_includes("${report_files}" "core/;tune/;${all_sims};report/")
file(GLOB scenario_files ${SOURCE_DIR}/scenario/*.hpp ${SOURCE_DIR}/scenario/*.cpp)
check_includes("${scenario_files}" "core/;tune/;${all_sims};report/;scenario/")
file(GLOB dist_files ${SOURCE_DIR}/dist/*.hpp ${SOURCE_DIR}/dist/*.cpp)
check_includes("${dist_files}" "core/;tune/;dist/")

if(violations)
  message(FATAL_ERROR "includes that point the wrong way between layers:${violations}\n"
                      "A simulator may include what CMakeLists.txt says it is built on (SIMGRAD_BUILT_ON_<sim>).")
endif()
