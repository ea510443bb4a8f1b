include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(_savekit_config_dir ${CMAKE_INSTALL_LIBDIR}/cmake/savekit)

# The installed package: headers, the static library and its config files. The version
# file is architecture-specific because the package ships a compiled library.
install(TARGETS savekit savekit_core EXPORT savekitTargets)
# Sealed saves (savekit::seal), where they were built natively: with the two interface
# targets that name libzstd and libsodium, which the package's config finds again with
# pkg-config (savekitConfig.cmake.in). (A WebAssembly build's zstd and libsodium live in a
# build folder of this tree: not installed.)
set(SAVEKIT_PACKAGE_HAS_SEAL OFF)
if(TARGET savekit_seal AND NOT EMSCRIPTEN)
  set(SAVEKIT_PACKAGE_HAS_SEAL ON)
  set_target_properties(savekit_zstd_dep PROPERTIES EXPORT_NAME zstd_dep)
  set_target_properties(savekit_sodium_dep PROPERTIES EXPORT_NAME sodium_dep)
  install(TARGETS savekit_seal savekit_zstd_dep savekit_sodium_dep EXPORT savekitTargets)
endif()
# Cloud sync (savekit::cloud), where it was built: the package's config finds libcurl again.
set(SAVEKIT_PACKAGE_HAS_CLOUD OFF)
if(TARGET savekit_cloud)
  set(SAVEKIT_PACKAGE_HAS_CLOUD ON)
  install(TARGETS savekit_cloud EXPORT savekitTargets)
endif()
# The C ABI (savekit/savekit.h): savekit::c, the shared library the bindings load, and
# savekit::c_static.
if(TARGET savekit_c)
  install(TARGETS savekit_c savekit_c_static EXPORT savekitTargets)
endif()
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
