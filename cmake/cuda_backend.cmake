# The CUDA backend (FAVORLAB_CUDA=ON): library favorlab_cuda from src/attention/cuda/ (*.cu kernels and cuBLAS calls,
# plus the host wrapper cuda_attention.cpp), linked into everything that links the attention layer
# (favorlab, the tests). Included from the top-level CMakeLists after the layer libraries exist.

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
add_library(favorlab_cuda STATIC ${FAVORLAB_CUDA_SOURCES})
set_target_properties(favorlab_cuda PROPERTIES
  CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON CUDA_EXTENSIONS OFF   # CMake 3.25 knows no CUDA20 for nvcc
  CUDA_RUNTIME_LIBRARY Shared           # the same libcudart as CUDA::cudart below
  POSITION_INDEPENDENT_CODE ON)
# Host-side warnings through nvcc; no fast math: float32 results must agree with the CPU to 1e-5.
target_compile_options(favorlab_cuda PRIVATE
  "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra;--Werror=cross-execution-space-call;-Wreorder>")
# favorlab_attention and favorlab_cuda need each other (attend_on_backend calls attend_cuda, which validates with
# check_attention_inputs): a cycle between static libraries, which CMake resolves by repeating them on the link line.
# The attention layer takes favorlab_cuda link-only, and FAVORLAB_HAVE_CUDA goes to backend.cpp and to favorlab_cuda's users only:
# no other file may depend on it (use attention/backend.hpp), so switching FAVORLAB_CUDA in an existing build
# directory recompiles the backend, not the project.
target_link_libraries(favorlab_cuda PUBLIC CUDA::cudart CUDA::cublas PRIVATE favorlab_attention)
target_compile_definitions(favorlab_cuda PUBLIC FAVORLAB_HAVE_CUDA)
target_link_libraries(favorlab_attention INTERFACE "$<LINK_ONLY:favorlab_cuda>")
set_property(SOURCE ${CMAKE_SOURCE_DIR}/src/attention/backend.cpp APPEND PROPERTY
             COMPILE_DEFINITIONS FAVORLAB_HAVE_CUDA)
