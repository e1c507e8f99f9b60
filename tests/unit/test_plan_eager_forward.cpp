// The caching allocator's model and the eager forward pass replayed through it, held against
// what PyTorch's own allocator did on an H200 (docs/results/h200-alloc-probe.json, written by
// scripts/device/alloc_probe.py) and against the PyTorch peaks vLLM 0.6.4 printed.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "fixture_model.h"
#include "plan/eager_forward.h"
#include "plan/torch_allocator.h"

using namespace dcukit::plan;

namespace {
constexpr double kGiB = 1024.0 * 1024 * 1024;
constexpr std::uint64_t kMiB = 1ULL << 20;

ModelConfig model(const std::string& name) {
  return testutil::fixture_model(name);
}
}  // namespace

TEST(PlanTorchAllocator, SegmentsSplitsAndMerges) {
  CachingAllocator a;
  const auto small = a.malloc(100);
  EXPECT_EQ(a.reserved(), 2 * kMiB);  // a small request takes a 2 MiB segment
  const auto mid = a.malloc(5 * kMiB);
  EXPECT_EQ(a.reserved(), 22 * kMiB);  // under 10 MiB: a 20 MiB segment
  const auto big = a.malloc(100 * kMiB);
  EXPECT_EQ(a.reserved(), 122 * kMiB);
  EXPECT_EQ(a.allocated(), 512 + 5 * kMiB + 100 * kMiB);  // 100 bytes round up to 512
  a.free(big);
  const auto part = a.malloc(60 * kMiB);  // served from the cached 100 MiB block, split
  EXPECT_EQ(a.reserved(), 122 * kMiB);
  const auto other = a.malloc(50 * kMiB);  // 40 MiB left there: a new segment
  EXPECT_EQ(a.reserved(), 172 * kMiB);
  a.free(part);
  const auto whole = a.malloc(100 * kMiB);  // the freed 60 MiB merged with the 40 MiB rest
  EXPECT_EQ(a.reserved(), 172 * kMiB);
  EXPECT_EQ(a.peak(), 512 + 155 * kMiB);  // 5 + 50 + 100 MiB and the small block
  for (auto h : {small, mid, other, whole}) a.free(h);
  EXPECT_EQ(a.allocated(), 0u);
  a.free(whole);  // a second free of a handle does nothing
  EXPECT_EQ(a.allocated(), 0u);
}

TEST(PlanTorchAllocator, SmallAndLargeRequestsKeepToTheirPools) {
  CachingAllocator a;
  (void)a.malloc(100);         // a 2 MiB small segment, nearly all of it cached
  (void)a.malloc(kMiB + 512);  // fits that rest, but a large request takes a segment of its own
  EXPECT_EQ(a.reserved(), 22 * kMiB);
  (void)a.malloc(1000);  // and a small one the small segment's rest
  EXPECT_EQ(a.reserved(), 22 * kMiB);
}

TEST(PlanEagerForward, ReproducesPyTorchsAllocatorOnTheH200) {
  std::ifstream in(std::string(DCUKIT_SOURCE_DIR) + "/docs/results/h200-alloc-probe.json");
  ASSERT_TRUE(in) << "docs/results/h200-alloc-probe.json is missing";
  const auto probe = nlohmann::json::parse(in);
  struct Case {
    const char* run;  // the probe's name for it
    const char* model;
    int tp;
    std::int64_t tokens;
  };
  const Case cases[] = {
      {"llama-3.1-8b tp1 29000 (vllm-issue10517: vLLM printed 2.99 GiB allocated)", "llama-3.1-8b-instruct", 1, 29000},
      {"llama-3.1-405b tp8 131072 (lhl-mi300x-llama31-405b-tp8)", "llama-3.1-405b-instruct", 8, 131072},
      {"llama-2-7b tp1 4096 (lhl-mi300x-llama2-7b-tp1)", "llama-2-7b-chat-hf", 1, 4096},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.run);
    ASSERT_TRUE(probe["runs"].contains(c.run));
    const auto& measured = probe["runs"][c.run];
    const auto f = eager_forward(model(c.model), c.tp, c.tokens, 2.0);
    ASSERT_TRUE(f.has_value());
    EXPECT_NEAR(f->allocated_peak / kGiB, measured["allocated_peak_gib"].get<double>(), 0.01);
    EXPECT_NEAR(f->reserved / kGiB, measured["reserved_after_gib"].get<double>(), 0.01);
  }
}

TEST(PlanEagerForward, ThePeaksVllmPrinted) {
  // vllm-issue10517 (0.6.4, RTX 3090, Llama-3.1-8B): peak_torch_memory minus the weights,
  // 17.06 - 14.99 and 17.98 - 14.99 GiB, at max-num-batched-tokens 20,000 and 29,000.
  const auto m = model("llama-3.1-8b-instruct");
  EXPECT_NEAR(eager_forward(m, 1, 20000, 2.0)->allocated_peak / kGiB, 2.07, 0.02);
  EXPECT_NEAR(eager_forward(m, 1, 29000, 2.0)->allocated_peak / kGiB, 2.99, 0.02);
}

TEST(PlanEagerForward, OnlyDenseLayers) {
  EXPECT_FALSE(eager_forward(model("deepseek-v2-lite"), 1, 2048, 2.0).has_value());  // MoE and MLA
  EXPECT_FALSE(eager_forward(model("qwen3-next-80b-a3b-instruct"), 1, 2048, 2.0).has_value());
  EXPECT_FALSE(eager_forward(model("llama-3.1-8b-instruct"), 1, 0, 2.0).has_value());
  EXPECT_TRUE(eager_forward(model("qwen2.5-7b-instruct"), 2, 2048, 2.0).has_value());
}
