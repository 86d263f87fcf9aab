# Finds every library the build needs and, when any is missing, stops with
# one message naming the Debian packages to install, instead of the stack
# trace a failing find_package inside another package's config gives.
# scripts/setup.sh installs all of them.

set(PDLITE_MISSING "")           # "what (Debian package)" entries
set(PDLITE_MISSING_PACKAGES "")  # Debian package names

# pdlite_find(<Package> <debian-package> [find_package arguments...])
macro(pdlite_find package debian_package)
  find_package(${package} ${ARGN} QUIET)
  if(NOT ${package}_FOUND)
    list(APPEND PDLITE_MISSING "${package} (${debian_package})")
    list(APPEND PDLITE_MISSING_PACKAGES ${debian_package})
  endif()
endmacro()

pdlite_find(Protobuf libprotobuf-dev)
if(Protobuf_FOUND AND NOT Protobuf_PROTOC_EXECUTABLE)
  list(APPEND PDLITE_MISSING "protoc (protobuf-compiler)")
  list(APPEND PDLITE_MISSING_PACKAGES protobuf-compiler)
endif()
pdlite_find(Eigen3 libeigen3-dev 3.4 NO_MODULE)
pdlite_find(gflags libgflags-dev)
pdlite_find(glog libgoogle-glog-dev)
pdlite_find(Threads libc6-dev)
pdlite_find(OpenMP libgomp1)
# Debian's oneDNN CMake config requires OpenCL, which libdnnl-dev only
# recommends; looked for first, since a miss inside dnnl's config is fatal.
pdlite_find(OpenCL ocl-icd-opencl-dev)
if(OpenCL_FOUND)
  pdlite_find(dnnl libdnnl-dev)
else()
  find_path(PDLITE_DNNL_HEADER oneapi/dnnl/dnnl.hpp)
  if(NOT PDLITE_DNNL_HEADER)
    list(APPEND PDLITE_MISSING "dnnl (libdnnl-dev)")
    list(APPEND PDLITE_MISSING_PACKAGES libdnnl-dev)
  endif()
endif()
if(PDLITE_BUILD_TESTS AND BUILD_TESTING)
  pdlite_find(GTest "libgtest-dev libgmock-dev")
endif()
if(PDLITE_BUILD_BENCHMARKS)
  pdlite_find(benchmark libbenchmark-dev)
endif()

if(PDLITE_MISSING)
  list(JOIN PDLITE_MISSING "\n  " missing)
  list(JOIN PDLITE_MISSING_PACKAGES " " packages)
  message(FATAL_ERROR
    "Not found:\n  ${missing}\n"
    "Install the Debian packages with\n"
    "  sudo apt-get install --no-install-recommends ${packages}\n"
    "or run scripts/setup.sh, which installs everything this project needs.")
endif()

if(NOT CCACHE_PROGRAM)
  message(STATUS "ccache not found: rebuilds will be slower "
                 "(Debian package ccache; scripts/setup.sh installs it)")
endif()
