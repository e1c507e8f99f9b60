#pragma once
// The interface every backend implements (BabelStream's Stream<T>, kept that small).
//
// A Backend is a factory: it counts and describes the devices of one runtime and opens a
// Device, a handle on one device index with its own streams, events and scratch. Every Device
// call acts on that Device alone: the GPU backends make its index current on the calling thread
// inside each call (a cheap check first), so there is no process-wide "current device" and two
// threads may each drive their own Device without racing. One Device is used by one thread at
// a time. Copies between two Devices go through the Backend, which sees both.
//
// "Enqueues" below: the call returns once the work is queued on the given stream, in order with
// the work queued before it there. "Blocks": it returns when it is done. Every wait takes a
// deadline and fails with an error naming what was waited for. Errors come back as values
// naming the call, file, line and the runtime's message.
#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "device/types.h"
#include "util/result.h"

namespace dcukit::device {

class Device;

/// A stream of one Device: work enqueued on it runs in order; work on two streams may overlap.
/// A typed handle: copying it does not copy the stream. The Device that created it owns the
/// stream and destroys it with itself; any other Device refuses it.
struct Stream {
  const Device* owner = nullptr;  ///< the Device that created it
  void* impl = nullptr;           ///< the backend's own (a cudaStream_t); read only by the owner

  bool valid() const { return owner != nullptr && impl != nullptr; }
};

/// A point recorded on a stream, for timing. Made by Device::create_event and given back with
/// destroy_event; only its Device reads it.
struct Event {
  const Device* owner = nullptr;
  void* impl = nullptr;

  bool valid() const { return owner != nullptr && impl != nullptr; }
};

/// One device of a backend, opened by Backend::open.
class Device {
public:
  virtual ~Device() = default;

  /// Its index within the backend. Does not block.
  virtual int index() const = 0;
  /// Free and total memory of the device. Blocks.
  virtual Result<MemInfo> memory_info() = 0;

  /// Allocates `bytes` of the given kind (device memory is this Device's). Blocks.
  virtual Result<void*> allocate(MemKind kind, std::size_t bytes) = 0;
  /// Frees what allocate() returned. Blocks.
  virtual void release(MemKind kind, void* ptr) noexcept = 0;
  /// Page-locks host memory the caller allocated (for NUMA-placed buffers). Blocks.
  virtual Status pin(void* ptr, std::size_t bytes) = 0;
  /// Undoes pin(). Blocks.
  virtual Status unpin(void* ptr) = 0;

  /// A new stream, owned by this Device until the Device is destroyed. Blocks.
  virtual Result<Stream> create_stream() = 0;
  /// Copies bytes between host memory and this Device's memory, or within either (the
  /// direction is taken from the pointers). Enqueues on `stream`.
  virtual Status copy(void* dst, const void* src, std::size_t bytes, Stream stream) = 0;
  /// Sets n elements of fp32 or fp64 `dst` to value. Enqueues on `stream`.
  virtual Status fill(Precision type, void* dst, double value, std::size_t n, Stream stream) = 0;
  /// One STREAM kernel over n elements of fp32 or fp64 (see StreamOp). A dot's sum is read with
  /// dot_result(); the Device has one dot scratch, so dots run on one stream at a time.
  /// Enqueues on `stream`.
  virtual Status stream_op(StreamOp op, Precision type, void* a, void* b, void* c, double scalar, std::size_t n,
                           Stream stream) = 0;
  /// The sum computed by the last dot, which ran on `stream`; waits for it up to `timeout`. Blocks.
  virtual Result<double> dot_result(Stream stream, std::chrono::milliseconds timeout) = 0;
  /// An empty kernel, for launch latency. Enqueues on `stream`.
  virtual Status launch_empty(Stream stream) = 0;
  /// A pointer chase, for memory latency: one thread follows i = chain[i] `steps` times from 0,
  /// each load waiting for the one before, and writes the last i to *out (this Device's memory).
  /// `chain` may be a peer's memory. Enqueues on `stream`.
  virtual Status chase(const std::uint32_t* chain, std::uint64_t steps, std::uint32_t* out, Stream stream) = 0;

  /// Empty if this device can run GEMM in `p`, else the reason it cannot. Blocks.
  virtual std::string gemm_unsupported(Precision p) = 0;
  /// C = Aᵀ·B through the vendor BLAS (see GemmArgs). Enqueues on `stream`.
  virtual Status gemm(const GemmArgs& args, Stream stream) = 0;

  /// Creates an event of this Device. Blocks.
  virtual Result<Event> create_event() = 0;
  /// Records the event on `stream`. Enqueues.
  virtual Status record(Event event, Stream stream) = 0;
  /// Milliseconds between two recorded events; waits for both up to `timeout`. Blocks.
  virtual Result<double> elapsed_ms(Event start, Event end, std::chrono::milliseconds timeout) = 0;
  /// Destroys an event. Blocks.
  virtual void destroy_event(Event event) noexcept = 0;

  /// Waits for the work on every stream of this Device, up to `timeout`; running out is an
  /// error that says what was waited for. Blocks.
  virtual Status synchronize(std::chrono::milliseconds timeout) = 0;
};

/// One runtime: the factory of its Devices.
class Backend {
public:
  virtual ~Backend() = default;

  /// cpu, cuda or hip. Does not block.
  virtual BackendKind kind() const = 0;
  /// Versions of the runtime, driver and BLAS this backend loaded, as (what, version) pairs. Blocks.
  virtual std::vector<std::pair<std::string, std::string>> versions() = 0;
  /// Number of devices visible; 0 on a host without any. Blocks.
  virtual int device_count() = 0;
  /// Properties of device `index`, without opening it. Blocks.
  virtual Result<DeviceInfo> device_info(int index) = 0;
  /// Opens device `index`: a new handle with its own streams, events and scratch. Two handles
  /// of one index are independent. A Device must not outlive its Backend. Blocks.
  virtual Result<std::unique_ptr<Device>> open(int index) = 0;

  /// Whether `from` can read and write `to`'s memory directly (true for one index). Blocks.
  virtual Result<bool> can_access_peer(const Device& from, const Device& to) = 0;
  /// Lets `from` reach `to`'s memory; enabling a pair again is not an error. Blocks.
  virtual Status enable_peer_access(Device& from, Device& to) = 0;
  /// Copies bytes from `src` (memory of src_device) to `dst` (memory of dst_device), directly
  /// where peer access is enabled, else through the host by the runtime. `stream` belongs to
  /// one of the two. Enqueues on `stream`.
  virtual Status copy_peer(Device& dst_device, void* dst, Device& src_device, const void* src, std::size_t bytes,
                           Stream stream) = 0;
};

/// Bumped whenever Backend, Device or the types they use change, so that a stale backend
/// library is refused with a message instead of crashing.
inline constexpr int kBackendAbiVersion = 3;

/// The symbol each backend library exports:
///   extern "C" dcukit::device::Backend* dcukit_create_backend(int abi_version, std::string* error);
/// It returns nullptr and sets *error when the runtime is missing or broken.
inline constexpr const char* kBackendFactorySymbol = "dcukit_create_backend";
using BackendFactory = Backend* (*)(int abi_version, std::string* error);

}  // namespace dcukit::device
