#pragma once
// The one interface every backend implements (BabelStream's Stream<T>, kept that small).
// Work is enqueued in order on one of two streams of the current device; "enqueues" below
// means the call returns at once, "blocks" means it returns when the work is done.
// Errors come back as values naming the call, file, line and the runtime's message.
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "util/result.h"
#include "device/types.h"

namespace dcukit::device {

/// An event recorded on a stream; the backend owns what it points to.
using EventHandle = void*;

class Backend {
public:
  virtual ~Backend() = default;

  /// "cpu", "cuda" or "hip". Does not block.
  virtual std::string name() const = 0;
  /// Versions of the runtime, driver and BLAS this backend loaded, as (what, version) pairs.
  virtual std::vector<std::pair<std::string, std::string>> versions() = 0;

  /// Number of devices visible; 0 on a host without any. Blocks.
  virtual int device_count() = 0;
  /// Properties of device `index`. Blocks.
  virtual Result<DeviceInfo> device_info(int index) = 0;
  /// Makes `index` the calling thread's current device; later calls act on it. Blocks.
  virtual Status select(int index) = 0;
  /// Free and total memory of the current device. Blocks.
  virtual Result<MemInfo> memory_info() = 0;

  /// Allocates `bytes` of the given kind. Blocks.
  virtual Result<void*> allocate(MemKind kind, std::size_t bytes) = 0;
  /// Frees what allocate() returned. Blocks.
  virtual void release(MemKind kind, void* ptr) noexcept = 0;
  /// Page-locks host memory the caller allocated (for NUMA-placed buffers). Blocks.
  virtual Status pin(void* ptr, std::size_t bytes) = 0;
  /// Undoes pin(). Blocks.
  virtual Status unpin(void* ptr) = 0;

  /// Copies bytes between any two buffers (direction taken from the pointers). Enqueues on
  /// `stream` (0 or 1).
  virtual Status copy(void* dst, const void* src, std::size_t bytes, int stream) = 0;
  /// Sets n elements of fp32 or fp64 `dst` to value. Enqueues on stream 0.
  virtual Status fill(Precision type, void* dst, double value, std::size_t n) = 0;
  /// One STREAM kernel over n elements of fp32 or fp64 (see StreamOp). For dot, the sum is
  /// read with dot_result() after the work completes. Enqueues on stream 0.
  virtual Status stream(StreamOp op, Precision type, void* a, void* b, void* c, double scalar, std::size_t n) = 0;
  /// The sum computed by the last dot. Blocks.
  virtual Result<double> dot_result() = 0;
  /// An empty kernel, for launch latency. Enqueues on stream 0.
  virtual Status launch_empty() = 0;

  /// Empty if this device can run GEMM in `p`, else the reason it cannot. Blocks.
  virtual std::string gemm_unsupported(Precision p) = 0;
  /// C = Aᵀ·B through the vendor BLAS (see GemmArgs). Enqueues on stream 0.
  virtual Status gemm(const GemmArgs& args) = 0;

  /// Creates an event. Blocks.
  virtual Result<EventHandle> create_event() = 0;
  /// Records the event on `stream`. Enqueues.
  virtual Status record(EventHandle event, int stream) = 0;
  /// Milliseconds between two recorded events; waits for `end` up to `timeout`. Blocks.
  virtual Result<double> elapsed_ms(EventHandle start, EventHandle end, std::chrono::milliseconds timeout) = 0;
  /// Destroys an event. Blocks.
  virtual void destroy_event(EventHandle event) noexcept = 0;

  /// Waits for all work on the current device, up to `timeout`; running out is an error
  /// that says what was waited for. Blocks.
  virtual Status synchronize(std::chrono::milliseconds timeout) = 0;
};

/// Bumped whenever Backend or the types it uses change, so that a stale backend library
/// is refused with a message instead of crashing.
inline constexpr int kBackendAbiVersion = 1;

/// The symbol each backend library exports:
///   extern "C" dcukit::device::Backend* dcukit_create_backend(int abi_version, std::string* error);
/// It returns nullptr and sets *error when the runtime is missing or broken.
inline constexpr const char* kBackendFactorySymbol = "dcukit_create_backend";
using BackendFactory = Backend* (*)(int abi_version, std::string* error);

} // namespace dcukit::device
