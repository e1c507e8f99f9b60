#include "bench/benchmark.h"

namespace dcukit::bench {

std::unique_ptr<Benchmark> make_gemm_benchmark();
std::unique_ptr<Benchmark> make_memory_benchmark();
std::unique_ptr<Benchmark> make_transfer_benchmark();
std::unique_ptr<Benchmark> make_latency_benchmark();

std::vector<std::unique_ptr<Benchmark>> all_benchmarks() {
  std::vector<std::unique_ptr<Benchmark>> v;
  v.push_back(make_gemm_benchmark());
  v.push_back(make_memory_benchmark());
  v.push_back(make_transfer_benchmark());
  v.push_back(make_latency_benchmark());
  return v;
}

Measurement new_case(const std::string& benchmark, const std::string& name) {
  Measurement m;
  m.benchmark = benchmark;
  m.name = name;
  return m;
}

Measurement failed_case(const std::string& benchmark, const std::string& name, const std::string& reason,
                        Outcome outcome) {
  Measurement m = new_case(benchmark, name);
  m.outcome = outcome;
  m.reason = reason;
  return m;
}

Measurement mark_failed(Measurement m, const std::string& why) {
  m.outcome = Outcome::failed;
  m.reason = why;
  if (!m.samples_ms.empty()) m.time_ms = core::summarize(m.samples_ms);
  return m;
}

}  // namespace dcukit::bench
