// MPI through dlopen. The two ABIs in use differ in their handles: Open MPI's are pointers to
// its predefined objects (MPI_COMM_WORLD is &ompi_mpi_comm_world, found with dlsym), MPICH's
// (and Intel MPI's) are integers with fixed values. Every handle here is held and passed as an
// intptr_t: on x86-64 and AArch64 an int argument is read from the low half of the same register
// or 8-byte stack slot, so one set of declarations calls either library. Every wait is a
// non-blocking call (MPI_I*) polled with MPI_Test up to a deadline: a rank that never comes ends
// in an error, never in a hang.
#include "device/comm/mpi.h"

#include <fmt/format.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "util/dynlib.h"

namespace dcukit::device::comm {
namespace {

using Handle = std::intptr_t;  // MPI_Comm, MPI_Datatype, MPI_Op, MPI_Request
using Clock = std::chrono::steady_clock;
constexpr int kThreadSerialized = 2;  // MPI_THREAD_SERIALIZED in both ABIs
constexpr int kTagBarrier = 7301, kTagRelease = 7302, kTagLength = 7303, kTagText = 7304, kTagSendRecv = 7305;

struct Api {
  util::DynLib lib;
  std::string path, version, flavour;
  Handle world = 0, float32 = 0, float64 = 0, int32 = 0, chars = 0, sum = 0, max = 0;
  void* in_place = nullptr;
  void* status_ignore = nullptr;
  int (*initialized)(int*) = nullptr;
  int (*init_thread)(int*, char***, int, int*) = nullptr;
  int (*finalize)() = nullptr;
  int (*comm_rank)(Handle, int*) = nullptr;
  int (*comm_size)(Handle, int*) = nullptr;
  int (*library_version)(char*, int*) = nullptr;
  int (*processor_name)(char*, int*) = nullptr;
  int (*isend)(const void*, int, Handle, int, int, Handle, Handle*) = nullptr;
  int (*irecv)(void*, int, Handle, int, int, Handle, Handle*) = nullptr;
  int (*test)(Handle*, int*, void*) = nullptr;
  int (*iallreduce)(const void*, void*, int, Handle, Handle, Handle, Handle*) = nullptr;
  int (*iallgather)(const void*, int, Handle, void*, int, Handle, Handle, Handle*) = nullptr;
  int (*ireduce_scatter_block)(const void*, void*, int, Handle, Handle, Handle, Handle*) = nullptr;
  int (*ibcast)(void*, int, Handle, int, Handle, Handle*) = nullptr;
  int (*ireduce)(const void*, void*, int, Handle, Handle, int, Handle, Handle*) = nullptr;
  int (*ialltoall)(const void*, int, Handle, void*, int, Handle, Handle, Handle*) = nullptr;
  int (*abort)(Handle, int) = nullptr;
  int (*error_string)(int, char*, int*) = nullptr;

  Status check(int rc, const char* call) const {
    if (rc == 0) return {};
    char text[1024] = {};
    int len = 0;
    if (error_string) error_string(rc, text, &len);
    return Error{fmt::format("{} failed: {} ({})", call, text, rc)};
  }
};

template <class F>
void bind(Api& a, F& fn, const char* name, std::string& missing) {
  fn = reinterpret_cast<F>(a.lib.symbol(name));
  if (!fn) missing += std::string(missing.empty() ? "" : ", ") + name;
}

Result<std::unique_ptr<Api>> load() {
  auto a = std::make_unique<Api>();
  std::vector<std::string> tried;
  if (const char* env = std::getenv("DCUKIT_MPI_LIBRARY"); env && *env) tried = {env};
  else tried = {"libmpi.so.40", "libmpi.so.12", "libmpi.so"};
  std::string why;
  for (const auto& p : tried) {
    // Global: Open MPI's plugins resolve libmpi's symbols when they are loaded.
    if (a->lib.open(p, util::DynLib::Scope::global)) {
      a->path = p;
      break;
    }
    why += fmt::format("{}{}", why.empty() ? "" : "; ", a->lib.error());
  }
  if (!a->lib.is_open())
    return Error{fmt::format("MPI: no library could be opened ({}); install Open MPI (Debian: openmpi-bin "
                             "libopenmpi3) or MPICH, or point DCUKIT_MPI_LIBRARY at libmpi.so",
                             why)};
  std::string missing;
  bind(*a, a->initialized, "MPI_Initialized", missing);
  bind(*a, a->init_thread, "MPI_Init_thread", missing);
  bind(*a, a->finalize, "MPI_Finalize", missing);
  bind(*a, a->comm_rank, "MPI_Comm_rank", missing);
  bind(*a, a->comm_size, "MPI_Comm_size", missing);
  bind(*a, a->library_version, "MPI_Get_library_version", missing);
  bind(*a, a->processor_name, "MPI_Get_processor_name", missing);
  bind(*a, a->isend, "MPI_Isend", missing);
  bind(*a, a->irecv, "MPI_Irecv", missing);
  bind(*a, a->test, "MPI_Test", missing);
  bind(*a, a->iallreduce, "MPI_Iallreduce", missing);
  bind(*a, a->iallgather, "MPI_Iallgather", missing);
  bind(*a, a->ireduce_scatter_block, "MPI_Ireduce_scatter_block", missing);
  bind(*a, a->ibcast, "MPI_Ibcast", missing);
  bind(*a, a->ireduce, "MPI_Ireduce", missing);
  bind(*a, a->ialltoall, "MPI_Ialltoall", missing);
  bind(*a, a->abort, "MPI_Abort", missing);
  bind(*a, a->error_string, "MPI_Error_string", missing);
  if (!missing.empty())
    return Error{fmt::format("MPI: {} lacks {} (MPI 3.0 or later is needed)", a->path, missing)};
  if (void* w = a->lib.symbol("ompi_mpi_comm_world")) {
    a->flavour = "Open MPI";
    const auto at = [&](const char* name) { return reinterpret_cast<Handle>(a->lib.symbol(name)); };
    a->world = reinterpret_cast<Handle>(w);
    a->float32 = at("ompi_mpi_float");
    a->float64 = at("ompi_mpi_double");
    a->int32 = at("ompi_mpi_int");
    a->chars = at("ompi_mpi_char");
    a->sum = at("ompi_mpi_op_sum");
    a->max = at("ompi_mpi_op_max");
    a->in_place = reinterpret_cast<void*>(1);
    a->status_ignore = nullptr;
    if (!a->float32 || !a->float64 || !a->int32 || !a->chars || !a->sum || !a->max)
      return Error{fmt::format("MPI: {} is Open MPI but lacks its predefined handles", a->path)};
  } else {  // the MPICH ABI (MPICH, Intel MPI, MVAPICH)
    a->flavour = "MPICH";
    a->world = 0x44000000;
    a->float32 = 0x4c00040a;
    a->float64 = 0x4c00080b;
    a->int32 = 0x4c000405;
    a->chars = 0x4c000101;
    a->sum = 0x58000003;
    a->max = 0x58000001;
    a->in_place = reinterpret_cast<void*>(-1);
    a->status_ignore = reinterpret_cast<void*>(1);
  }
  return a;
}

class Mpi final : public MpiComm {
public:
  explicit Mpi(std::unique_ptr<Api> a) : m(std::move(a)) {}
  ~Mpi() override {
    if (m_initialized_here) m->finalize();
  }

  Status init() {
    int already = 0;
    m->initialized(&already);
    if (!already) {
      int provided = 0;
      if (auto st = m->check(m->init_thread(nullptr, nullptr, kThreadSerialized, &provided), "MPI_Init_thread"); !st)
        return st;
      m_initialized_here = true;
      if (provided < kThreadSerialized)
        return Error{fmt::format("MPI: {} gives thread level {}; dcukit needs MPI_THREAD_SERIALIZED", m->path, provided)};
    }
    m->comm_rank(m->world, &m_rank);
    m->comm_size(m->world, &m_size);
    char text[8192] = {};
    int len = 0;
    m->library_version(text, &len);
    std::string v(text, static_cast<std::size_t>(std::max(0, std::min(len, 8191))));
    if (auto nl = v.find_first_of("\n,"); nl != std::string::npos) v.resize(nl);
    m_name = fmt::format("mpi ({})", v.empty() ? m->flavour : v);
    char host[1024] = {};
    m->processor_name(host, &len);
    m_host = std::string(host, static_cast<std::size_t>(std::max(0, std::min(len, 1023))));
    if (const char* f = std::getenv("DCUKIT_CPU_FAULTS"))
    {
      if (const char* at = std::strstr(f, "collective=")) m_fault_from = std::atoll(at + 11);
      if (const char* at = std::strstr(f, "stall=")) m_stall = std::atoi(at + 6) == m_rank;
    }
    return {};
  }

  int rank() const override { return m_rank; }
  int size() const override { return m_size; }
  std::string name() const override { return m_name; }
  std::string host() const override { return m_host; }

  std::string in_place_unsupported(Collective c) const override {
    if (c == Collective::reduce_scatter || c == Collective::all_to_all || c == Collective::send_recv)
      return "MPI's in place differs from NCCL's for this collective";
    return {};
  }

  [[noreturn]] void abort_job(int code) override {
    m->abort(m->world, code);
    std::_Exit(code);
  }

  Status barrier(std::chrono::milliseconds timeout) override {
    if (m_stall) std::this_thread::sleep_for(std::chrono::hours(24));  // test switch: never arrives
    const auto end = Clock::now() + timeout;
    int token = 1;
    if (m_rank != 0) {
      Handle sent = 0, released = 0;
      int got = 0;
      if (auto st = m->check(m->isend(&token, 1, m->int32, 0, kTagBarrier, m->world, &sent), "MPI_Isend"); !st) return st;
      if (auto st = m->check(m->irecv(&got, 1, m->int32, 0, kTagRelease, m->world, &released), "MPI_Irecv"); !st) return st;
      if (!wait(sent, end) || !wait(released, end))
        return Error{fmt::format("rank {}: rank 0 did not release the barrier within {} ms (another rank did not "
                                 "arrive, or rank 0 is gone)",
                                 m_rank, timeout.count())};
      return {};
    }
    std::vector<Handle> from(static_cast<std::size_t>(m_size), 0);
    std::vector<int> tokens(static_cast<std::size_t>(m_size), 0);
    std::vector<bool> done(static_cast<std::size_t>(m_size), false);
    done[0] = true;
    for (int r = 1; r < m_size; ++r)
      if (auto st = m->check(m->irecv(&tokens[static_cast<std::size_t>(r)], 1, m->int32, r, kTagBarrier, m->world,
                                      &from[static_cast<std::size_t>(r)]),
                             "MPI_Irecv");
          !st)
        return st;
    for (;;) {
      bool all = true;
      for (int r = 1; r < m_size; ++r) {
        auto i = static_cast<std::size_t>(r);
        if (done[i]) continue;
        int flag = 0;
        m->test(&from[i], &flag, m->status_ignore);
        done[i] = flag != 0;
        all = all && done[i];
      }
      if (all) break;
      if (Clock::now() >= end) {
        std::vector<int> missing;
        for (int r = 1; r < m_size; ++r)
          if (!done[static_cast<std::size_t>(r)]) missing.push_back(r);
        return Error{fmt::format("rank(s) {} of {} did not arrive within {} ms", fmt::join(missing, ", "), m_size,
                                 timeout.count())};
      }
      nap();
    }
    for (int r = 1; r < m_size; ++r) {
      Handle release = 0;
      if (auto st = m->check(m->isend(&token, 1, m->int32, r, kTagRelease, m->world, &release), "MPI_Isend"); !st)
        return st;
      if (!wait(release, end)) return Error{fmt::format("rank {} did not take the barrier's release", r)};
    }
    return {};
  }

  Result<double> max_of(double value, std::chrono::milliseconds timeout) override { return reduce(value, m->max, timeout); }
  Result<double> sum_of(double value, std::chrono::milliseconds timeout) override { return reduce(value, m->sum, timeout); }

  Status run(Collective c, const void* send, void* recv, const Shape& s, Stream,
             std::chrono::milliseconds timeout) override {
    if (s.send > INT_MAX || s.recv > INT_MAX)
      return Error{fmt::format("MPI counts are int: {} elements is too many; use a smaller size", std::max(s.send, s.recv))};
    const int ns = static_cast<int>(s.send), nr = static_cast<int>(s.recv);
    const bool same = send == recv;
    const void* in = same ? m->in_place : send;
    Handle req = 0, req2 = 0;
    Status st;
    switch (c) {
      case Collective::all_reduce:
        st = m->check(m->iallreduce(in, recv, nr, m->float32, m->sum, m->world, &req), "MPI_Iallreduce");
        break;
      case Collective::all_gather:  // in place: the input is this rank's slice of the output
        in = static_cast<const float*>(send) == static_cast<float*>(recv) + static_cast<std::size_t>(m_rank) * s.send
                 ? m->in_place
                 : send;
        st = m->check(m->iallgather(in, ns, m->float32, recv, ns, m->float32, m->world, &req), "MPI_Iallgather");
        break;
      case Collective::reduce_scatter:
        st = m->check(m->ireduce_scatter_block(send, recv, nr, m->float32, m->sum, m->world, &req),
                      "MPI_Ireduce_scatter_block");
        break;
      case Collective::broadcast:
        if (m_rank == kRoot && !same) std::memcpy(recv, send, s.recv * sizeof(float));
        st = m->check(m->ibcast(recv, nr, m->float32, kRoot, m->world, &req), "MPI_Ibcast");
        break;
      case Collective::reduce:
        in = same && m_rank == kRoot ? m->in_place : send;
        st = m->check(m->ireduce(in, recv, nr, m->float32, m->sum, kRoot, m->world, &req), "MPI_Ireduce");
        break;
      case Collective::all_to_all:
        st = m->check(m->ialltoall(send, nr / m_size, m->float32, recv, nr / m_size, m->float32, m->world, &req),
                      "MPI_Ialltoall");
        break;
      case Collective::send_recv: {  // rank r sends to r+1 and receives from r-1
        const int to = (m_rank + 1) % m_size, from = (m_rank + m_size - 1) % m_size;
        st = m->check(m->irecv(recv, nr, m->float32, from, kTagSendRecv, m->world, &req2), "MPI_Irecv");
        if (st) st = m->check(m->isend(send, ns, m->float32, to, kTagSendRecv, m->world, &req), "MPI_Isend");
        break;
      }
    }
    if (!st) return st;
    const auto end = Clock::now() + timeout;
    if (!wait(req, end) || (req2 && !wait(req2, end)))
      return Error{fmt::format("{} did not complete within {} ms on rank {}: a rank stopped taking part",
                               to_string(c), timeout.count(), m_rank)};
    if (m_fault_from > 0 && ++m_runs >= m_fault_from && m_rank == m_size - 1 && s.recv > 0 &&
        !(c == Collective::reduce && m_rank != kRoot))
      static_cast<float*>(recv)[s.recv / 2] += 1.0f;
    return {};
  }

  Status broadcast_bytes(void* data, std::size_t bytes, std::chrono::milliseconds timeout) override {
    if (bytes > INT_MAX) return Error{"MPI counts are int: a broadcast of more than 2 GiB"};
    Handle req = 0;
    if (auto st = m->check(m->ibcast(data, static_cast<int>(bytes), m->chars, kRoot, m->world, &req), "MPI_Ibcast"); !st)
      return st;
    if (!wait(req, Clock::now() + timeout))
      return Error{fmt::format("rank {}: a broadcast from rank {} did not complete within {} ms", m_rank, kRoot,
                               timeout.count())};
    return {};
  }

  Result<std::vector<std::string>> gather(const std::string& text, std::chrono::milliseconds timeout) override {
    const auto end = Clock::now() + timeout;
    if (m_rank != 0) {
      int len = static_cast<int>(text.size());
      Handle a = 0, b = 0;
      if (auto st = m->check(m->isend(&len, 1, m->int32, 0, kTagLength, m->world, &a), "MPI_Isend"); !st) return st.error();
      if (auto st = m->check(m->isend(text.data(), len, m->chars, 0, kTagText, m->world, &b), "MPI_Isend"); !st)
        return st.error();
      if (!wait(a, end) || !wait(b, end)) return Error{fmt::format("rank {}: rank 0 did not take its report", m_rank)};
      return std::vector<std::string>{};
    }
    std::vector<std::string> out(static_cast<std::size_t>(m_size));
    out[0] = text;
    for (int r = 1; r < m_size; ++r) {
      int len = 0;
      Handle a = 0, b = 0;
      if (auto st = m->check(m->irecv(&len, 1, m->int32, r, kTagLength, m->world, &a), "MPI_Irecv"); !st) return st.error();
      if (!wait(a, end)) return Error{fmt::format("rank {} did not send its report within {} ms", r, timeout.count())};
      auto& s = out[static_cast<std::size_t>(r)];
      s.resize(static_cast<std::size_t>(std::max(len, 0)));
      if (auto st = m->check(m->irecv(s.data(), len, m->chars, r, kTagText, m->world, &b), "MPI_Irecv"); !st)
        return st.error();
      if (!wait(b, end)) return Error{fmt::format("rank {} did not send its report within {} ms", r, timeout.count())};
    }
    return out;
  }

private:
  static void nap() { std::this_thread::sleep_for(std::chrono::microseconds(50)); }

  // Polls one request until it completes (true) or `end` passes (false).
  bool wait(Handle& req, Clock::time_point end) {
    for (int spins = 0;; ++spins) {
      int flag = 0;
      m->test(&req, &flag, m->status_ignore);
      if (flag) return true;
      if (Clock::now() >= end) return false;
      if (spins > 1000) nap();
    }
  }

  Result<double> reduce(double value, Handle op, std::chrono::milliseconds timeout) {
    double out = 0;
    Handle req = 0;
    if (auto st = m->check(m->iallreduce(&value, &out, 1, m->float64, op, m->world, &req), "MPI_Iallreduce"); !st)
      return st.error();
    if (!wait(req, Clock::now() + timeout))
      return Error{fmt::format("rank {}: the other ranks did not join a reduction within {} ms", m_rank, timeout.count())};
    return out;
  }

  std::unique_ptr<Api> m;
  int m_rank = 0, m_size = 1;
  bool m_initialized_here = false;
  std::string m_name, m_host;
  long long m_fault_from = 0, m_runs = 0;
  bool m_stall = false;  ///< DCUKIT_CPU_FAULTS="stall=R" (tests only): rank R never reaches a barrier
};

}  // namespace

Result<std::unique_ptr<MpiComm>> mpi_world() {
  auto api = load();
  if (!api) return api.error();
  auto w = std::make_unique<Mpi>(std::move(*api));
  if (auto st = w->init(); !st) return st.error();
  return std::unique_ptr<MpiComm>(std::move(w));
}

}  // namespace dcukit::device::comm
