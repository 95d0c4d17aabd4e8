# The CUDA backend (FAVORLAB_CUDA=ON): the module libfavorlab_cuda.so from src/attention/cuda/ (*.cu kernels and cuBLAS
# calls, plus the host wrapper cuda_attention.cpp), built beside favorlab and loaded by attention/backend.cpp only when
# --backend cuda asks for it, so that a CPU run never maps the CUDA libraries. Included from the top-level
# CMakeLists after the layer libraries exist and before any executable.

# sm_90 (H100/H200) unless the caller chose: -DCMAKE_CUDA_ARCHITECTURES="80;90" etc. Set before enable_language,
# which would otherwise pick the compiler's default.
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES OR CMAKE_CUDA_ARCHITECTURES STREQUAL "")
  set(CMAKE_CUDA_ARCHITECTURES 90)
endif()
if(NOT DEFINED CMAKE_CUDA_HOST_COMPILER)
  set(CMAKE_CUDA_HOST_COMPILER "${CMAKE_CXX_COMPILER}")  # the same GCC as the C++ code
endif()
enable_language(CUDA)
find_package(CUDAToolkit REQUIRED)
message(STATUS "favorlab: CUDA backend ON (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, cuBLAS ${CUDAToolkit_VERSION}, "
               "architectures ${CMAKE_CUDA_ARCHITECTURES})")

file(GLOB FAVORLAB_CUDA_SOURCES CONFIGURE_DEPENDS
     ${CMAKE_SOURCE_DIR}/src/attention/cuda/*.cu ${CMAKE_SOURCE_DIR}/src/attention/cuda/*.cpp)
add_library(favorlab_cuda MODULE ${FAVORLAB_CUDA_SOURCES})
set_target_properties(favorlab_cuda PROPERTIES
  CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON CUDA_EXTENSIONS OFF   # CMake 3.25 knows no CUDA20 for nvcc
  CUDA_RUNTIME_LIBRARY Shared           # the same libcudart as CUDA::cudart below
  POSITION_INDEPENDENT_CODE ON
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
# Host-side warnings through nvcc; no fast math: float32 results must agree with the CPU to 1e-5.
target_compile_options(favorlab_cuda PRIVATE
  "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra;--Werror=cross-execution-space-call;-Wreorder>")
# The module calls back into the attention layer (check_attention_inputs, prepared_projection, the family table):
# those symbols stay undefined in it and bind to the executable's own at load time, so every executable exports its
# symbols (ENABLE_EXPORTS) and the module is built whenever the attention layer is. It takes the layers' headers and
# definitions (favorlab_common), not their code. FAVORLAB_HAVE_CUDA goes to the module and to backend.cpp only: no
# other file may depend on it (use attention/backend.hpp), so switching FAVORLAB_CUDA in an existing build directory
# recompiles the backend, not the project.
target_link_libraries(favorlab_cuda PRIVATE CUDA::cudart CUDA::cublas favorlab_common)
target_compile_definitions(favorlab_cuda PRIVATE FAVORLAB_HAVE_CUDA)
include(cmake/cudnn_attention.cmake)
set(CMAKE_ENABLE_EXPORTS ON)
add_dependencies(favorlab_attention favorlab_cuda)
target_link_libraries(favorlab_attention PUBLIC ${CMAKE_DL_LIBS})
set_property(SOURCE ${CMAKE_SOURCE_DIR}/src/attention/backend.cpp APPEND PROPERTY
             COMPILE_DEFINITIONS FAVORLAB_HAVE_CUDA FAVORLAB_CUDA_MODULE_DIR="${CMAKE_BINARY_DIR}")
