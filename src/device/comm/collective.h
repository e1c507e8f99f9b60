#pragma once
// The collectives as nccl-tests measures them: what each one moves for a given size, the
// bus-bandwidth factor that makes its figure comparable across rank counts, and seeded data
// whose exact expected result every rank can compute alone, so that a result is checked element
// by element (nccl-tests' `-c`). Sizes follow nccl-tests: the size of a collective is the bytes
// of its largest buffer (all-gather: the output, count x ranks x element; reduce-scatter: the
// input, likewise); algbw = size / time, busbw = algbw x busbw_factor.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace dcukit::device::comm {

enum class Collective { all_reduce, all_gather, reduce_scatter, broadcast, reduce, all_to_all, send_recv };

inline constexpr Collective kAllCollectives[] = {
    Collective::all_reduce, Collective::all_gather, Collective::reduce_scatter, Collective::broadcast,
    Collective::reduce,     Collective::all_to_all, Collective::send_recv};

/// "all_reduce", "all_gather", ... (the names nccl-tests' binaries carry, with an underscore).
std::string_view to_string(Collective c);
std::optional<Collective> parse_collective(std::string_view s);

/// nccl-tests' bus-bandwidth factor for `ranks` ranks: all-reduce 2(n-1)/n; all-gather,
/// reduce-scatter and all-to-all (n-1)/n; broadcast, reduce and send/recv 1.
double busbw_factor(Collective c, int ranks);

/// The elements of one rank's input and output for a collective of `size_bytes` over `ranks`
/// ranks, of `elem` bytes each (the size rounded down to what divides evenly).
struct Shape {
  std::size_t send = 0, recv = 0;  ///< elements
  std::size_t size_bytes = 0;      ///< the size as nccl-tests counts it, after rounding
};
Shape shape_of(Collective c, std::size_t size_bytes, int ranks, std::size_t elem = sizeof(float));

/// The root of broadcast and reduce, as nccl-tests' default.
inline constexpr int kRoot = 0;

/// Rank `rank`'s input: small integers in float, so that every sum of up to 2^16 ranks is exact.
void seed_input(Collective c, int rank, int ranks, std::vector<float>& send);
/// What rank `rank`'s output must hold after the collective (empty recv for reduce's non-roots
/// means "not checked").
void expected_output(Collective c, int rank, int ranks, std::size_t recv_elems, std::vector<float>& want);
/// Elements of `got` that differ from `want` (nccl-tests' #wrong); a NaN is wrong.
std::int64_t count_wrong(const float* got, const std::vector<float>& want);

}  // namespace dcukit::device::comm
