# savekit's two dependencies, both header-only: fast_float and dragonbox. Used by the build
# and by the installed or build-tree package (savekitConfig.cmake), so a consumer finds them
# the same way. Each is looked up through its own CMake package first (Debian, vcpkg, conan
# and Homebrew all ship one), then by its header, with Debian's paths as the last resort.
# Either way the result is the target the package itself defines: FastFloat::fast_float and
# dragonbox::dragonbox.
include_guard(GLOBAL)

# An em++ build must never see -I/usr/include (it would shadow Emscripten's own libc
# headers), and the host packages' targets point there. Under Emscripten fast_float is
# reached through a folder of the build tree holding only a link to its headers.
if(EMSCRIPTEN)
  # The Emscripten toolchain searches only its own sysroot: look in the host's folders.
  set(SAVEKIT_HOST_INCLUDE_DIRS /usr/local/include /usr/include
      CACHE STRING "Where an em++ build finds the host's header-only libraries")
  find_path(SAVEKIT_FAST_FLOAT_DIR fast_float/fast_float.h PATHS ${SAVEKIT_HOST_INCLUDE_DIRS} NO_CMAKE_FIND_ROOT_PATH
            REQUIRED)
  set(_savekit_shim "${CMAKE_BINARY_DIR}/savekit-deps")
  file(MAKE_DIRECTORY "${_savekit_shim}")
  file(CREATE_LINK "${SAVEKIT_FAST_FLOAT_DIR}/fast_float" "${_savekit_shim}/fast_float" SYMBOLIC)
  if(NOT TARGET FastFloat::fast_float)
    add_library(FastFloat::fast_float INTERFACE IMPORTED)
    set_target_properties(FastFloat::fast_float PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_savekit_shim}")
  endif()
  set(_savekit_dragonbox_hints "")
  foreach(_dir ${SAVEKIT_HOST_INCLUDE_DIRS})
    file(GLOB _found LIST_DIRECTORIES true ${_dir}/dragonbox-*)
    list(APPEND _savekit_dragonbox_hints ${_found})
  endforeach()
  find_path(SAVEKIT_DRAGONBOX_DIR dragonbox/dragonbox.h HINTS ${_savekit_dragonbox_hints} NO_CMAKE_FIND_ROOT_PATH
            REQUIRED)
  if(NOT TARGET dragonbox::dragonbox)
    add_library(dragonbox::dragonbox INTERFACE IMPORTED)
    set_target_properties(dragonbox::dragonbox PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${SAVEKIT_DRAGONBOX_DIR}")
  endif()
  return()
endif()

if(NOT TARGET FastFloat::fast_float)
  find_package(FastFloat CONFIG QUIET)
endif()
if(NOT TARGET FastFloat::fast_float)
  find_path(SAVEKIT_FAST_FLOAT_DIR fast_float/fast_float.h REQUIRED)
  add_library(FastFloat::fast_float INTERFACE IMPORTED)
  set_target_properties(FastFloat::fast_float PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${SAVEKIT_FAST_FLOAT_DIR}")
endif()

if(NOT TARGET dragonbox::dragonbox)
  find_package(dragonbox CONFIG QUIET)
endif()
if(NOT TARGET dragonbox::dragonbox)
  # Debian and dragonbox's own install put the headers in a versioned folder.
  file(GLOB _savekit_dragonbox_hints LIST_DIRECTORIES true /usr/include/dragonbox-* /usr/local/include/dragonbox-*)
  find_path(SAVEKIT_DRAGONBOX_DIR dragonbox/dragonbox.h HINTS ${_savekit_dragonbox_hints} REQUIRED)
  add_library(dragonbox::dragonbox INTERFACE IMPORTED)
  set_target_properties(dragonbox::dragonbox PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${SAVEKIT_DRAGONBOX_DIR}")
endif()
