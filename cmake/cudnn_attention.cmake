# cuDNN's fused attention for exact attention in bfloat16 on the GPU (src/attention/cuda/cudnn_attention.cu), through
# the cuDNN frontend's SDPA graph. Included from cmake/cuda_backend.cmake. Needs cudnn.h and libcudnn (cuDNN 9: with
# the CUDA toolkit, or a pip nvidia-cudnn package: -DCUDNN_ROOT=DIR) and the frontend's headers (header-only:
# scripts/cudnn-frontend.sh puts them in build/cudnn-frontend/include, or -DCUDNN_FRONTEND_INCLUDE_DIR=DIR).
# FAVORLAB_CUDNN: AUTO (on when all are found, else one status line saying why), ON (required) or OFF. Only the
# module sees FAVORLAB_HAVE_CUDNN; without it the module says why when exact attention in bfloat16 is asked for.
set(FAVORLAB_CUDNN AUTO CACHE STRING "cuDNN fused attention (exact attention in bfloat16 on the GPU): AUTO, ON, OFF")
set_property(CACHE FAVORLAB_CUDNN PROPERTY STRINGS AUTO ON OFF)
if(NOT FAVORLAB_CUDNN MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "FAVORLAB_CUDNN must be AUTO, ON or OFF (got '${FAVORLAB_CUDNN}')")
endif()

set(_favorlab_cudnn_why "")
if(FAVORLAB_CUDNN STREQUAL "OFF")
  set(_favorlab_cudnn_why "FAVORLAB_CUDNN=OFF")
else()
  find_path(CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDNN_ROOT}/include ${CUDAToolkit_INCLUDE_DIRS})
  find_library(CUDNN_LIBRARY NAMES cudnn libcudnn.so.9
               HINTS ${CUDNN_ROOT}/lib ${CUDNN_ROOT}/lib64 ${CUDAToolkit_LIBRARY_DIR})
  find_path(CUDNN_FRONTEND_INCLUDE_DIR cudnn_frontend.h
            HINTS ${CMAKE_SOURCE_DIR}/build/cudnn-frontend/include ${CMAKE_SOURCE_DIR}/.gpu-deps/cudnn-frontend/include)
  if(NOT CUDNN_INCLUDE_DIR OR NOT CUDNN_LIBRARY)
    set(_favorlab_cudnn_why "no cuDNN found (cudnn.h and libcudnn, set CUDNN_ROOT)")
  elseif(NOT CUDNN_FRONTEND_INCLUDE_DIR)
    set(_favorlab_cudnn_why
        "no cuDNN frontend headers (run scripts/cudnn-frontend.sh or set CUDNN_FRONTEND_INCLUDE_DIR)")
  endif()
endif()

if(_favorlab_cudnn_why STREQUAL "")
  file(STRINGS "${CUDNN_INCLUDE_DIR}/cudnn_version.h" _favorlab_cudnn_major REGEX "define CUDNN_MAJOR [0-9]+")
  string(REGEX MATCH "[0-9]+$" _favorlab_cudnn_major "${_favorlab_cudnn_major}")
  message(STATUS "favorlab: cuDNN fused attention ON (cuDNN ${_favorlab_cudnn_major} at ${CUDNN_LIBRARY}, frontend "
                 "${CUDNN_FRONTEND_INCLUDE_DIR})")
  # Loaded when first used (the frontend's dynamic loading), never linked: a module that cannot find cuDNN at run
  # time still loads, and says why this one path is missing. The path found here is the fallback after the loader's.
  target_include_directories(favorlab_cuda SYSTEM PRIVATE ${CUDNN_INCLUDE_DIR} ${CUDNN_FRONTEND_INCLUDE_DIR})
  get_filename_component(_favorlab_cudnn_real "${CUDNN_LIBRARY}" REALPATH)
  target_compile_definitions(favorlab_cuda PRIVATE FAVORLAB_HAVE_CUDNN NV_CUDNN_FRONTEND_USE_DYNAMIC_LOADING
                             "FAVORLAB_CUDNN_LIBRARY=\"${_favorlab_cudnn_real}\"")
  target_link_libraries(favorlab_cuda PRIVATE ${CMAKE_DL_LIBS})
elseif(FAVORLAB_CUDNN STREQUAL "ON")
  message(FATAL_ERROR "FAVORLAB_CUDNN=ON but ${_favorlab_cudnn_why}")
else()
  message(STATUS "favorlab: cuDNN fused attention OFF: ${_favorlab_cudnn_why}; exact attention in bfloat16 is refused")
  target_compile_definitions(favorlab_cuda PRIVATE "FAVORLAB_CUDNN_OFF_REASON=\"${_favorlab_cudnn_why}\"")
endif()
