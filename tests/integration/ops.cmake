# The exporter's and patrol's integration tests: the real binary scraped over HTTP, checked with
# promtool and scraped by a real Prometheus (each skipped with a message where not installed),
# and patrol run against the fake server the load tests use.
dcukit_integration_program(dcukit_ops_tests
  SOURCES test_exporter_cli.cpp test_exporter_dashboards.cpp test_exporter_prometheus.cpp test_patrol_cli.cpp
  LINK dcukit_lib
  HELPERS dcukit_fake_server)
