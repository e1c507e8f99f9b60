# guard's service in the tests: a small server that misbehaves on command (guard_service.cpp),
# and the tests that run the real dcukit guard against it.
add_executable(dcukit_guard_service guard_service.cpp)
target_link_libraries(dcukit_guard_service PRIVATE dcukit::httplib nlohmann_json::nlohmann_json dcukit_warnings
                      Threads::Threads)

add_executable(dcukit_guard_tests test_guard_faults.cpp test_guard_escape.cpp test_guard_cli.cpp
  test_guard_contrib.cpp)
target_link_libraries(dcukit_guard_tests PRIVATE dcukit_lib dcukit_warnings GTest::gtest_main)
target_include_directories(dcukit_guard_tests PRIVATE ${PROJECT_SOURCE_DIR}/tests/common)
dcukit_test_program(dcukit_guard_tests)
target_compile_definitions(dcukit_guard_tests PRIVATE
  DCUKIT_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
  DCUKIT_BINARY="$<TARGET_FILE:dcukit>"
  DCUKIT_GUARD_SERVICE="$<TARGET_FILE:dcukit_guard_service>")
add_dependencies(dcukit_guard_tests dcukit dcukit_guard_service)
gtest_discover_tests(dcukit_guard_tests DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 120 LABELS "integration;guard")

# The soak (guard_soak.cpp): a short run under ctest checks that guard's descriptors and memory
# stay flat; the full run (1000 restarts) writes docs/results/guard-soak.md.
add_executable(dcukit_guard_soak guard_soak.cpp)
target_link_libraries(dcukit_guard_soak PRIVATE dcukit_lib dcukit_warnings)
add_dependencies(dcukit_guard_soak dcukit)
add_test(NAME guard_soak_short COMMAND dcukit_guard_soak --dcukit $<TARGET_FILE:dcukit> --restarts 150 --check)
set_tests_properties(guard_soak_short PROPERTIES TIMEOUT 300 LABELS "integration;guard")
