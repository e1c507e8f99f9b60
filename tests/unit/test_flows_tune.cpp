// tune's parts without an engine: the grid, the cards watched, the memory watch over a vendor
// tool's output in a file, and what an engine's log says about memory.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <thread>

#include "flows/tune.h"
#include "flows/tune_memory.h"
#include "flows/tune_setting.h"
#include "tempdir.h"

using namespace dcukit;

namespace {

TEST(FlowsTune, TheGridIsTheProductOfItsAxesInOrder) {
  const auto g = flows::expand_grid({{"max-num-seqs", {"64", "128"}}, {"max-num-batched-tokens", {"2048", "8192"}}});
  ASSERT_EQ(g.size(), 4U);
  EXPECT_EQ(g[0], (std::vector<std::string>{"--max-num-seqs", "64", "--max-num-batched-tokens", "2048"}));
  EXPECT_EQ(g[3], (std::vector<std::string>{"--max-num-seqs", "128", "--max-num-batched-tokens", "8192"}));
  EXPECT_EQ(flows::expand_grid({}).size(), 1U) << "no axis: the engine's defaults, once";
  for (const auto& [name, values] : flows::default_grid(flows::Engine::vllm))
    EXPECT_NE(name, "gpu-memory-utilization") << "vLLM's utilization is probed, not a grid axis";
}

TEST(FlowsTune, TheCardsWatchedAreTheVisibleOnesByIndex) {
  EXPECT_EQ(flows::visible_devices("2,3", nullptr), (std::set<int>{2, 3}));
  EXPECT_EQ(flows::visible_devices(nullptr, "1"), (std::set<int>{1}));
  EXPECT_EQ(flows::visible_devices("", "0,1"), (std::set<int>{0, 1}));
  EXPECT_TRUE(flows::visible_devices(nullptr, nullptr).empty()) << "none named: every card";
  EXPECT_TRUE(flows::visible_devices("GPU-5e5a4c1e-aaaa", nullptr).empty()) << "a UUID: the index is not known";
  EXPECT_TRUE(flows::visible_devices("0,,1", nullptr).empty());
}

void write_smi(const std::string& path, int used0, int used1) {
  std::ofstream(path) << "index, name, pci.bus_id, memory.used [MiB], memory.total [MiB]\n"
                      << "0, NVIDIA H200, 00000000:18:00.0, " << used0 << " MiB, 143771 MiB\n"
                      << "1, NVIDIA H200, 00000000:2A:00.0, " << used1 << " MiB, 143771 MiB\n";
}

TEST(FlowsTune, TheWatchKeepsTheFullestWatchedCardAndSaysWhenItPassesTheLimit) {
  testutil::TempDir dir("tune_watch");
  const std::string smi = dir.file("smi.csv");
  write_smi(smi, 100000, 130000);
  flows::MemoryWatch all(smi, 0.95, {});
  all.start(std::chrono::milliseconds(20));
  ASSERT_TRUE(all.peak());
  EXPECT_EQ(all.peak()->device, 1);
  EXPECT_FALSE(all.over()) << "130000 of 143771 MiB is 90%";
  write_smi(smi, 100000, 140000);  // 97.4%
  for (int i = 0; i < 200 && !all.over(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  all.stop();
  EXPECT_TRUE(all.over());
  EXPECT_EQ(all.describe(*all.peak()), "card 1 at 97.4% of its memory (140000 of 143771 MiB), over the limit of 95%");
  all.reset();
  EXPECT_FALSE(all.over());
  EXPECT_FALSE(all.peak());

  flows::MemoryWatch first(smi, 0.95, {0});  // CUDA_VISIBLE_DEVICES=0: card 1 is another service's
  first.start(std::chrono::milliseconds(20));
  first.stop();
  ASSERT_TRUE(first.peak());
  EXPECT_EQ(first.peak()->device, 0);
  EXPECT_FALSE(first.over());
}

TEST(FlowsTune, AWatchThatReadsNothingSaysWhy) {
  testutil::TempDir dir("tune_watch_none");
  flows::MemoryWatch missing(dir.file("absent.csv"), 0.95, {});
  missing.start(std::chrono::milliseconds(20));
  missing.stop();
  EXPECT_FALSE(missing.peak());
  EXPECT_NE(missing.missing().find("absent.csv"), std::string::npos) << missing.missing();
  const std::string smi = dir.file("smi.csv");
  write_smi(smi, 1, 1);
  flows::MemoryWatch other(smi, 0.95, {5});
  other.start(std::chrono::milliseconds(20));
  other.stop();
  EXPECT_FALSE(other.peak());
  EXPECT_NE(other.missing().find("no watched card"), std::string::npos) << other.missing();
}

TEST(FlowsTune, OutOfMemoryIsReadFromTheEnginesOwnWords) {
  EXPECT_TRUE(flows::says_out_of_memory("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"));
  EXPECT_TRUE(flows::says_out_of_memory("RuntimeError: HIP error: hipErrorOutOfMemory"));
  EXPECT_TRUE(flows::says_out_of_memory(
      "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization`"));
  EXPECT_TRUE(flows::says_out_of_memory("ggml_backend_cuda_buffer_type_alloc_buffer: allocating 8192.00 MiB on device 0: "
                                        "cudaMalloc failed: out of memory"));
  EXPECT_FALSE(flows::says_out_of_memory("INFO: Started server process [4242]"));
}

}  // namespace
