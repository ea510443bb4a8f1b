include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(_savekit_config_dir ${CMAKE_INSTALL_LIBDIR}/cmake/savekit)

# The installed package: headers, the static library and its config files. The version
# file is architecture-specific because the package ships a compiled library.
install(TARGETS savekit savekit_core EXPORT savekitTargets)
install(DIRECTORY include/savekit DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT savekitTargets NAMESPACE savekit:: DESTINATION ${_savekit_config_dir})

configure_package_config_file(cmake/savekitConfig.cmake.in ${PROJECT_BINARY_DIR}/savekitConfig.cmake
                              INSTALL_DESTINATION ${_savekit_config_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/savekitConfigVersion.cmake COMPATIBILITY SameMinorVersion)
configure_file(cmake/savekitDependencies.cmake ${PROJECT_BINARY_DIR}/savekitDependencies.cmake COPYONLY)
install(FILES ${PROJECT_BINARY_DIR}/savekitConfig.cmake ${PROJECT_BINARY_DIR}/savekitConfigVersion.cmake
              ${PROJECT_BINARY_DIR}/savekitDependencies.cmake
        DESTINATION ${_savekit_config_dir})
if(EMSCRIPTEN)
  install(FILES src/web/savekit_indexeddb.js DESTINATION ${CMAKE_INSTALL_DATADIR}/savekit)
endif()

# The build tree as a package too: find_package(savekit) with savekit_DIR set to this build
# folder uses the library just built, without installing it.
export(EXPORT savekitTargets NAMESPACE savekit:: FILE ${PROJECT_BINARY_DIR}/savekitTargets.cmake)
