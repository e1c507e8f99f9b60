# The exporter's and patrol's integration tests: the real binary scraped over HTTP, checked with
# promtool and scraped by a real Prometheus (each skipped with a message where not installed),
# and patrol run against the fake server the load tests use.
add_executable(dcukit_ops_tests test_exporter_cli.cpp test_exporter_dashboards.cpp test_exporter_prometheus.cpp
                                test_patrol_cli.cpp)
target_link_libraries(dcukit_ops_tests PRIVATE dcukit_lib dcukit_warnings nlohmann_json::nlohmann_json
                      GTest::gtest_main)
target_include_directories(dcukit_ops_tests PRIVATE ${PROJECT_SOURCE_DIR}/tests/common)
dcukit_test_program(dcukit_ops_tests)
target_compile_definitions(dcukit_ops_tests PRIVATE
  DCUKIT_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
  DCUKIT_BINARY="$<TARGET_FILE:dcukit>"
  DCUKIT_FAKE_SERVER="$<TARGET_FILE:dcukit_fake_server>")
add_dependencies(dcukit_ops_tests dcukit dcukit_fake_server)
gtest_discover_tests(dcukit_ops_tests DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 120 LABELS "integration;ops")
