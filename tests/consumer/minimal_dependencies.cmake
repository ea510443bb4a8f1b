# `cmake --preset dev` with only the library's own dependencies (fast_float, dragonbox):
# every optional package is hidden — GoogleTest, Google Benchmark, CLI11, the benchmark
# peers, zstd and libsodium (through pkg-config) — so configuring must still succeed, say what it skips, and what remains (the
# library, the examples, the seed studies with savekit's rows alone) must build and run.
file(REMOVE_RECURSE "${WORK_DIR}")
set(hidden "")
foreach(package GTest benchmark CLI11 RapidJSON nlohmann_json simdjson msgpack Boost PkgConfig)
  list(APPEND hidden -DCMAKE_DISABLE_FIND_PACKAGE_${package}=ON)
endforeach()
# Headers found by path alone (RapidJSON's and cereal's) are hidden with the system include
# folder; fast_float and dragonbox are still found through their CMake packages.
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR} -G ${GENERATOR} -DSAVEKIT_DEVELOPER_MODE=ON
                        -DCMAKE_BUILD_TYPE=Debug ${hidden} -DCMAKE_IGNORE_PATH=/usr/include
                OUTPUT_VARIABLE configure_output ERROR_VARIABLE configure_output COMMAND_ERROR_IS_FATAL ANY)
foreach(expected "the test suites are skipped" "command-line program is skipped" "codec_bench and store_bench are skipped"
                 "Benchmark peers not found" "sealed saves \\(savekit::seal\\) are skipped"
                 "savekit-server is skipped")
  if(NOT configure_output MATCHES "${expected}")
    message(FATAL_ERROR "configuring without optional packages did not say \"${expected}\":\n${configure_output}")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR} --target seed_studies example_quickstart
                COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${WORK_DIR}/bench/seed_studies --quick --out ${WORK_DIR}/studies.json
                ERROR_VARIABLE studies_output COMMAND_ERROR_IS_FATAL ANY)
if(NOT studies_output MATCHES "skipped: nlohmann/json")
  message(FATAL_ERROR "seed_studies did not report the peers it skipped:\n${studies_output}")
endif()
file(READ ${WORK_DIR}/studies.json results)
string(JSON skipped_count LENGTH "${results}" machine skipped)
if(skipped_count LESS 7)
  message(FATAL_ERROR "the results list ${skipped_count} skipped peers, expected all seven: ${results}")
endif()
execute_process(COMMAND ${WORK_DIR}/examples/example_quickstart COMMAND_ERROR_IS_FATAL ANY)
