# The commands' own tests that run the real binary (their parsing, outputs, exit codes and how
# they speak), beside the in-process runs of cli_run.h; the unit tests run no process of dcukit.
add_executable(dcukit_cli_tests test_cli_app.cpp test_cli_bench.cpp test_cli_grammar.cpp test_cli_presentation.cpp
                                test_doctor_cli.cpp test_telemetry_cli.cpp)
target_link_libraries(dcukit_cli_tests PRIVATE dcukit_lib dcukit_warnings nlohmann_json::nlohmann_json
                      GTest::gtest_main)
target_include_directories(dcukit_cli_tests PRIVATE ${PROJECT_SOURCE_DIR}/tests/common)
dcukit_test_program(dcukit_cli_tests)
target_compile_definitions(dcukit_cli_tests PRIVATE
  DCUKIT_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
  DCUKIT_FIXTURES="${PROJECT_SOURCE_DIR}/tests/fixtures"
  DCUKIT_BINARY="$<TARGET_FILE:dcukit>")
add_dependencies(dcukit_cli_tests dcukit)
gtest_discover_tests(dcukit_cli_tests DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 300 LABELS "integration;cli")
