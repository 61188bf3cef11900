# Enforces the layering of docs/architecture.md: a layer's headers and sources may include
# only their own layer and the layers below. Runs at configure time; cheap.
set(ROAM_LAYERS machine sched msg obj coll flow)
function(roam_check_layers)
  set(_allowed "")
  foreach(layer IN LISTS ROAM_LAYERS)
    list(APPEND _allowed ${layer})
    file(GLOB_RECURSE _files
      ${PROJECT_SOURCE_DIR}/include/roam/${layer}/*.hpp
      ${PROJECT_SOURCE_DIR}/src/${layer}/*.hpp
      ${PROJECT_SOURCE_DIR}/src/${layer}/*.cpp)
    foreach(f IN LISTS _files)
      file(STRINGS ${f} _incs REGEX "^#include [<\"](roam/)?(machine|sched|msg|obj|coll|flow|lb|ft|trace|libs)/")
      foreach(inc IN LISTS _incs)
        string(REGEX REPLACE "^#include [<\"](roam/)?([a-z]+)/.*" "\\2" _to "${inc}")
        if(NOT _to IN_LIST _allowed)
          message(FATAL_ERROR "layering: ${f} (layer ${layer}) includes higher layer '${_to}': ${inc}")
        endif()
      endforeach()
    endforeach()
  endforeach()
endfunction()
roam_check_layers()
