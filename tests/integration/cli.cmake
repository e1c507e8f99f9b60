# The commands' own tests that run the real binary (their parsing, outputs, exit codes and how
# they speak), beside the in-process runs of cli_run.h; the unit tests run no process of dcukit.
dcukit_integration_program(dcukit_cli_tests
  SOURCES test_cli_app.cpp test_cli_bench.cpp test_cli_grammar.cpp test_cli_presentation.cpp test_doctor_cli.cpp
          test_stress_cli.cpp test_telemetry_cli.cpp
  LINK dcukit_lib
  TIMEOUT 300)
