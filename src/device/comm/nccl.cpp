// Collectives through NCCL (CUDA) or RCCL (HIP, the same API), opened with dlopen like every
// vendor library: never linked, so that a host without it still runs everything else, and the
// error says which library is missing. The declarations below are the stable C ABI of nccl.h
// (RCCL keeps it): opaque communicators, the data types and reduction ops by value.
#include <fmt/format.h>

#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "device/comm/comm.h"
#include "device/comm/rendezvous.h"
#include "util/dynlib.h"

namespace dcukit::device::comm {
namespace {

using ncclComm_t = void*;
using ncclResult_t = int;
using Stream_t = void*;  // cudaStream_t / hipStream_t
constexpr int kNcclFloat32 = 7, kNcclSum = 0, kNcclSuccess = 0;
constexpr std::size_t kUniqueIdBytes = 128;  // NCCL_UNIQUE_ID_BYTES, RCCL's too
struct UniqueId {
  char internal[kUniqueIdBytes];
};

struct Nccl {
  util::DynLib lib;
  std::string path, version;
  ncclResult_t (*get_version)(int*) = nullptr;
  const char* (*error_string)(ncclResult_t) = nullptr;
  ncclResult_t (*init_all)(ncclComm_t*, int, const int*) = nullptr;
  ncclResult_t (*get_unique_id)(UniqueId*) = nullptr;
  ncclResult_t (*init_rank)(ncclComm_t*, int, UniqueId, int) = nullptr;
  ncclResult_t (*destroy)(ncclComm_t) = nullptr;
  ncclResult_t (*abort)(ncclComm_t) = nullptr;
  ncclResult_t (*all_reduce)(const void*, void*, std::size_t, int, int, ncclComm_t, Stream_t) = nullptr;
  ncclResult_t (*all_gather)(const void*, void*, std::size_t, int, ncclComm_t, Stream_t) = nullptr;
  ncclResult_t (*reduce_scatter)(const void*, void*, std::size_t, int, int, ncclComm_t, Stream_t) = nullptr;
  ncclResult_t (*broadcast)(const void*, void*, std::size_t, int, int, ncclComm_t, Stream_t) = nullptr;
  ncclResult_t (*reduce)(const void*, void*, std::size_t, int, int, int, ncclComm_t, Stream_t) = nullptr;
  ncclResult_t (*send)(const void*, std::size_t, int, int, ncclComm_t, Stream_t) = nullptr;
  ncclResult_t (*recv)(void*, std::size_t, int, int, ncclComm_t, Stream_t) = nullptr;
  ncclResult_t (*group_start)() = nullptr;
  ncclResult_t (*group_end)() = nullptr;
  /// ncclAlltoAll, NCCL 2.28 and later (null before: a group of sends and receives instead).
  ncclResult_t (*all_to_all)(const void*, void*, std::size_t, int, ncclComm_t, Stream_t) = nullptr;

  Status check(ncclResult_t r, const char* call) const {
    if (r == kNcclSuccess) return {};
    return Error{fmt::format("{} failed: {} ({})", call, error_string ? error_string(r) : "no message", r)};
  }
};

template <class F>
bool bind(Nccl& n, F& fn, const char* name, std::string& missing) {
  fn = reinterpret_cast<F>(n.lib.symbol(name));
  if (!fn) missing += std::string(missing.empty() ? "" : ", ") + name;
  return fn != nullptr;
}

// The library, opened once per process and kept: NCCL keeps threads of its own.
const Result<Nccl*>& nccl(BackendKind kind) {
  static std::once_flag once;
  static Result<Nccl*> loaded = Error{"not loaded"};
  // Kept for the life of the process, reachable from here: unloading NCCL under its own threads
  // is not safe, and a failed load keeps its message.
  static Nccl* kept = nullptr;
  std::call_once(once, [kind] {
    kept = new Nccl;
    Nccl* n = kept;
    n->path = collective_library(kind);
    if (!n->lib.open(n->path)) {
      loaded = Error{fmt::format(
          "{}: {}; install it (pip's nvidia-nccl-cu12 keeps it in site-packages/nvidia/nccl/lib, DTK and ROCm in "
          "their lib folder) and point DCUKIT_NCCL_LIBRARY at the file, or add its folder to LD_LIBRARY_PATH",
          n->path, n->lib.error())};
      return;
    }
    std::string missing;
    bind(*n, n->get_version, "ncclGetVersion", missing);
    bind(*n, n->error_string, "ncclGetErrorString", missing);
    bind(*n, n->init_all, "ncclCommInitAll", missing);
    bind(*n, n->get_unique_id, "ncclGetUniqueId", missing);
    bind(*n, n->init_rank, "ncclCommInitRank", missing);
    bind(*n, n->destroy, "ncclCommDestroy", missing);
    bind(*n, n->abort, "ncclCommAbort", missing);
    bind(*n, n->all_reduce, "ncclAllReduce", missing);
    bind(*n, n->all_gather, "ncclAllGather", missing);
    bind(*n, n->reduce_scatter, "ncclReduceScatter", missing);
    bind(*n, n->broadcast, "ncclBroadcast", missing);
    bind(*n, n->reduce, "ncclReduce", missing);
    bind(*n, n->send, "ncclSend", missing);
    bind(*n, n->recv, "ncclRecv", missing);
    bind(*n, n->group_start, "ncclGroupStart", missing);
    bind(*n, n->group_end, "ncclGroupEnd", missing);
    n->all_to_all = reinterpret_cast<decltype(n->all_to_all)>(n->lib.symbol("ncclAlltoAll"));  // optional
    if (!missing.empty()) {
      loaded = Error{fmt::format("{}: lacks {}: not an NCCL/RCCL library this dcukit can use", n->path, missing)};
      return;
    }
    int v = 0;
    n->get_version(&v);
    // NCCL_VERSION_CODE: major*10000 + minor*100 + patch since 2.9, major*1000 + minor*100 + patch before.
    n->version = v >= 10000 ? fmt::format("{}.{}.{}", v / 10000, v / 100 % 100, v % 100)
                            : fmt::format("{}.{}.{}", v / 1000, v / 100 % 10, v % 100);
    loaded = n;
  });
  return loaded;
}

struct Shared {
  explicit Shared(int ranks) : meeting(ranks) {}
  Rendezvous meeting;
};

/// One rank: its threads' meeting point is `shared` (a process driving every device), or, one
/// process a device, the job's MPI communicator `world`.
class NcclComm final : public Communicator {
public:
  NcclComm(const Nccl& n, ncclComm_t comm, std::shared_ptr<Shared> shared, Communicator* world, int rank, int size,
           std::string name)
      : m_n(n), m_comm(comm), m_shared(std::move(shared)), m_world(world), m_rank(rank), m_size(size),
        m_name(std::move(name)) {}
  ~NcclComm() override {
    if (m_comm) (m_aborted ? m_n.abort : m_n.destroy)(m_comm);
  }
  int rank() const override { return m_rank; }
  int size() const override { return m_size; }
  std::string name() const override { return m_name; }
  Status barrier(std::chrono::milliseconds timeout) override {
    return m_world ? m_world->barrier(timeout) : m_shared->meeting.meet(m_rank, timeout);
  }
  Result<double> max_of(double value, std::chrono::milliseconds timeout) override {
    return m_world ? m_world->max_of(value, timeout) : m_shared->meeting.max_of(m_rank, value, timeout);
  }
  Result<double> sum_of(double value, std::chrono::milliseconds timeout) override {
    return m_world ? m_world->sum_of(value, timeout) : m_shared->meeting.sum_of(m_rank, value, timeout);
  }
  std::string in_place_unsupported(Collective c) const override {
    if (c == Collective::all_to_all || c == Collective::send_recv)
      return "NCCL's send/recv would read what the same call overwrites";
    return {};
  }
  void abort() noexcept override {
    if (m_shared) m_shared->meeting.break_with(fmt::format("rank {} gave up", m_rank));
    if (m_comm && !m_aborted) {
      m_n.abort(m_comm);
      m_comm = nullptr;
    }
    m_aborted = true;
  }

  Status run(Collective c, const void* send, void* recv, const Shape& s, Stream stream,
             std::chrono::milliseconds) override {  // enqueues: the stream's synchronize holds the deadline
    if (!m_comm) return Error{"the communicator was aborted after an earlier failure"};
    Stream_t st = stream.impl;
    const auto n = static_cast<std::size_t>(m_size);
    switch (c) {
      case Collective::all_reduce:
        return m_n.check(m_n.all_reduce(send, recv, s.recv, kNcclFloat32, kNcclSum, m_comm, st), "ncclAllReduce");
      case Collective::all_gather:
        return m_n.check(m_n.all_gather(send, recv, s.send, kNcclFloat32, m_comm, st), "ncclAllGather");
      case Collective::reduce_scatter:
        return m_n.check(m_n.reduce_scatter(send, recv, s.recv, kNcclFloat32, kNcclSum, m_comm, st),
                         "ncclReduceScatter");
      case Collective::broadcast:
        return m_n.check(m_n.broadcast(send, recv, s.recv, kNcclFloat32, kRoot, m_comm, st), "ncclBroadcast");
      case Collective::reduce:
        return m_n.check(m_n.reduce(send, recv, s.recv, kNcclFloat32, kNcclSum, kRoot, m_comm, st), "ncclReduce");
      case Collective::all_to_all: {  // as nccl-tests: ncclAlltoAll, else a group of sends and receives
        const std::size_t chunk = s.recv / n;
        if (m_n.all_to_all) return m_n.check(m_n.all_to_all(send, recv, chunk, kNcclFloat32, m_comm, st), "ncclAlltoAll");
        if (auto g = m_n.check(m_n.group_start(), "ncclGroupStart"); !g) return g;
        Status out;
        for (std::size_t p = 0; p < n && out; ++p) {
          out = m_n.check(m_n.send(static_cast<const float*>(send) + p * chunk, chunk, kNcclFloat32,
                                   static_cast<int>(p), m_comm, st),
                          "ncclSend");
          if (out)
            out = m_n.check(m_n.recv(static_cast<float*>(recv) + p * chunk, chunk, kNcclFloat32, static_cast<int>(p),
                                     m_comm, st),
                            "ncclRecv");
        }
        const Status end = m_n.check(m_n.group_end(), "ncclGroupEnd");
        return out ? end : out;
      }
      case Collective::send_recv: {  // rank r sends to r+1 and receives from r-1
        const int to = (m_rank + 1) % m_size, from = (m_rank + m_size - 1) % m_size;
        if (auto g = m_n.check(m_n.group_start(), "ncclGroupStart"); !g) return g;
        Status out = m_n.check(m_n.send(send, s.send, kNcclFloat32, to, m_comm, st), "ncclSend");
        if (out) out = m_n.check(m_n.recv(recv, s.recv, kNcclFloat32, from, m_comm, st), "ncclRecv");
        const Status end = m_n.check(m_n.group_end(), "ncclGroupEnd");
        return out ? end : out;
      }
    }
    return Error{"unknown collective"};
  }

private:
  const Nccl& m_n;
  ncclComm_t m_comm;
  std::shared_ptr<Shared> m_shared;
  Communicator* m_world;
  int m_rank, m_size;
  std::string m_name;
  bool m_aborted = false;
};

}  // namespace

std::string collective_library(BackendKind kind) {
  if (const char* env = std::getenv("DCUKIT_NCCL_LIBRARY"); env && *env) return env;
  return kind == BackendKind::hip ? "librccl.so.1" : "libnccl.so.2";
}

Result<std::string> load_collective_library(BackendKind kind) {
  if (kind == BackendKind::cpu) return Error{"NCCL/RCCL serve the GPU backends; the CPU backend uses threads"};
  const auto& loaded = nccl(kind);
  if (!loaded) return loaded.error();
  return fmt::format("{} {}", kind == BackendKind::hip ? "rccl" : "nccl", (*loaded)->version);
}

Result<std::vector<std::unique_ptr<Communicator>>> make_nccl_group(BackendKind kind, const std::vector<int>& devices) {
  auto name = load_collective_library(kind);
  if (!name) return name.error();
  const auto& loaded = nccl(kind);
  if (!loaded) return loaded.error();
  const Nccl& n = **loaded;
  std::vector<ncclComm_t> comms(devices.size(), nullptr);
  if (auto st = n.check(n.init_all(comms.data(), static_cast<int>(devices.size()), devices.data()), "ncclCommInitAll");
      !st)
    return Error{fmt::format("{} ({}): {}", n.path, n.version, st.message())};
  auto shared = std::make_shared<Shared>(static_cast<int>(devices.size()));
  std::vector<std::unique_ptr<Communicator>> out;
  for (std::size_t i = 0; i < comms.size(); ++i)
    out.push_back(std::make_unique<NcclComm>(n, comms[i], shared, nullptr, static_cast<int>(i),
                                             static_cast<int>(comms.size()), *name));
  return out;
}

Result<std::unique_ptr<Communicator>> make_nccl_rank(BackendKind kind, Communicator& world,
                                                     const std::function<Status()>& bind,
                                                     std::chrono::milliseconds timeout) {
  auto name = load_collective_library(kind);
  if (!name) return name.error();
  const Nccl& n = **nccl(kind);
  const auto end = std::chrono::steady_clock::now() + timeout;
  const int rank = world.rank(), size = world.size();
  UniqueId id{};
  if (rank == 0)
    if (auto st = n.check(n.get_unique_id(&id), "ncclGetUniqueId"); !st) {
      // The others wait for the id: they get a zeroed one and fail to join, rather than wait on.
      (void)world.broadcast_bytes(&id, sizeof id, timeout);
      return Error{fmt::format("rank 0: {}", st.message())};
    }
  if (auto st = world.broadcast_bytes(&id, sizeof id, timeout); !st) return st.error();
  // ncclCommInitRank waits for every rank with no deadline of its own: it runs on a thread of its
  // own, and a rank that never joins leaves it there (the job is ended) rather than this one waiting.
  struct Joining {
    std::mutex mutex;
    std::condition_variable done_cv;
    bool done = false;
    Status status;
    ncclComm_t comm = nullptr;
  };
  auto joining = std::make_shared<Joining>();
  std::thread([joining, lib = &n, bind, id, rank, size] {
    Status st = bind();
    ncclComm_t comm = nullptr;
    if (st) st = lib->check(lib->init_rank(&comm, size, id, rank), "ncclCommInitRank");
    std::lock_guard lock(joining->mutex);
    joining->status = st;
    joining->comm = comm;
    joining->done = true;
    joining->done_cv.notify_all();
  }).detach();
  std::unique_lock lock(joining->mutex);
  if (!joining->done_cv.wait_until(lock, end, [&] { return joining->done; }))
    return Error{fmt::format("rank {}: ncclCommInitRank did not complete within {} ms: a rank of {} did not join "
                             "(a rank that failed before it, or NCCL_SOCKET_IFNAME naming an interface the ranks "
                             "cannot reach each other through)",
                             rank, timeout.count(), size)};
  if (!joining->status) return Error{fmt::format("rank {}: {} ({}): {}", rank, n.path, n.version, joining->status.message())};
  return std::unique_ptr<Communicator>(
      std::make_unique<NcclComm>(n, joining->comm, nullptr, &world, rank, size, *name));
}

}  // namespace dcukit::device::comm
