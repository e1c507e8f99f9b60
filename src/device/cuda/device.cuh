#pragma once
// GpuDevice: one opened CUDA or HIP device (device.cu). Every call first makes its index current
// on the calling thread (bind()), so a Device never depends on what another thread selected.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "device/backend.h"
#include "device/cuda/blas.cuh"
#include "device/cuda/kernels.cuh"

namespace dcukit::device::gpu {

class GpuDevice final : public Device {
public:
  explicit GpuDevice(int index) : m_index(index) {}
  /// Frees the BLAS, the dot scratch and the streams with the device current.
  ~GpuDevice() override;
  GpuDevice(const GpuDevice&) = delete;
  GpuDevice& operator=(const GpuDevice&) = delete;

  /// Reads the properties and makes the dot scratch; waits up to `timeout` for its clearing.
  Status init(std::chrono::milliseconds timeout);

  int index() const override { return m_index; }
  Result<MemInfo> memory_info() override;

  Result<void*> allocate(MemKind kind, std::size_t bytes) override;
  void release(MemKind kind, void* ptr) noexcept override;
  Status pin(void* ptr, std::size_t bytes) override;
  Status unpin(void* ptr) override;

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
  Status synchronize(std::chrono::milliseconds timeout) override;

  /// Makes this device current on the calling thread; a no-op when it already is. Cheap.
  Status bind() const;
  /// The runtime stream behind `stream`, or an error when this device did not create it.
  Result<cudaStream_t> native(Stream stream) const;
  /// "device 0 (NVIDIA H200)", for messages.
  std::string label() const;

private:
  /// Polls one stream until idle or `timeout`; the error names `what` and this device.
  Status wait(cudaStream_t stream, std::chrono::milliseconds timeout, const std::string& what) const;
  Result<Event> checked(Event event) const;
  Result<Blas*> blas();

  int m_index;
  int m_sms = 1;
  std::string m_name;
  std::vector<cudaStream_t> m_streams;  ///< [0] is internal (scratch set-up); the rest were handed out
  DotScratch m_dot;
  double* m_dot_host = nullptr;  ///< pinned, receives the sum
  std::unique_ptr<Blas> m_blas;  ///< created on first use: loading the BLAS is slow
};

}  // namespace dcukit::device::gpu
