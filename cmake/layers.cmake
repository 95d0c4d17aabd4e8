# The library's layers: one static library per folder, each linking only the layers below it. A folder may include
# headers of its own layer and of the layers it reaches through DEPS, nothing else; favorlab_check_layers() enforces
# that at configure time, and the test layers_point_down re-checks it on every test run (an include added to an
# existing file does not re-run the configure step). Order, bottom up:
#   rng, io, linalg → runtime, stats → results → kernels → features → mc, perm → attention → evaluation, perf
#   → experiments → cli
# The attention engine (attention: exact, FAVOR, PermuteFormer, the backends) needs features (with linalg's GEMM),
# perm, runtime, io and rng only; what measures it (evaluation: errors, sweeps, reports, the capture manifest) adds mc,
# stats and results.
# with the claims ledger (ledger: the source of every claim, read by the command line) on stats and io alone.
if(CMAKE_SCRIPT_MODE_FILE)
  cmake_minimum_required(VERSION 3.25)  # script mode starts with old policies (IN_LIST needs CMP0057)
endif()
# "LAYER DIR DEPS..." — DIR is relative to the source tree; the library is favorlab_<LAYER>.
set(FAVORLAB_LAYERS
  "rng src/rng"
  "io src/io"
  "linalg src/linalg"
  "runtime src/runtime io"
  "stats src/stats io"
  "results src/results stats io"
  "kernels src/kernels"
  "features src/features kernels rng linalg"
  "mc src/mc features kernels rng stats runtime"
  "perm src/perm rng"
  "attention src/attention features perm runtime io rng"
  "evaluation src/evaluation attention mc results stats"
  "perf src/perf attention mc results"
  "ledger src/ledger stats io"
  "experiments experiments perf evaluation"
  "cli src/cli experiments ledger")

# Sets <layer>_DIR, <layer>_DEPS and <layer>_REACH (the layer itself and everything below it) in the caller's scope.
macro(favorlab_read_layers)
  set(FAVORLAB_LAYER_NAMES "")
  foreach(entry IN LISTS FAVORLAB_LAYERS)
    string(REPLACE " " ";" parts "${entry}")
    list(POP_FRONT parts layer dir)
    list(APPEND FAVORLAB_LAYER_NAMES ${layer})
    set(${layer}_DIR ${dir})
    set(${layer}_DEPS ${parts})
    set(reach ${layer})
    foreach(dep IN LISTS parts)
      if(NOT DEFINED ${dep}_REACH)
        message(FATAL_ERROR "layer ${layer}: its dependency '${dep}' must be listed before it")
      endif()
      list(APPEND reach ${${dep}_REACH})
    endforeach()
    list(REMOVE_DUPLICATES reach)
    set(${layer}_REACH ${reach})
  endforeach()
endmacro()

# Every #include "<folder>/…" of a layer's files must name a folder in its reach. Lists each offending line.
function(favorlab_check_layers source_dir)
  favorlab_read_layers()
  foreach(layer IN LISTS FAVORLAB_LAYER_NAMES)
    get_filename_component(leaf ${${layer}_DIR} NAME)
    set(layer_of_${leaf} ${layer})
  endforeach()
  set(bad "")
  foreach(layer IN LISTS FAVORLAB_LAYER_NAMES)
    file(GLOB files ${source_dir}/${${layer}_DIR}/*.cpp ${source_dir}/${${layer}_DIR}/*.hpp)
    foreach(file IN LISTS files)
      file(STRINGS ${file} includes REGEX "^#include \"[a-z_]+/")
      foreach(line IN LISTS includes)
        string(REGEX REPLACE "^#include \"([a-z_]+)/.*" "\\1" leaf "${line}")
        if(DEFINED layer_of_${leaf} AND NOT layer_of_${leaf} IN_LIST ${layer}_REACH)
          file(RELATIVE_PATH rel ${source_dir} ${file})
          string(REPLACE ";" ", " reach_text "${${layer}_REACH}")
          string(APPEND bad "\n  ${rel}: ${line} (layer ${layer} may include ${reach_text})")
        endif()
      endforeach()
    endforeach()
  endforeach()
  if(NOT bad STREQUAL "")
    message(FATAL_ERROR "an include points up the layers (cmake/layers.cmake):${bad}")
  endif()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE)  # cmake -DSOURCE_DIR=… -P cmake/layers.cmake: the check alone
  favorlab_check_layers(${SOURCE_DIR})
  message(STATUS "layers point down")
endif()
