# The CUDA place: decides whether libpaddle_lite_cuda.so is built.
# PDLITE_WITH_CUDA is AUTO (default: on when nvcc, cuBLAS(Lt) and cuDNN are
# all found), ON (a missing piece is an error) or OFF. The core library
# never links CUDA; the place is a plugin the runtime loads when a CUDA
# place is first asked for (see platform/cuda/cuda_place.cc).

set(PDLITE_WITH_CUDA AUTO CACHE STRING
    "Build the CUDA place: AUTO (when nvcc, cuDNN and cuBLAS are found), ON or OFF")
set_property(CACHE PDLITE_WITH_CUDA PROPERTY STRINGS AUTO ON OFF)
set(PDLITE_CUDA_ENABLED OFF)

if(PDLITE_SANITIZE AND PDLITE_WITH_CUDA STREQUAL "AUTO")
  # Sanitizer builds test the core; the CUDA runtime is not instrumented.
  set(PDLITE_WITH_CUDA_EFFECTIVE OFF)
else()
  set(PDLITE_WITH_CUDA_EFFECTIVE ${PDLITE_WITH_CUDA})
endif()

if(NOT PDLITE_WITH_CUDA_EFFECTIVE STREQUAL "OFF")
  # A fixed list: Ampere, Ada, Hopper as machine code, plus Hopper PTX for
  # newer GPUs to JIT. Never "native": the build machine has no GPU.
  # CUDAARCHS (CMake's own variable) overrides it: CI, which has no GPU
  # and only checks that the CUDA place compiles and links, builds one.
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    if(DEFINED ENV{CUDAARCHS})
      set(CMAKE_CUDA_ARCHITECTURES "$ENV{CUDAARCHS}")
    else()
      set(CMAKE_CUDA_ARCHITECTURES "80-real;89-real;90")
    endif()
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  set(pdlite_cuda_missing "")
  if(NOT CMAKE_CUDA_COMPILER)
    list(APPEND pdlite_cuda_missing "nvcc")
  else()
    find_package(CUDAToolkit QUIET)
    if(NOT CUDAToolkit_FOUND)
      list(APPEND pdlite_cuda_missing "the CUDA toolkit")
    else()
      if(NOT TARGET CUDA::cublas OR NOT TARGET CUDA::cublasLt)
        list(APPEND pdlite_cuda_missing "cuBLAS/cuBLASLt")
      endif()
      # cuDNN sits beside the toolkit (/usr/local/cuda/{include,lib}) or in
      # the system folders of NVIDIA's Debian packages.
      find_path(PDLITE_CUDNN_INCLUDE_DIR cudnn.h
        HINTS ${CUDAToolkit_INCLUDE_DIRS} ${CUDAToolkit_LIBRARY_ROOT}/include)
      find_library(PDLITE_CUDNN_LIBRARY cudnn
        HINTS ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}/lib
              ${CUDAToolkit_LIBRARY_ROOT}/lib64)
      if(NOT PDLITE_CUDNN_INCLUDE_DIR OR NOT PDLITE_CUDNN_LIBRARY)
        list(APPEND pdlite_cuda_missing "cuDNN (cudnn.h, libcudnn.so)")
      endif()
    endif()
  endif()
  if(pdlite_cuda_missing)
    list(JOIN pdlite_cuda_missing ", " missing)
    if(PDLITE_WITH_CUDA_EFFECTIVE STREQUAL "ON")
      message(FATAL_ERROR "PDLITE_WITH_CUDA=ON, but not found: ${missing}. "
                          "Install CUDA 13 with cuDNN 9 under /usr/local/cuda, "
                          "or configure with -DPDLITE_WITH_CUDA=OFF.")
    endif()
    message(STATUS "CUDA place: not built (not found: ${missing})")
  else()
    enable_language(CUDA)
    set(PDLITE_CUDA_ENABLED ON)
    if(CCACHE_PROGRAM AND NOT CMAKE_CUDA_COMPILER_LAUNCHER)
      set(CMAKE_CUDA_COMPILER_LAUNCHER ${CCACHE_PROGRAM})
    endif()
    message(STATUS "CUDA place: built for ${CMAKE_CUDA_ARCHITECTURES} "
                   "(nvcc ${CMAKE_CUDA_COMPILER_VERSION}, cuDNN "
                   "${PDLITE_CUDNN_LIBRARY})")
  endif()
elseif(PDLITE_SANITIZE)
  message(STATUS "CUDA place: not built in a sanitizer build")
else()
  message(STATUS "CUDA place: not built (PDLITE_WITH_CUDA=OFF)")
endif()

# pdlite_add_cuda_place(): the plugin library, from platform/cuda and
# kernels/cuda. Called after the core target exists.
function(pdlite_add_cuda_place)
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS
       ${PROJECT_SOURCE_DIR}/platform/cuda/*.cc
       ${PROJECT_SOURCE_DIR}/kernels/cuda/*.cc
       ${PROJECT_SOURCE_DIR}/kernels/cuda/*.cu)
  # A MODULE: dlopen'ed on first use, never linked, so CPU-only programs
  # never map the CUDA libraries.
  add_library(paddle_lite_cuda MODULE ${srcs})
  get_filename_component(cudnn_dir ${PDLITE_CUDNN_LIBRARY} DIRECTORY)
  target_link_libraries(paddle_lite_cuda PRIVATE
    paddle_lite CUDA::cudart_static CUDA::cublas CUDA::cublasLt
    ${PDLITE_CUDNN_LIBRARY})
  target_include_directories(paddle_lite_cuda PRIVATE
    ${PROJECT_SOURCE_DIR} ${PDLITE_CUDNN_INCLUDE_DIR}
    ${CUDAToolkit_INCLUDE_DIRS})
  set_target_properties(paddle_lite_cuda PROPERTIES
    CUDA_STANDARD 17
    CUDA_STANDARD_REQUIRED ON
    # Found beside libpaddle_lite.so, in the build tree and when installed.
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}
    # Installed, it still finds cuBLAS and cuDNN where they were found.
    INSTALL_RPATH "${CUDAToolkit_LIBRARY_DIR};${cudnn_dir}")
  target_compile_options(paddle_lite_cuda PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -Xcompiler=-Wall,-Wno-unused-parameter>)
  # The kernel sources, for the test that every one registered a kernel.
  list(FILTER srcs INCLUDE REGEX "/kernels/cuda/.*/[^/]+\\.(cc|cu)$")
  list(FILTER srcs EXCLUDE REGEX "_util\\.(cc|cu)$")
  string(REPLACE ";" "|" files "${srcs}")
  set(PDLITE_CUDA_KERNEL_FILES "${files}" PARENT_SCOPE)
endfunction()
