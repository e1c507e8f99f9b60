// GpuDevice (device.cuh): one opened device of the CUDA or HIP backend. Each call binds the
// device to the calling thread first; waits poll with a deadline (poll_until, common.cuh).
#include <algorithm>
#include <cstdlib>

#include "device/cuda/device.cuh"

namespace dcukit::device::gpu {

GpuDevice::~GpuDevice() {
  if (!bind()) return;  // the runtime is gone: nothing to free
  m_blas.reset();
  if (m_dot_host) (void)cudaFreeHost(m_dot_host);
  if (m_dot.partials) (void)cudaFree(m_dot.partials);
  if (m_dot.counter) (void)cudaFree(m_dot.counter);
  if (m_dot.result) (void)cudaFree(m_dot.result);
  for (auto s : m_streams)
    if (s) (void)cudaStreamDestroy(s);
}

Status GpuDevice::bind() const {
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess && current == m_index) return {};
  DCUKIT_CHECK(cudaSetDevice(m_index));
  return {};
}

std::string GpuDevice::label() const {
  return "device " + std::to_string(m_index) + (m_name.empty() ? "" : " (" + m_name + ")");
}

Status GpuDevice::init(std::chrono::milliseconds timeout) {
  if (auto st = bind(); !st) return st;
  cudaDeviceProp prop{};
  DCUKIT_CHECK(cudaGetDeviceProperties(&prop, m_index));
  m_sms = std::max(1, prop.multiProcessorCount);
  m_name = prop.name;
  cudaStream_t internal = nullptr;
  DCUKIT_CHECK(cudaStreamCreateWithFlags(&internal, cudaStreamNonBlocking));
  m_streams.push_back(internal);
  // Enough partials for any resident-block count (≤ 64 blocks of 256 threads per SM/CU).
  m_dot.capacity = m_sms * 64;
  DCUKIT_CHECK(cudaMalloc(reinterpret_cast<void**>(&m_dot.partials), sizeof(double) * m_dot.capacity));
  DCUKIT_CHECK(cudaMalloc(reinterpret_cast<void**>(&m_dot.counter), sizeof(unsigned)));
  DCUKIT_CHECK(cudaMalloc(reinterpret_cast<void**>(&m_dot.result), sizeof(double)));
  DCUKIT_CHECK(cudaMemsetAsync(m_dot.counter, 0, sizeof(unsigned), internal));
  DCUKIT_CHECK(cudaMemsetAsync(m_dot.result, 0, sizeof(double), internal));
  DCUKIT_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&m_dot_host), sizeof(double), cudaHostAllocDefault));
  // A dot on any stream reads the counter: it must be zero before a stream is handed out.
  return wait(internal, timeout, "clearing the dot scratch");
}

Result<cudaStream_t> GpuDevice::native(Stream stream) const {
  if (stream.owner != this)
    return Error{std::string(kBackendName) + ": " + label() + " was given " +
                 (stream.owner ? "a stream of another device" : "an empty stream handle")};
  const auto s = static_cast<cudaStream_t>(stream.impl);
  if (std::find(m_streams.begin() + 1, m_streams.end(), s) == m_streams.end())
    return Error{std::string(kBackendName) + ": " + label() + " was given a stream it does not own"};
  return s;
}

Result<Event> GpuDevice::checked(Event event) const {
  if (event.owner != this || !event.impl)
    return Error{std::string(kBackendName) + ": " + label() + " was given an event it did not create"};
  return event;
}

Status GpuDevice::wait(cudaStream_t stream, std::chrono::milliseconds timeout, const std::string& what) const {
  const cudaError_t r = poll_until([stream] { return cudaStreamQuery(stream); }, timeout);
  if (r == cudaErrorNotReady)
    return Error{std::string(kBackendName) + ": waiting for " + what + " on " + label() + " timed out after " +
                 std::to_string(timeout.count()) +
                 " ms; the device may be hung or the work is longer than the deadline"};
  DCUKIT_CHECK(r);
  return {};
}

Result<MemInfo> GpuDevice::memory_info() {
  if (auto st = bind(); !st) return st.error();
  std::size_t free = 0, total = 0;
  DCUKIT_CHECK(cudaMemGetInfo(&free, &total));
  return MemInfo{free, total};
}

Result<void*> GpuDevice::allocate(MemKind kind, std::size_t bytes) {
  if (auto st = bind(); !st) return st.error();
  void* p = nullptr;
  switch (kind) {
    case MemKind::device:
      DCUKIT_CHECK(cudaMalloc(&p, bytes));
      break;
    case MemKind::pinned_host:
      DCUKIT_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocDefault));
      break;
    case MemKind::pageable_host: {
      const std::size_t rounded = (std::max<std::size_t>(bytes, 1) + 4095) / 4096 * 4096;
      p = std::aligned_alloc(4096, rounded);
      if (!p)
        return Error{std::string(kBackendName) + ": out of host memory allocating " + std::to_string(bytes) + " bytes"};
      break;
    }
  }
  return p;
}

void GpuDevice::release(MemKind kind, void* ptr) noexcept {
  if (!ptr) return;
  switch (kind) {
    case MemKind::device:
      if (bind()) (void)cudaFree(ptr);
      break;
    case MemKind::pinned_host:
      if (bind()) (void)cudaFreeHost(ptr);
      break;
    case MemKind::pageable_host:
      std::free(ptr);
      break;
  }
}

Status GpuDevice::pin(void* ptr, std::size_t bytes) {
  if (auto st = bind(); !st) return st;
  DCUKIT_CHECK(cudaHostRegister(ptr, bytes, cudaHostRegisterDefault));
  return {};
}

Status GpuDevice::unpin(void* ptr) {
  if (auto st = bind(); !st) return st;
  DCUKIT_CHECK(cudaHostUnregister(ptr));
  return {};
}

Result<Stream> GpuDevice::create_stream() {
  if (auto st = bind(); !st) return st.error();
  cudaStream_t s = nullptr;
  DCUKIT_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  m_streams.push_back(s);
  return Stream{this, static_cast<void*>(s)};
}

Status GpuDevice::copy(void* dst, const void* src, std::size_t bytes, Stream stream) {
  auto s = native(stream);
  if (!s) return s.error();
  if (auto st = bind(); !st) return st;
  DCUKIT_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, *s));
  return {};
}

Status GpuDevice::fill(Precision type, void* dst, double value, std::size_t n, Stream stream) {
  auto s = native(stream);
  if (!s) return s.error();
  if (auto st = bind(); !st) return st;
  return launch_fill(type, dst, value, n, m_sms, *s);
}

Status GpuDevice::stream_op(StreamOp op, Precision type, void* a, void* b, void* c, double scalar, std::size_t n,
                            Stream stream) {
  auto s = native(stream);
  if (!s) return s.error();
  auto variant = stream_variant_from_env();
  if (!variant) return variant.error();
  if (auto st = bind(); !st) return st;
  return launch_stream(op, type, a, b, c, scalar, n, *variant, m_sms, m_dot, *s);
}

Result<double> GpuDevice::dot_result(Stream stream, std::chrono::milliseconds timeout) {
  auto s = native(stream);
  if (!s) return s.error();
  if (auto st = bind(); !st) return st.error();
  DCUKIT_CHECK(cudaMemcpyAsync(m_dot_host, m_dot.result, sizeof(double), cudaMemcpyDeviceToHost, *s));
  if (auto st = wait(*s, timeout, "the dot result"); !st) return st.error();
  return *m_dot_host;
}

Status GpuDevice::launch_empty(Stream stream) {
  auto s = native(stream);
  if (!s) return s.error();
  if (auto st = bind(); !st) return st;
  return gpu::launch_empty(*s);
}

Status GpuDevice::chase(const std::uint32_t* chain, std::uint64_t steps, std::uint32_t* out, Stream stream) {
  auto s = native(stream);
  if (!s) return s.error();
  if (auto st = bind(); !st) return st;
  return gpu::launch_chase(chain, steps, out, *s);
}

Result<Blas*> GpuDevice::blas() {
  if (auto st = bind(); !st) return st.error();
  if (!m_blas) m_blas = make_blas(m_index);
  return m_blas.get();
}

std::string GpuDevice::gemm_unsupported(Precision p) {
  auto b = blas();
  if (!b) return b.error().message;
  return (*b)->unsupported(p);
}

Status GpuDevice::gemm(const GemmArgs& args, Stream stream) {
  auto s = native(stream);
  if (!s) return s.error();
  auto b = blas();
  if (!b) return b.error();
  return (*b)->gemm(args, *s);
}

Result<Event> GpuDevice::create_event() {
  if (auto st = bind(); !st) return st.error();
  cudaEvent_t e = nullptr;
  DCUKIT_CHECK(cudaEventCreate(&e));
  return Event{this, static_cast<void*>(e)};
}

Status GpuDevice::record(Event event, Stream stream) {
  auto s = native(stream);
  if (!s) return s.error();
  auto e = checked(event);
  if (!e) return e.error();
  if (auto st = bind(); !st) return st;
  DCUKIT_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(event.impl), *s));
  return {};
}

Result<double> GpuDevice::elapsed_ms(Event start, Event end, std::chrono::milliseconds timeout) {
  for (const Event& ev : {start, end})
    if (auto e = checked(ev); !e) return e.error();
  if (auto st = bind(); !st) return st.error();
  auto s = static_cast<cudaEvent_t>(start.impl), e = static_cast<cudaEvent_t>(end.impl);
  const auto began = std::chrono::steady_clock::now();
  for (auto [ev, what] : {std::pair{e, "end"}, std::pair{s, "start"}}) {
    const auto left =
        timeout - std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - began);
    const cudaError_t r =
        poll_until([ev = ev] { return cudaEventQuery(ev); }, std::max(left, std::chrono::milliseconds(0)));
    if (r == cudaErrorNotReady)
      return Error{std::string(kBackendName) + ": the " + what + " event of a timing did not complete within " +
                   std::to_string(timeout.count()) + " ms on " + label() + "; the device may be hung"};
    DCUKIT_CHECK(r);
  }
  float ms = 0;
  DCUKIT_CHECK(cudaEventElapsedTime(&ms, s, e));
  return double(ms);
}

void GpuDevice::destroy_event(Event event) noexcept {
  if (event.owner == this && event.impl && bind()) (void)cudaEventDestroy(static_cast<cudaEvent_t>(event.impl));
}

Status GpuDevice::synchronize(std::chrono::milliseconds timeout) {
  if (auto st = bind(); !st) return st;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (std::size_t i = 0; i < m_streams.size(); ++i) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    const cudaError_t r =
        poll_until([s = m_streams[i]] { return cudaStreamQuery(s); }, std::max(left, std::chrono::milliseconds(0)));
    if (r == cudaErrorNotReady)
      return Error{std::string(kBackendName) + ": waiting for stream " + std::to_string(i) + "'s work on " + label() +
                   " timed out after " + std::to_string(timeout.count()) +
                   " ms; the device may be hung or the work is longer than the deadline"};
    DCUKIT_CHECK(r);
  }
  return {};
}

}  // namespace dcukit::device::gpu
