#include "device/comm/collective.h"

#include <cmath>

#include "util/names.h"

namespace dcukit::device::comm {
namespace {

constexpr util::Name<Collective> kNames[] = {
    {Collective::all_reduce, "all_reduce"},
    {Collective::all_gather, "all_gather"},
    {Collective::reduce_scatter, "reduce_scatter"},
    {Collective::broadcast, "broadcast"},
    {Collective::reduce, "reduce"},
    {Collective::all_to_all, "all_to_all"},
    {Collective::send_recv, "send_recv"},
};

/// Rank r's i-th input element: 1 to 13, so that sums stay exact in float.
float value(int r, std::size_t i) {
  return static_cast<float>((static_cast<std::size_t>(r) * 7 + i * 3) % 13 + 1);
}

}  // namespace

std::string_view to_string(Collective c) {
  return util::name_of(kNames, c);
}

std::optional<Collective> parse_collective(std::string_view s) {
  return util::value_of(kNames, s);
}

double busbw_factor(Collective c, int ranks) {
  const double n = ranks;
  switch (c) {
    case Collective::all_reduce:
      return 2 * (n - 1) / n;
    case Collective::all_gather:
    case Collective::reduce_scatter:
    case Collective::all_to_all:
      return (n - 1) / n;
    case Collective::broadcast:
    case Collective::reduce:
    case Collective::send_recv:
      return 1;
  }
  return 1;
}

Shape shape_of(Collective c, std::size_t size_bytes, int ranks, std::size_t elem) {
  const std::size_t n = static_cast<std::size_t>(ranks);
  std::size_t total = size_bytes / elem;
  Shape s;
  switch (c) {
    case Collective::all_gather:
      total -= total % n;
      s.send = total / n, s.recv = total;
      break;
    case Collective::reduce_scatter:
      total -= total % n;
      s.send = total, s.recv = total / n;
      break;
    case Collective::all_to_all:
      total -= total % n;
      s.send = s.recv = total;
      break;
    default:
      s.send = s.recv = total;
  }
  s.size_bytes = total * elem;
  return s;
}

void seed_input(Collective c, int rank, int ranks, std::vector<float>& send) {
  (void)c;
  (void)ranks;
  for (std::size_t i = 0; i < send.size(); ++i) send[i] = value(rank, i);
}

void expected_output(Collective c, int rank, int ranks, std::size_t recv_elems, std::vector<float>& want) {
  want.assign(recv_elems, 0.0f);
  const std::size_t n = static_cast<std::size_t>(ranks);
  const auto sum = [&](std::size_t i) {
    float s = 0;
    for (int r = 0; r < ranks; ++r) s += value(r, i);
    return s;
  };
  switch (c) {
    case Collective::all_reduce:
      for (std::size_t i = 0; i < recv_elems; ++i) want[i] = sum(i);
      break;
    case Collective::reduce:
      if (rank != kRoot) want.clear();  // only the root's output is defined
      for (std::size_t i = 0; i < want.size(); ++i) want[i] = sum(i);
      break;
    case Collective::broadcast:
      for (std::size_t i = 0; i < recv_elems; ++i) want[i] = value(kRoot, i);
      break;
    case Collective::all_gather: {
      const std::size_t chunk = recv_elems / n;
      for (std::size_t r = 0; r < n; ++r)
        for (std::size_t i = 0; i < chunk; ++i) want[r * chunk + i] = value(static_cast<int>(r), i);
      break;
    }
    case Collective::reduce_scatter:
      for (std::size_t i = 0; i < recv_elems; ++i) want[i] = sum(static_cast<std::size_t>(rank) * recv_elems + i);
      break;
    case Collective::all_to_all: {
      const std::size_t chunk = recv_elems / n;
      for (std::size_t j = 0; j < n; ++j)
        for (std::size_t i = 0; i < chunk; ++i)
          want[j * chunk + i] = value(static_cast<int>(j), static_cast<std::size_t>(rank) * chunk + i);
      break;
    }
    case Collective::send_recv: {
      const int from = (rank - 1 + ranks) % ranks;  // a ring: each rank sends to the next
      for (std::size_t i = 0; i < recv_elems; ++i) want[i] = value(from, i);
      break;
    }
  }
}

std::int64_t count_wrong(const float* got, const std::vector<float>& want) {
  std::int64_t wrong = 0;
  for (std::size_t i = 0; i < want.size(); ++i) wrong += !(got[i] == want[i]);
  return wrong;
}

}  // namespace dcukit::device::comm
