#pragma once
// The CPU backend: always present. Host threads run the STREAM kernels and copies, OpenBLAS
// runs GEMM. Work runs synchronously, so "enqueue" returns when it is done and events are
// host timestamps. The tests use it as the reference for every benchmark.
#include <chrono>
#include <string>

#include "device/backend.h"

namespace dcukit::device::cpu {

class CpuBackend final : public Backend {
public:
  std::string name() const override { return "cpu"; }
  std::vector<std::pair<std::string, std::string>> versions() override;
  int device_count() override { return 1; }
  Result<DeviceInfo> device_info(int index) override;
  Status select(int index) override;
  Result<MemInfo> memory_info() override;

  Result<void*> allocate(MemKind kind, std::size_t bytes) override;
  void release(MemKind kind, void* ptr) noexcept override;
  Status pin(void*, std::size_t) override { return {}; }
  Status unpin(void*) override { return {}; }

  Status copy(void* dst, const void* src, std::size_t bytes, int stream) override;
  Status fill(Precision type, void* dst, double value, std::size_t n) override;
  Status stream(StreamOp op, Precision type, void* a, void* b, void* c, double scalar, std::size_t n) override;
  Result<double> dot_result() override { return m_dot; }
  Status launch_empty() override;

  std::string gemm_unsupported(Precision p) override;
  Status gemm(const GemmArgs& args) override;

  Result<EventHandle> create_event() override;
  Status record(EventHandle event, int stream) override;
  Result<double> elapsed_ms(EventHandle start, EventHandle end, std::chrono::milliseconds timeout) override;
  void destroy_event(EventHandle event) noexcept override;
  Status synchronize(std::chrono::milliseconds) override { return {}; }

private:
  double m_dot = 0;
};

} // namespace dcukit::device::cpu
