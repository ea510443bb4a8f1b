include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS savekit savekit_core savekit_fast_float savekit_dragonbox EXPORT savekitTargets)
install(DIRECTORY include/savekit DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT savekitTargets NAMESPACE savekit:: DESTINATION ${CMAKE_INSTALL_DATADIR}/cmake/savekit)

configure_package_config_file(cmake/savekitConfig.cmake.in ${PROJECT_BINARY_DIR}/savekitConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_DATADIR}/cmake/savekit)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/savekitConfigVersion.cmake COMPATIBILITY SameMinorVersion
                                 ARCH_INDEPENDENT)
install(FILES ${PROJECT_BINARY_DIR}/savekitConfig.cmake ${PROJECT_BINARY_DIR}/savekitConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_DATADIR}/cmake/savekit)
if(EMSCRIPTEN)
  install(FILES src/web/savekit_indexeddb.js DESTINATION ${CMAKE_INSTALL_DATADIR}/savekit)
endif()
