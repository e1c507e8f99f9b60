// slurm-check's parts without a Slurm: scontrol's node line read, the deadline refused where
// patrol would have no time, and NHC's exit codes. (The whole check runs under a real Slurm in
// scripts/check_slurm.sh.)
#include <gtest/gtest.h>

#include "flows/slurm_check.h"

using namespace dcukit;

namespace {

TEST(FlowsSlurmCheck, ScontrolsNodeLineIsReadWithoutItsStamp) {
  // `scontrol show node vm -o` on Slurm 22.05, shortened in the middle.
  const auto drained = flows::parse_node_state(
      "NodeName=vm Arch=x86_64 CoresPerSocket=1 CPUAlloc=0 CPUTot=2 State=IDLE+DRAIN ThreadsPerCore=1 "
      "Partitions=test BootTime=2026-12-05T14:31:55 Reason=dcukit: devices count: 4 devices found, 5 expected "
      "[root@2026-12-06T04:32:23]\n");
  ASSERT_TRUE(drained) << drained.error().message;
  EXPECT_EQ(drained->state, "IDLE+DRAIN");
  EXPECT_EQ(drained->reason, "dcukit: devices count: 4 devices found, 5 expected");
  EXPECT_TRUE(drained->drained());
  EXPECT_TRUE(drained->ours());
  const auto idle = flows::parse_node_state("NodeName=vm State=IDLE ThreadsPerCore=1 Partitions=test\n");
  ASSERT_TRUE(idle);
  EXPECT_FALSE(idle->drained());
  EXPECT_TRUE(idle->reason.empty());
  const auto hand = flows::parse_node_state("NodeName=vm State=IDLE+DRAIN Reason=hand: cooling fan [root@2026-12-06T04:32:23]");
  ASSERT_TRUE(hand);
  EXPECT_FALSE(hand->ours());
  EXPECT_FALSE(flows::parse_node_state("slurm_load_node error: Unable to contact slurm controller"));
}

TEST(FlowsSlurmCheck, ADeadlineThatLeavesPatrolNoTimeIsRefused) {
  flows::SlurmCheckRequest r;
  r.deadline = std::chrono::seconds(5);
  EXPECT_FALSE(flows::check_slurm_check(r));
  r.deadline = std::chrono::seconds(10);
  EXPECT_TRUE(flows::check_slurm_check(r));
  r.tier = flows::NodeTier::epilog;
  EXPECT_FALSE(flows::check_slurm_check(r)) << "stress level 2 needs 30 s";
}

TEST(FlowsSlurmCheck, ExitCodesAreNhcs) {
  flows::SlurmCheckReport r;
  r.verdict = flows::NodeVerdict::pass;
  r.action = "resumed";
  EXPECT_EQ(r.exit_code(), 0);
  r.action = "left alone: drained by another's reason (hand: cooling fan)";
  EXPECT_EQ(r.exit_code(), 1) << "the node is still out";
  r.verdict = flows::NodeVerdict::fail;
  r.action = "drained";
  EXPECT_EQ(r.exit_code(), 1);
  r.verdict = flows::NodeVerdict::unknown;
  EXPECT_EQ(r.exit_code(), 3);
}

}  // namespace
