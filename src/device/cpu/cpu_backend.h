#pragma once
// The CPU backend: always present. Host threads run the STREAM kernels and copies, OpenBLAS
// runs GEMM. Work runs synchronously, so "enqueue" returns when it is done, streams are names
// and events are host timestamps. The tests use it as the reference for every benchmark.
//
// It shows one device, the host; a test may ask for more, which share the host's memory, so
// that the multi-device parts of the interface (two Devices on two threads, peer copies) are
// exercised on any machine.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "device/backend.h"

namespace dcukit::device::cpu {

/// One opened CPU device: its own stream names and dot result.
class CpuDevice final : public Device {
public:
  /// Reads the test-only fault switch, DCUKIT_CPU_FAULTS="gemm=N,readback=N": from the Nth GEMM
  /// on, every output has a bit flipped, each time at another element (a device gone bad
  /// mid-run, computing silent wrong numbers); every Nth read-back of 1 MiB or more from device
  /// memory has a byte flipped (a memory cell that reads wrong). For the tests of `dcukit
  /// stress`, which must catch both; unset, nothing is changed.
  explicit CpuDevice(int index);

  int index() const override { return m_index; }
  Result<MemInfo> memory_info() override;

  Result<void*> allocate(MemKind kind, std::size_t bytes) override;
  void release(MemKind kind, void* ptr) noexcept override;
  Status pin(void*, std::size_t) override { return {}; }
  Status unpin(void*) override { return {}; }

  Result<Stream> create_stream() override;
  Status copy(void* dst, const void* src, std::size_t bytes, Stream stream) override;
  Status fill(Precision type, void* dst, double value, std::size_t n, Stream stream) override;
  Status stream_op(StreamOp op, Precision type, void* a, void* b, void* c, double scalar, std::size_t n,
                   Stream stream) override;
  Result<double> dot_result(Stream stream, std::chrono::milliseconds timeout) override;
  Status launch_empty(Stream stream) override;
  Status chase(const std::uint32_t* chain, std::uint64_t steps, std::uint32_t* out, Stream stream) override;

  std::string gemm_unsupported(Precision p) override;
  Status gemm(const GemmArgs& args, Stream stream) override;

  Result<Event> create_event() override;
  Status record(Event event, Stream stream) override;
  Result<double> elapsed_ms(Event start, Event end, std::chrono::milliseconds timeout) override;
  void destroy_event(Event event) noexcept override;
  Status synchronize(std::chrono::milliseconds) override { return {}; }

  /// Success when `stream` was created by this Device, else an error naming both devices.
  Status check(Stream stream) const;

private:
  Status check(Event event) const;

  int m_index;
  std::uintptr_t m_streams = 0;  ///< streams created so far; a stream's impl is its number
  double m_dot = 0;
  int m_gemm_fault = 0, m_readback_fault = 0;  ///< DCUKIT_CPU_FAULTS: every Nth, 0 never
  long long m_gemms = 0, m_readbacks = 0;
  std::vector<std::pair<const char*, std::size_t>>
      m_device_memory;  ///< with faults on: what allocate gave as device memory
};

class CpuBackend final : public Backend {
public:
  /// `devices`: how many devices to show (1 in dcukit; tests ask for more).
  explicit CpuBackend(int devices = 1) : m_devices(devices) {}

  BackendKind kind() const override { return BackendKind::cpu; }
  std::vector<std::pair<std::string, std::string>> versions() override;
  int device_count() override { return m_devices; }
  Result<DeviceInfo> device_info(int index) override;
  Result<std::unique_ptr<Device>> open(int index) override;

  Result<bool> can_access_peer(const Device& from, const Device& to) override;
  Status enable_peer_access(Device& from, Device& to) override;
  Status copy_peer(Device& dst_device, void* dst, Device& src_device, const void* src, std::size_t bytes,
                   Stream stream) override;

private:
  Status check_index(int index) const;

  int m_devices;
};

}  // namespace dcukit::device::cpu
