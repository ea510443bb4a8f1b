# What a user's project does: builds savekit, then configures, builds and runs a consumer
# project that uses find_package(savekit) — once against the build tree (savekit_DIR set to
# it, nothing installed), once against an install in a scratch prefix.
file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/savekit-build -G ${GENERATOR}
                        -DSAVEKIT_DEVELOPER_MODE=OFF -DCMAKE_INSTALL_PREFIX=${WORK_DIR}/prefix
                COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/savekit-build COMMAND_ERROR_IS_FATAL ANY)

function(build_and_run_consumer name)
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/consumer -B ${WORK_DIR}/${name} -G ${GENERATOR}
                          -DSAVEKIT_EXPECT_SEAL=${EXPECT_SEAL}
                          -DSAVEKIT_EXPECT_CLOUD=${EXPECT_CLOUD} ${ARGN} COMMAND_ERROR_IS_FATAL ANY)
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/${name} COMMAND_ERROR_IS_FATAL ANY)
  execute_process(COMMAND ${WORK_DIR}/${name}/consumer OUTPUT_VARIABLE output COMMAND_ERROR_IS_FATAL ANY)
  if(NOT output STREQUAL "{\"level\":3,\"name\":\"hero\"}\n")
    message(FATAL_ERROR "${name} printed: ${output}")
  endif()
  execute_process(COMMAND ${WORK_DIR}/${name}/consumer_c OUTPUT_VARIABLE output COMMAND_ERROR_IS_FATAL ANY)
  if(NOT output STREQUAL "{\"level\":3}\n")
    message(FATAL_ERROR "${name}'s consumer_c printed: ${output}")
  endif()
endfunction()

build_and_run_consumer(consumer-of-build-tree -Dsavekit_DIR=${WORK_DIR}/savekit-build)

execute_process(COMMAND ${CMAKE_COMMAND} --install ${WORK_DIR}/savekit-build COMMAND_ERROR_IS_FATAL ANY)
if(EXISTS ${WORK_DIR}/prefix/include/fast_float OR EXISTS ${WORK_DIR}/prefix/include/dragonbox)
  message(FATAL_ERROR "the install copied a dependency's headers")
endif()
build_and_run_consumer(consumer-of-install -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
