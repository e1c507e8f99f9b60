#include "bench/group.h"

#include "bench/benchmark.h"

namespace dcukit::bench {

std::unique_ptr<GroupBenchmark> make_p2p_benchmark();
std::unique_ptr<GroupBenchmark> make_collectives_benchmark();

std::vector<std::unique_ptr<GroupBenchmark>> all_group_benchmarks() {
  std::vector<std::unique_ptr<GroupBenchmark>> v;
  v.push_back(make_p2p_benchmark());
  v.push_back(make_collectives_benchmark());
  return v;
}

std::vector<std::string> benchmark_keys() {
  std::vector<std::string> keys;
  for (const auto& b : all_benchmarks()) keys.push_back(b->key());
  for (const auto& b : all_group_benchmarks()) keys.push_back(b->key());
  return keys;
}

Context GroupContext::of(std::size_t i) {
  Member& m = members.at(i);
  return Context{*m.device, kind, m.stream, m.second, *m.info, m.spec, options, deadline, progress, stop};
}

}  // namespace dcukit::bench
