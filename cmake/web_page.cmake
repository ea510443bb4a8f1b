# savekit_web_page(target): an em++ program for a browser page (TARGET.js + TARGET.wasm),
# relinked when the IndexedDB backend's JavaScript half changes (CMake cannot see that
# dependency through --js-library by itself).
function(savekit_web_page target output_name)
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ${output_name} SUFFIX ".js"
                        LINK_DEPENDS ${PROJECT_SOURCE_DIR}/src/web/savekit_indexeddb.js)
  target_link_options(${target} PRIVATE -sENVIRONMENT=web -sALLOW_MEMORY_GROWTH=1)
endfunction()

# savekit_host_headers(out_var folder entries...): reaches header-only libraries of the host
# from an em++ build (each entry a header or a folder of headers, looked up as find_path
# does) through a build-tree folder holding only links to those entries, since em++ must
# never see -I/usr/include. Sets out_var to the folder, or to "" when an entry is missing.
function(savekit_host_headers out_var folder)
  set(shim ${CMAKE_CURRENT_BINARY_DIR}/${folder})
  file(MAKE_DIRECTORY ${shim})
  foreach(entry ${ARGN})
    string(MAKE_C_IDENTIFIER "SAVEKIT_HOST_HEADER_${entry}" found)
    find_path(${found} ${entry} PATHS ${SAVEKIT_HOST_INCLUDE_DIRS} NO_CMAKE_FIND_ROOT_PATH)
    if(NOT ${found})
      set(${out_var} "" PARENT_SCOPE)
      return()
    endif()
    file(CREATE_LINK ${${found}}/${entry} ${shim}/${entry} SYMBOLIC)
  endforeach()
  set(${out_var} ${shim} PARENT_SCOPE)
endfunction()
