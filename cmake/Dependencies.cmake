# Every dependency comes from the distribution's packages (Debian 12, Ubuntu 22.04/24.04):
# scripts/setup.sh installs them. None of them is a GPU runtime: those are loaded at run time.
find_package(Threads REQUIRED)
find_package(fmt REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 CONFIG QUIET)
if(NOT CLI11_FOUND)
  find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp REQUIRED)
  add_library(CLI11::CLI11 INTERFACE IMPORTED)
  target_include_directories(CLI11::CLI11 INTERFACE ${CLI11_INCLUDE_DIR})
endif()
find_package(CURL REQUIRED)
# pugixml: the XML of `nvidia-smi -q -x` (telemetry/parse_nvidia_xml.cpp).
find_package(pugixml CONFIG REQUIRED)

# OpenBLAS: only its header at build time; the CPU backend opens the library at run time
# (src/device/cpu/openblas.h), so that its thread pool starts only when GEMM runs on the CPU.
find_path(OPENBLAS_INCLUDE_DIR cblas.h PATH_SUFFIXES openblas openblas-pthread REQUIRED)
add_library(dcukit::openblas INTERFACE IMPORTED)
set_target_properties(dcukit::openblas PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${OPENBLAS_INCLUDE_DIR})

find_path(NUMA_INCLUDE_DIR numa.h REQUIRED)
find_library(NUMA_LIBRARY NAMES numa REQUIRED)
add_library(dcukit::numa UNKNOWN IMPORTED)
set_target_properties(dcukit::numa PROPERTIES
  IMPORTED_LOCATION ${NUMA_LIBRARY} INTERFACE_INCLUDE_DIRECTORIES ${NUMA_INCLUDE_DIR})

# cpp-httplib: the HTTP server of guard and the exporter, and the tests' servers. Debian builds
# it as a shared library with a pkg-config file; elsewhere it may be the bare header.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(HTTPLIB QUIET IMPORTED_TARGET cpp-httplib)
endif()
if(HTTPLIB_FOUND)
  add_library(dcukit::httplib ALIAS PkgConfig::HTTPLIB)
else()
  find_path(HTTPLIB_INCLUDE_DIR httplib.h REQUIRED)
  add_library(dcukit::httplib INTERFACE IMPORTED)
  set_target_properties(dcukit::httplib PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${HTTPLIB_INCLUDE_DIR})
endif()

# RE2: the regular expressions run on untrusted text (linear time, no recursion: std::regex
# recursed once per character). Linked statically where the distribution ships the archive
# (Debian and Ubuntu do), so that the binary needs no libre2 at run time on an offline host.
find_path(RE2_INCLUDE_DIR re2/re2.h REQUIRED)
find_library(RE2_LIBRARY NAMES libre2.a re2 REQUIRED)
add_library(dcukit::re2 UNKNOWN IMPORTED)
set_target_properties(dcukit::re2 PROPERTIES
  IMPORTED_LOCATION ${RE2_LIBRARY} INTERFACE_INCLUDE_DIRECTORIES ${RE2_INCLUDE_DIR}
  INTERFACE_LINK_LIBRARIES Threads::Threads)
