# guard's service in the tests: a small server that misbehaves on command (guard_service.cpp),
# and the tests that run the real dcukit guard against it.
add_executable(dcukit_guard_service guard_service.cpp)
target_link_libraries(dcukit_guard_service PRIVATE dcukit::httplib nlohmann_json::nlohmann_json dcukit_warnings
                      Threads::Threads)

dcukit_integration_program(dcukit_guard_tests
  SOURCES test_guard_faults.cpp test_guard_escape.cpp test_guard_cli.cpp test_guard_contrib.cpp
  LINK dcukit_lib
  HELPERS dcukit_guard_service)

# The soak (guard_soak.cpp): a short run under ctest checks that guard's descriptors and memory
# stay flat; the full run (1000 restarts) writes docs/results/guard-soak.md.
add_executable(dcukit_guard_soak guard_soak.cpp)
target_link_libraries(dcukit_guard_soak PRIVATE dcukit_lib dcukit_warnings)
add_dependencies(dcukit_guard_soak dcukit)
add_test(NAME guard_soak_short COMMAND dcukit_guard_soak --dcukit $<TARGET_FILE:dcukit> --restarts 150 --check)
set_tests_properties(guard_soak_short PROPERTIES TIMEOUT 300 LABELS "integration;guard")
