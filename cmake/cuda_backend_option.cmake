# Decides FAVORLAB_CUDA, the optional CUDA backend: ON by default when CMake's CUDA language (nvcc) and cuBLAS
# (find_package(CUDAToolkit)) are both found, OFF otherwise with one status line saying why. Asking for ON where
# either is missing is an error. Sets FAVORLAB_CUDA_OFF_CODE for src/attention/backend.cpp's message:
# 1 switched off, 2 nvcc not found, 3 cuBLAS not found.
include(CheckLanguage)

# Detection runs on every configure (check_language caches its answer), so the reason stays right on a reconfigure.
# A compiler given on the command line must exist: -DCMAKE_CUDA_COMPILER=/nonexistent simulates a machine without nvcc.
set(_favorlab_nvcc "")
if(DEFINED CMAKE_CUDA_COMPILER)
  if(EXISTS "${CMAKE_CUDA_COMPILER}")
    set(_favorlab_nvcc "${CMAKE_CUDA_COMPILER}")
  elseif(NOT CMAKE_CUDA_COMPILER STREQUAL "")
    find_program(_favorlab_nvcc_in_path NAMES "${CMAKE_CUDA_COMPILER}" NO_CACHE)
    if(_favorlab_nvcc_in_path)
      set(_favorlab_nvcc "${_favorlab_nvcc_in_path}")
    endif()
  endif()
else()
  check_language(CUDA)
  set(_favorlab_nvcc "${CMAKE_CUDA_COMPILER}")
endif()

set(_favorlab_cuda_usable OFF)
if(NOT _favorlab_nvcc)
  set(FAVORLAB_CUDA_OFF_CODE 2)
  set(_favorlab_cuda_why "nvcc not found")
else()
  find_package(CUDAToolkit QUIET)
  if(CUDAToolkit_FOUND AND TARGET CUDA::cublas AND TARGET CUDA::cudart)
    set(_favorlab_cuda_usable ON)
    set(FAVORLAB_CUDA_OFF_CODE 1)
    set(_favorlab_cuda_why "FAVORLAB_CUDA=OFF")
  else()
    set(FAVORLAB_CUDA_OFF_CODE 3)
    set(_favorlab_cuda_why "nvcc found at ${_favorlab_nvcc} but not cuBLAS")
  endif()
endif()

option(FAVORLAB_CUDA "Build the optional CUDA backend (needs nvcc and cuBLAS)" ${_favorlab_cuda_usable})
if(FAVORLAB_CUDA AND NOT _favorlab_cuda_usable)
  message(FATAL_ERROR "FAVORLAB_CUDA=ON but nvcc or cuBLAS was not found (see above); configure with "
                      "-DFAVORLAB_CUDA=OFF or install the CUDA toolkit")
endif()
if(NOT FAVORLAB_CUDA)
  message(STATUS "favorlab: CUDA backend OFF (${_favorlab_cuda_why})")
endif()
