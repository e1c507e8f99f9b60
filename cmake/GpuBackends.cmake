# GPU backends: shared libraries that dcukit dlopens at run time (see docs/backends.md).
# Both compile the same sources in src/device/cuda/; the HIP build maps CUDA names through
# src/device/hip/vendor.h. They include only header-only parts of src/ and never link dcukit_lib.
#
#   DCUKIT_CUDA / DCUKIT_HIP   ON, OFF or AUTO (build when the compiler is found)
#   DCUKIT_CUDA_ARCHS          default: what the local nvcc supports among 80;90;100
#   DCUKIT_HIP_ARCHS           default: gfx906;gfx90a
#   DCUKIT_HIP_DTK_ARCHS       also build gfx926;gfx928;gfx936 where hipcc accepts them (probed)
#   DCUKIT_HIPCC               the hipcc to use (found on PATH, $ROCM_PATH/bin, /opt/dtk/bin, /opt/rocm/bin)

set(_gpu_src ${PROJECT_SOURCE_DIR}/src)
set(_gpu_shared_sources ${_gpu_src}/device/cuda/backend.cu ${_gpu_src}/device/cuda/device.cu
                        ${_gpu_src}/device/cuda/kernels.cu)
set(_gpu_headers
  ${_gpu_src}/device/cuda/common.cuh ${_gpu_src}/device/cuda/kernels.cuh ${_gpu_src}/device/cuda/blas.cuh
  ${_gpu_src}/device/cuda/device.cuh
  ${_gpu_src}/device/hip/vendor.h ${_gpu_src}/device/hip/rocblas_api.h
  ${_gpu_src}/device/backend.h ${_gpu_src}/device/types.h ${_gpu_src}/util/result.h ${_gpu_src}/util/names.h)
# Export only the factory: the static CUDA runtime and everything else stay private.
set(_gpu_version_script ${_gpu_src}/device/cuda/exports.map)
set(DCUKIT_GPU_BACKEND_LIBS "")
set(DCUKIT_BUILT_BACKENDS "")  # for --version: "cuda (sm 80 90, nvcc 13.0.48)"

foreach(_opt DCUKIT_CUDA DCUKIT_HIP)
  string(TOUPPER "${${_opt}}" _val)
  if(NOT _val MATCHES "^(ON|OFF|AUTO|TRUE|FALSE|YES|NO|1|0)$")
    message(FATAL_ERROR "${_opt}=${${_opt}}: use ON, OFF or AUTO")
  endif()
  if(_val MATCHES "^(TRUE|YES|1)$")
    set(_val ON)
  elseif(_val MATCHES "^(FALSE|NO|0)$")
    set(_val OFF)
  endif()
  set(_${_opt} ${_val})
endforeach()

# ---- CUDA: CMake's CUDA language with nvcc ----------------------------------------------------
if(NOT _DCUKIT_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DCUKIT_CUDA_ARCHS)
      execute_process(COMMAND ${CMAKE_CUDA_COMPILER} --list-gpu-arch
                      OUTPUT_VARIABLE _nvcc_archs ERROR_QUIET RESULT_VARIABLE _rc)
      set(_default "")
      foreach(_a 80 90 100)
        if(_nvcc_archs MATCHES "compute_${_a}([^0-9]|$)")
          list(APPEND _default ${_a})
        endif()
      endforeach()
      if(NOT _default)
        set(_default 80)
      endif()
      set(DCUKIT_CUDA_ARCHS "${_default}" CACHE STRING
          "CUDA architectures of the CUDA backend (default: what nvcc supports among 80;90;100)" FORCE)
    endif()
    set(CMAKE_CUDA_ARCHITECTURES ${DCUKIT_CUDA_ARCHS})
    enable_language(CUDA)
    # CMake 3.25 does not know nvcc's C++20 flag; teach it (newer CMake defines these itself).
    if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
    find_package(CUDAToolkit REQUIRED)

    add_library(dcukit_cuda MODULE ${_gpu_shared_sources} ${_gpu_src}/device/cuda/blas_cublaslt.cu)
    target_include_directories(dcukit_cuda PRIVATE ${_gpu_src})
    # cudart is linked statically (CMake's default for CUDA) so only the driver is needed from
    # the system; cuBLASLt is linked normally and found through the toolkit's rpath.
    target_link_libraries(dcukit_cuda PRIVATE CUDA::cublasLt ${CMAKE_DL_LIBS})
    set_target_properties(dcukit_cuda PROPERTIES
      CUDA_ARCHITECTURES "${DCUKIT_CUDA_ARCHS}"
      CUDA_STANDARD 20 CUDA_STANDARD_REQUIRED ON CUDA_EXTENSIONS OFF
      CUDA_RUNTIME_LIBRARY Static
      CUDA_VISIBILITY_PRESET hidden CXX_VISIBILITY_PRESET hidden
      BUILD_RPATH "${CUDAToolkit_LIBRARY_DIR}" INSTALL_RPATH "${CUDAToolkit_LIBRARY_DIR}"
      LINK_DEPENDS ${_gpu_version_script})
    # -z nodelete: dcukit's dlclose at exit must not unmap the GPU runtime under its own threads
    # and exit handlers; the library then stays mapped until the process ends.
    target_link_options(dcukit_cuda PRIVATE "LINKER:--version-script=${_gpu_version_script}" "LINKER:--no-undefined"
                        "LINKER:-z,nodelete")
    target_compile_options(dcukit_cuda PRIVATE
      $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>
      $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${DCUKIT_WERROR}>>:-Xcompiler=-Werror --Werror=all-warnings>)
    list(APPEND DCUKIT_GPU_BACKEND_LIBS $<TARGET_FILE:dcukit_cuda>)
    install(TARGETS dcukit_cuda LIBRARY DESTINATION lib/dcukit)
    message(STATUS "dcukit: CUDA backend for sm ${DCUKIT_CUDA_ARCHS} (${CMAKE_CUDA_COMPILER})")
    string(REPLACE ";" " " _archs_text "${DCUKIT_CUDA_ARCHS}")
    list(APPEND DCUKIT_BUILT_BACKENDS "cuda (sm ${_archs_text}, nvcc ${CMAKE_CUDA_COMPILER_VERSION})")
  elseif(_DCUKIT_CUDA STREQUAL "ON")
    message(FATAL_ERROR "DCUKIT_CUDA=ON but no CUDA compiler was found; put nvcc on PATH or set CMAKE_CUDA_COMPILER")
  else()
    message(STATUS "dcukit: CUDA backend skipped (no nvcc found)")
  endif()
endif()

# ---- HIP: hipcc in custom commands (CMake's HIP language does not find Debian's ROCm) -----------
if(NOT _DCUKIT_HIP STREQUAL "OFF")
  find_program(DCUKIT_HIPCC hipcc HINTS ENV ROCM_PATH PATH_SUFFIXES bin PATHS /opt/dtk/bin /opt/rocm/bin)
  if(DCUKIT_HIPCC)
    set(DCUKIT_HIP_ARCHS "gfx906;gfx90a" CACHE STRING "AMD GPU targets of the HIP backend")
    option(DCUKIT_HIP_DTK_ARCHS "Add Hygon DTK's gfx926, gfx928, gfx936 where hipcc accepts them" ON)
    # A test compile per target, cached: hipcc without device libraries, or a target the
    # compiler does not know, shows up here rather than in the build.
    set(_probe_dir ${CMAKE_BINARY_DIR}/CMakeFiles/dcukit_hip_probe)
    file(WRITE ${_probe_dir}/probe.cu "#include <hip/hip_runtime.h>\n__global__ void probe(int* p) { *p = warpSize; }\n")
    # Compiles the probe for one target, once: the answer is cached in DCUKIT_HIP_ACCEPTS_<arch>.
    # VERBOSE shows the compiler's message when it fails.
    function(dcukit_hip_probe arch)
      if(DEFINED DCUKIT_HIP_ACCEPTS_${arch})
        return()
      endif()
      execute_process(COMMAND ${DCUKIT_HIPCC} -x hip --offload-arch=${arch} -c probe.cu -o probe_${arch}.o
                      WORKING_DIRECTORY ${_probe_dir} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
      if(_rc EQUAL 0)
        set(DCUKIT_HIP_ACCEPTS_${arch} ON CACHE INTERNAL "")
      else()
        if(ARGV1 STREQUAL "VERBOSE")
          message(STATUS "dcukit: ${DCUKIT_HIPCC} cannot compile for ${arch}: ${_out}")
        endif()
        set(DCUKIT_HIP_ACCEPTS_${arch} OFF CACHE INTERNAL "")
      endif()
    endfunction()
    set(_hip_archs "")
    foreach(_a ${DCUKIT_HIP_ARCHS})
      dcukit_hip_probe(${_a} VERBOSE)
      if(DCUKIT_HIP_ACCEPTS_${_a})
        list(APPEND _hip_archs ${_a})
      endif()
    endforeach()
    if(NOT _hip_archs)
      if(_DCUKIT_HIP STREQUAL "ON")
        message(FATAL_ERROR "DCUKIT_HIP=ON but ${DCUKIT_HIPCC} compiles for none of DCUKIT_HIP_ARCHS=${DCUKIT_HIP_ARCHS}")
      endif()
      message(STATUS "dcukit: HIP backend skipped: ${DCUKIT_HIPCC} compiles for none of ${DCUKIT_HIP_ARCHS}")
      set(DCUKIT_HIPCC_USABLE OFF)
    else()
      set(DCUKIT_HIPCC_USABLE ON)
    endif()
    if(DCUKIT_HIP_DTK_ARCHS AND DCUKIT_HIPCC_USABLE)
      foreach(_a gfx926 gfx928 gfx936)
        dcukit_hip_probe(${_a})
        if(DCUKIT_HIP_ACCEPTS_${_a})
          list(APPEND _hip_archs ${_a})
        else()
          message(STATUS "dcukit: ${DCUKIT_HIPCC} does not accept ${_a}; the HIP backend is built without it")
        endif()
      endforeach()
    endif()
    list(REMOVE_DUPLICATES _hip_archs)
  endif()
  if(DCUKIT_HIPCC AND DCUKIT_HIPCC_USABLE)
    # -Wno-deprecated-declarations: newer ROCm/DTK deprecate hipHostMalloc and friends that HIP 5.2 needs.
    set(_hip_flags -x hip -std=c++20 -O3 -fPIC -fvisibility=hidden -DDCUKIT_HIP -DNDEBUG -I${_gpu_src}
                   -Wall -Wextra -Wno-deprecated-declarations)
    if(DCUKIT_WERROR)
      list(APPEND _hip_flags -Werror)
    endif()
    foreach(_a ${_hip_archs})
      list(APPEND _hip_flags --offload-arch=${_a})
    endforeach()

    set(_hip_dir ${CMAKE_BINARY_DIR}/CMakeFiles/dcukit_hip.dir)
    set(_hip_objs "")
    foreach(_s ${_gpu_shared_sources} ${_gpu_src}/device/hip/blas_rocblas.cu)
      get_filename_component(_name ${_s} NAME_WE)
      set(_o ${_hip_dir}/${_name}.o)
      add_custom_command(OUTPUT ${_o}
        COMMAND ${CMAKE_COMMAND} -E make_directory ${_hip_dir}
        COMMAND ${DCUKIT_HIPCC} ${_hip_flags} -MD -MF ${_o}.d -c ${_s} -o ${_o}
        DEPENDS ${_s} ${_gpu_headers}
        DEPFILE ${_o}.d
        COMMENT "hipcc ${_name}.cu (${_hip_archs})"
        VERBATIM)
      list(APPEND _hip_objs ${_o})
    endforeach()
    set(_hip_lib ${CMAKE_LIBRARY_OUTPUT_DIRECTORY}/libdcukit_hip.so)
    set(_hip_link_archs "")
    foreach(_a ${_hip_archs})
      list(APPEND _hip_link_archs --offload-arch=${_a})
    endforeach()
    add_custom_command(OUTPUT ${_hip_lib}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_LIBRARY_OUTPUT_DIRECTORY}
      COMMAND ${DCUKIT_HIPCC} -shared -fPIC ${_hip_link_archs} -o ${_hip_lib} ${_hip_objs}
              -Wl,--version-script=${_gpu_version_script} -Wl,--no-undefined -Wl,-z,nodelete -ldl
      DEPENDS ${_hip_objs} ${_gpu_version_script}
      COMMENT "hipcc -shared libdcukit_hip.so"
      VERBATIM)
    add_custom_target(dcukit_hip ALL DEPENDS ${_hip_lib})
    list(APPEND DCUKIT_GPU_BACKEND_LIBS ${_hip_lib})
    install(FILES ${_hip_lib} DESTINATION lib/dcukit)
    message(STATUS "dcukit: HIP backend for ${_hip_archs} (${DCUKIT_HIPCC})")
    string(REPLACE ";" " " _archs_text "${_hip_archs}")
    list(APPEND DCUKIT_BUILT_BACKENDS "hip (${_archs_text}, ${DCUKIT_HIPCC})")
  elseif(NOT DCUKIT_HIPCC)
    if(_DCUKIT_HIP STREQUAL "ON")
      message(FATAL_ERROR "DCUKIT_HIP=ON but hipcc was not found; install hipcc or set DCUKIT_HIPCC")
    endif()
    message(STATUS "dcukit: HIP backend skipped (no hipcc found)")
  endif()
endif()

# ---- The self-test: loads the backends exactly as dcukit does (dlopen + factory) --------------
if(TARGET dcukit_cuda OR TARGET dcukit_hip)
  add_executable(dcukit_gpu_selftest ${PROJECT_SOURCE_DIR}/tools/gpu_selftest/main.cpp
                                     ${PROJECT_SOURCE_DIR}/tools/gpu_selftest/reference.cpp)
  target_include_directories(dcukit_gpu_selftest PRIVATE ${_gpu_src} ${PROJECT_SOURCE_DIR}/tools)
  target_link_libraries(dcukit_gpu_selftest PRIVATE dcukit_warnings Threads::Threads ${CMAKE_DL_LIBS})
  foreach(_t dcukit_cuda dcukit_hip)
    if(TARGET ${_t})
      add_dependencies(dcukit_gpu_selftest ${_t})
    endif()
  endforeach()
endif()
