#pragma once
// Where the threads of one process that drive the ranks of a group meet: a barrier with a
// deadline that names the ranks that did not come, and a slot per rank for a value to share
// (the largest time). Once a rank fails to come, the group is broken and every later meeting
// fails at once with the same message, so that no thread waits for a rank that is gone.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "util/result.h"

namespace dcukit::device::comm {

class Rendezvous {
public:
  explicit Rendezvous(int ranks)
      : m_ranks(ranks), m_here(static_cast<std::size_t>(ranks)), m_values(static_cast<std::size_t>(ranks)) {}
  int ranks() const { return m_ranks; }

  /// Every rank meets here; the error names those that did not come within `timeout`.
  Status meet(int rank, std::chrono::milliseconds timeout);

  /// Breaks the group: every meeting, under way or later, fails at once with `why`.
  void break_with(const std::string& why);
  /// The largest of every rank's `value`, once all have given theirs.
  Result<double> max_of(int rank, double value, std::chrono::milliseconds timeout);
  /// The sum of every rank's `value`, once all have given theirs.
  Result<double> sum_of(int rank, double value, std::chrono::milliseconds timeout);

private:
  template <class Fold>
  Result<double> fold(int rank, double value, std::chrono::milliseconds timeout, Fold f);

  int m_ranks;
  std::mutex m_mutex;
  std::condition_variable m_changed;
  std::uint64_t m_generation = 0;
  int m_arrived = 0;
  std::vector<bool> m_here;
  std::vector<double> m_values;
  std::string m_broken;  ///< why the group can no longer meet (a rank that never came)
};

}  // namespace dcukit::device::comm
