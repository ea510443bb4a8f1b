# fast_float (libfast-float-dev) and dragonbox (libdragonbox-dev) are header-only.
# They are wrapped in savekit_* targets so that an em++ build never sees -I/usr/include,
# which would shadow Emscripten's own libc headers: fast_float is reached through a
# build-tree folder holding only a symlink to it.
find_path(SAVEKIT_FAST_FLOAT_DIR fast_float/fast_float.h PATHS /usr/include NO_CMAKE_FIND_ROOT_PATH REQUIRED)
find_path(SAVEKIT_DRAGONBOX_DIR dragonbox/dragonbox.h PATH_SUFFIXES dragonbox-1.1.3
          PATHS /usr/include NO_CMAKE_FIND_ROOT_PATH REQUIRED)

add_library(savekit_fast_float INTERFACE)
add_library(savekit_dragonbox INTERFACE)
if(EMSCRIPTEN)
  set(_savekit_shim "${PROJECT_BINARY_DIR}/savekit-deps")
  file(MAKE_DIRECTORY "${_savekit_shim}")
  file(CREATE_LINK "${SAVEKIT_FAST_FLOAT_DIR}/fast_float" "${_savekit_shim}/fast_float" SYMBOLIC)
  target_include_directories(savekit_fast_float SYSTEM INTERFACE $<BUILD_INTERFACE:${_savekit_shim}>)
else()
  target_include_directories(savekit_fast_float SYSTEM INTERFACE $<BUILD_INTERFACE:${SAVEKIT_FAST_FLOAT_DIR}>)
endif()
target_include_directories(savekit_dragonbox SYSTEM INTERFACE $<BUILD_INTERFACE:${SAVEKIT_DRAGONBOX_DIR}>)
