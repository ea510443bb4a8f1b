# savekit_web_page(target): an em++ program for a browser page (TARGET.js + TARGET.wasm),
# relinked when the IndexedDB backend's JavaScript half changes (CMake cannot see that
# dependency through --js-library by itself).
function(savekit_web_page target output_name)
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ${output_name} SUFFIX ".js"
                        LINK_DEPENDS ${PROJECT_SOURCE_DIR}/src/web/savekit_indexeddb.js)
  target_link_options(${target} PRIVATE -sENVIRONMENT=web -sALLOW_MEMORY_GROWTH=1)
endfunction()
