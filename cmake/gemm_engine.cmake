# FAVORLAB_GEMM: what src/linalg/gemm.cpp multiplies float matrices with.
#   auto (default): oneDNN's sgemm when Debian's libdnnl-dev is found and the compiler is GCC (oneDNN's Debian build
#     runs on libgomp, GCC's OpenMP runtime; with another runtime its thread count would not follow favorlab's), Eigen
#     otherwise; onednn: oneDNN or a configure error; eigen: Eigen only (double always uses Eigen).
# One status line says which and why.
set(FAVORLAB_GEMM "auto" CACHE STRING "float GEMM engine: auto, onednn or eigen")
set_property(CACHE FAVORLAB_GEMM PROPERTY STRINGS auto onednn eigen)
if(NOT FAVORLAB_GEMM MATCHES "^(auto|onednn|eigen)$")
  message(FATAL_ERROR "FAVORLAB_GEMM=${FAVORLAB_GEMM}: use auto, onednn or eigen")
endif()
set(FAVORLAB_GEMM_ONEDNN OFF)
if(NOT FAVORLAB_GEMM STREQUAL "eigen")
  find_path(DNNL_INCLUDE_DIR dnnl.h)
  find_library(DNNL_LIBRARY dnnl)
  if(NOT DNNL_INCLUDE_DIR OR NOT DNNL_LIBRARY)
    set(why "oneDNN not found (Debian: apt-get install libdnnl-dev)")
  elseif(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    set(why "oneDNN's libgomp does not share ${CMAKE_CXX_COMPILER_ID}'s OpenMP runtime")
  else()
    set(FAVORLAB_GEMM_ONEDNN ON)
  endif()
  if(FAVORLAB_GEMM STREQUAL "onednn" AND NOT FAVORLAB_GEMM_ONEDNN)
    message(FATAL_ERROR "FAVORLAB_GEMM=onednn: ${why}")
  endif()
else()
  set(why "FAVORLAB_GEMM=eigen")
endif()
# The provenance of every result names the engine (src/results/result.cpp).
if(FAVORLAB_GEMM_ONEDNN)
  set(engine "oneDNN sgemm (float), Eigen (double)")
  target_link_libraries(favorlab_linalg PUBLIC ${DNNL_LIBRARY})
  target_include_directories(favorlab_linalg SYSTEM PRIVATE ${DNNL_INCLUDE_DIR})
  set_property(SOURCE ${CMAKE_SOURCE_DIR}/src/linalg/gemm.cpp APPEND PROPERTY COMPILE_DEFINITIONS
               FAVORLAB_HAVE_ONEDNN=1)
  message(STATUS "favorlab: float GEMMs through oneDNN's sgemm (${DNNL_LIBRARY}), double through Eigen")
else()
  set(engine "Eigen")
  message(STATUS "favorlab: GEMMs through Eigen (${why})")
endif()
set_property(SOURCE ${CMAKE_SOURCE_DIR}/src/results/result.cpp APPEND PROPERTY COMPILE_DEFINITIONS
             FAVORLAB_GEMM_ENGINE="${engine}")
