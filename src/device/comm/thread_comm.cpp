// Collectives between threads of one process over host memory: the CPU backend's "devices"
// (--cpu-devices N) run the whole multi-device path without a GPU or an MPI launcher. Each
// rank computes its own output from the other ranks' inputs into a scratch buffer, and copies
// it into place only once every rank has read what it needs (so in place is safe).
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "device/comm/comm.h"
#include "device/comm/rendezvous.h"

namespace dcukit::device::comm {
namespace {

struct Group {
  explicit Group(int n) : ranks(n), meeting(n), sends(static_cast<std::size_t>(n)) {}
  int ranks;
  Rendezvous meeting;
  std::vector<const float*> sends;
  /// DCUKIT_CPU_FAULTS="collective=N" (tests only): from its Nth collective on, the last rank's
  /// output has one element off by one, as a link that corrupts data would leave it.
  long long fault_from = 0;
};

class ThreadComm final : public Communicator {
public:
  ThreadComm(std::shared_ptr<Group> g, int rank) : m_group(std::move(g)), m_rank(rank) {}
  int rank() const override { return m_rank; }
  int size() const override { return m_group->ranks; }
  std::string name() const override { return "threads"; }

  Status barrier(std::chrono::milliseconds timeout) override { return m_group->meeting.meet(m_rank, timeout); }

  Result<double> max_of(double value, std::chrono::milliseconds timeout) override {
    return m_group->meeting.max_of(m_rank, value, timeout);
  }
  Result<double> sum_of(double value, std::chrono::milliseconds timeout) override {
    return m_group->meeting.sum_of(m_rank, value, timeout);
  }
  void abort() noexcept override { m_group->meeting.break_with(fmt::format("rank {} gave up", m_rank)); }

  Status run(Collective c, const void* send, void* recv, const Shape& shape, Stream,
             std::chrono::milliseconds timeout) override {
    Group& g = *m_group;
    g.sends[static_cast<std::size_t>(m_rank)] = static_cast<const float*>(send);
    if (Status s = barrier(timeout); !s) return s;
    m_scratch.assign(shape.recv, 0.0f);
    compute(c, shape);
    if (Status s = barrier(timeout); !s) return s;  // every rank has read the inputs
    if (!(c == Collective::reduce && m_rank != kRoot)) {
      std::memcpy(recv, m_scratch.data(), shape.recv * sizeof(float));
      if (++m_runs >= g.fault_from && g.fault_from > 0 && m_rank == g.ranks - 1 && shape.recv > 0)
        static_cast<float*>(recv)[shape.recv / 2] += 1.0f;
    }
    return {};
  }

private:
  void compute(Collective c, const Shape& shape) {
    const Group& g = *m_group;
    const std::size_t n = static_cast<std::size_t>(g.ranks), me = static_cast<std::size_t>(m_rank);
    float* out = m_scratch.data();
    switch (c) {
      case Collective::all_reduce:
      case Collective::reduce:
        for (std::size_t q = 0; q < n; ++q)
          for (std::size_t i = 0; i < shape.recv; ++i) out[i] += g.sends[q][i];
        break;
      case Collective::broadcast:
        std::memcpy(out, g.sends[kRoot], shape.recv * sizeof(float));
        break;
      case Collective::all_gather:
        for (std::size_t q = 0; q < n; ++q) std::memcpy(out + q * shape.send, g.sends[q], shape.send * sizeof(float));
        break;
      case Collective::reduce_scatter:
        for (std::size_t q = 0; q < n; ++q)
          for (std::size_t i = 0; i < shape.recv; ++i) out[i] += g.sends[q][me * shape.recv + i];
        break;
      case Collective::all_to_all: {
        const std::size_t chunk = shape.recv / n;
        for (std::size_t q = 0; q < n; ++q)
          std::memcpy(out + q * chunk, g.sends[q] + me * chunk, chunk * sizeof(float));
        break;
      }
      case Collective::send_recv:
        std::memcpy(out, g.sends[(me + n - 1) % n], shape.recv * sizeof(float));
        break;
    }
  }

  std::shared_ptr<Group> m_group;
  int m_rank;
  std::vector<float> m_scratch;
  long long m_runs = 0;
};

}  // namespace

std::vector<std::unique_ptr<Communicator>> make_thread_group(int ranks) {
  auto g = std::make_shared<Group>(ranks);
  if (const char* faults = std::getenv("DCUKIT_CPU_FAULTS"))
    if (const char* at = std::strstr(faults, "collective=")) g->fault_from = std::atoll(at + 11);
  std::vector<std::unique_ptr<Communicator>> out;
  for (int r = 0; r < ranks; ++r) out.push_back(std::make_unique<ThreadComm>(g, r));
  return out;
}

}  // namespace dcukit::device::comm
