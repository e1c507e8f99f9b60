# ccache (Debian's `ccache`, installed by scripts/setup.sh) in front of the C, C++ and CUDA
# compilers where it is found: DCUKIT_CCACHE=AUTO (default), ON or OFF. Paths under the source
# tree are hashed relative to it. A rebuild of one tree (a changed flag, a `git checkout` back
# and forth) takes what it compiled before from the cache; a second clone reuses only the files
# whose command lines and contents name no path of its own (the unity batches and the test
# programs name theirs). A cold cache costs only ccache's own bookkeeping.
set(DCUKIT_CCACHE AUTO CACHE STRING "Compile through ccache: ON, OFF or AUTO (when ccache is found)")
string(TOUPPER "${DCUKIT_CCACHE}" _ccache)
if(NOT _ccache STREQUAL "OFF")
  find_program(DCUKIT_CCACHE_PROGRAM ccache)
  if(DCUKIT_CCACHE_PROGRAM)
    # Depend mode: a miss hashes the compiler's own -MD output instead of running the
    # preprocessor first, so that a cold cache costs next to nothing.
    set(_launcher ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR} CCACHE_NOHASHDIR=1
        CCACHE_DEPEND=1 ${DCUKIT_CCACHE_PROGRAM})
    foreach(_lang C CXX CUDA)
      if(NOT CMAKE_${_lang}_COMPILER_LAUNCHER)
        set(CMAKE_${_lang}_COMPILER_LAUNCHER ${_launcher})
      endif()
    endforeach()
  elseif(_ccache STREQUAL "ON")
    message(FATAL_ERROR "DCUKIT_CCACHE=ON but ccache is not installed (apt-get install ccache)")
  endif()
endif()
