// doctor's smoke test: the kernel and GEMM checks through a backend (the CPU backend stands in for
// a GPU), and a host without a GPU backend skipping cleanly.
#include <gtest/gtest.h>

#include "device/cpu/cpu_backend.h"
#include "doctor/smoke.h"

using namespace dcukit::doctor;

TEST(DoctorSmoke, AKernelAndAGemmCheckedThroughABackend) {
  dcukit::device::cpu::CpuBackend cpu;
  const auto findings = smoke_backend(cpu, "cpu", std::chrono::milliseconds(30000));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].id, "smoke.compute");
  EXPECT_EQ(findings[0].subject, "cpu device 0");
  EXPECT_EQ(findings[0].status, Verdict::ok) << (findings[0].evidence.empty() ? "" : findings[0].evidence.back());
  EXPECT_NE(findings[0].summary.find("kernel and GEMM correct"), std::string::npos);
}

TEST(DoctorSmoke, WithoutAGpuBackendItSkipsOrPasses) {
  const auto r = run_smoke(std::chrono::milliseconds(60000));
  EXPECT_FALSE(r.hung);
  ASSERT_FALSE(r.findings.empty());
  for (const auto& f : r.findings) {
    EXPECT_EQ(f.id, "smoke.compute");
    // A CPU-only build has no GPU backend: one skip naming why; a GPU host passes.
    EXPECT_TRUE(f.status == Verdict::skip || f.status == Verdict::ok) << f.summary;
    if (f.status == Verdict::skip) {
      EXPECT_EQ(f.summary, "no GPU backend with a device");
      EXPECT_FALSE(f.evidence.empty());
    }
  }
}
