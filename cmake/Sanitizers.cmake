# AddressSanitizer and UndefinedBehaviorSanitizer for the host code (scripts/sanitize.sh):
# -DDCUKIT_SANITIZE=ON. float-cast-overflow is asked for by name because GCC's `undefined`
# leaves it out; every report is fatal, so that a test that triggers one fails.
option(DCUKIT_SANITIZE "Build host code with ASan and UBSan (the GPU backends are not built)" OFF)
if(DCUKIT_SANITIZE)
  set(_san -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all)
  add_compile_options(${_san} -fno-omit-frame-pointer)  # host code only: the GPU backends are off
  # Programs are linked position-dependent: a PIE built with ASan and UBSan carries about seven
  # million relative relocations (the sanitizers' descriptors of every global and check), and
  # ld.so spent half of each test process's start applying them (docs/results/ci-time.md).
  add_link_options(${_san} $<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:-no-pie>)
  set(DCUKIT_CUDA OFF CACHE STRING "" FORCE)
  set(DCUKIT_HIP OFF CACHE STRING "" FORCE)
endif()
