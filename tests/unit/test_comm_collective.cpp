// The collectives' arithmetic: nccl-tests' bus-bandwidth factors for every collective and rank
// count, the sizes as nccl-tests counts them, and the seeded data checked by a reference that
// does each collective by hand over every rank's input.
#include <gtest/gtest.h>

#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "device/comm/collective.h"
#include "device/comm/comm.h"
#include "tempdir.h"

using namespace dcukit::device::comm;

TEST(CommCollective, BusBandwidthFactorsAreNcclTests) {
  // nccl-tests src/*.cu, *GetBw(): allreduce 2(n-1)/n; allgather, reducescatter, alltoall
  // (n-1)/n; broadcast, reduce, sendrecv 1.
  for (int n : {1, 2, 3, 4, 8, 16}) {
    EXPECT_DOUBLE_EQ(busbw_factor(Collective::all_reduce, n), 2.0 * (n - 1) / n) << n;
    EXPECT_DOUBLE_EQ(busbw_factor(Collective::all_gather, n), 1.0 * (n - 1) / n) << n;
    EXPECT_DOUBLE_EQ(busbw_factor(Collective::reduce_scatter, n), 1.0 * (n - 1) / n) << n;
    EXPECT_DOUBLE_EQ(busbw_factor(Collective::all_to_all, n), 1.0 * (n - 1) / n) << n;
    EXPECT_DOUBLE_EQ(busbw_factor(Collective::broadcast, n), 1.0) << n;
    EXPECT_DOUBLE_EQ(busbw_factor(Collective::reduce, n), 1.0) << n;
    EXPECT_DOUBLE_EQ(busbw_factor(Collective::send_recv, n), 1.0) << n;
  }
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::all_reduce, 8), 1.75);
}

TEST(CommCollective, SizesAreTheLargestBufferRoundedToTheRanks) {
  auto s = shape_of(Collective::all_gather, 1024, 3);  // 256 floats -> 255, 85 a rank
  EXPECT_EQ(s.recv, 255u);
  EXPECT_EQ(s.send, 85u);
  EXPECT_EQ(s.size_bytes, 1020u);
  s = shape_of(Collective::reduce_scatter, 1024, 4);
  EXPECT_EQ(s.send, 256u);
  EXPECT_EQ(s.recv, 64u);
  s = shape_of(Collective::all_reduce, 8, 4);
  EXPECT_EQ(s.send, 2u);
  EXPECT_EQ(s.recv, 2u);
  for (Collective c : kAllCollectives) EXPECT_EQ(parse_collective(to_string(c)), c);
  EXPECT_FALSE(parse_collective("allreduce"));
}

namespace {

/// Every rank's output, done by hand from every rank's input.
std::vector<std::vector<float>> by_hand(Collective c, int ranks, std::size_t size_bytes) {
  const Shape s = shape_of(c, size_bytes, ranks);
  std::vector<std::vector<float>> in(static_cast<std::size_t>(ranks), std::vector<float>(s.send));
  for (int r = 0; r < ranks; ++r) seed_input(c, r, ranks, in[static_cast<std::size_t>(r)]);
  std::vector<std::vector<float>> out(static_cast<std::size_t>(ranks), std::vector<float>(s.recv, 0.0f));
  const std::size_t n = static_cast<std::size_t>(ranks);
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t i = 0; i < s.recv; ++i) {
      float& o = out[r][i];
      switch (c) {
        case Collective::all_reduce:
        case Collective::reduce:
          for (std::size_t q = 0; q < n; ++q) o += in[q][i];
          break;
        case Collective::broadcast:
          o = in[kRoot][i];
          break;
        case Collective::all_gather:
          o = in[i / s.send][i % s.send];
          break;
        case Collective::reduce_scatter:
          for (std::size_t q = 0; q < n; ++q) o += in[q][r * s.recv + i];
          break;
        case Collective::all_to_all: {
          const std::size_t chunk = s.recv / n;
          o = in[i / chunk][r * chunk + i % chunk];
          break;
        }
        case Collective::send_recv:
          o = in[(r + n - 1) % n][i];
          break;
      }
    }
  return out;
}

}  // namespace

TEST(CommCollective, TheExpectedOutputOfEveryRankIsWhatTheCollectiveComputes) {
  for (Collective c : kAllCollectives)
    for (int ranks : {1, 2, 3, 4, 7})
      for (std::size_t size : {std::size_t{64}, std::size_t{4000}}) {
        const auto out = by_hand(c, ranks, size);
        const Shape s = shape_of(c, size, ranks);
        for (int r = 0; r < ranks; ++r) {
          std::vector<float> want;
          expected_output(c, r, ranks, s.recv, want);
          if (c == Collective::reduce && r != kRoot) {
            EXPECT_TRUE(want.empty()) << "only the root's reduce output is defined";
            continue;
          }
          EXPECT_EQ(count_wrong(out[static_cast<std::size_t>(r)].data(), want), 0)
              << to_string(c) << " ranks=" << ranks << " rank=" << r << " size=" << size;
        }
      }
  std::vector<float> want;
  expected_output(Collective::all_reduce, 0, 4, 16, want);
  auto got = want;
  got[5] += 1;
  got[9] = std::nanf("");
  EXPECT_EQ(count_wrong(got.data(), want), 2) << "a planted wrong element and a NaN are counted";
}

#include <thread>

#include "device/comm/comm.h"

namespace {

/// Runs `c` on every rank of a thread group at once; the #wrong of each rank.
std::vector<std::int64_t> run_group(Collective c, int ranks, std::size_t size, bool in_place) {
  auto group = make_thread_group(ranks);
  const Shape s = shape_of(c, size, ranks);
  std::vector<std::int64_t> wrong(static_cast<std::size_t>(ranks), -1);
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      std::vector<float> send(std::max(s.send, s.recv)), recv(s.recv, -1.0f);
      send.resize(s.send);
      seed_input(c, r, ranks, send);
      float* out = recv.data();
      if (in_place && s.send == s.recv) out = send.data();
      auto st = group[static_cast<std::size_t>(r)]->run(c, send.data(), out, s, {}, std::chrono::seconds(30));
      std::vector<float> want;
      expected_output(c, r, ranks, s.recv, want);
      wrong[static_cast<std::size_t>(r)] = st ? count_wrong(out, want) : -2;
    });
  for (auto& t : threads) t.join();
  return wrong;
}

}  // namespace

TEST(CommThreads, EveryCollectiveOutOfPlaceAndInPlaceGivesTheExpectedData) {
  for (Collective c : kAllCollectives)
    for (bool in_place : {false, true})
      for (int ranks : {1, 2, 4})
        for (std::int64_t w : run_group(c, ranks, 4096, in_place))
          EXPECT_EQ(w, 0) << to_string(c) << (in_place ? " in place" : "") << " ranks=" << ranks;
}

TEST(CommThreads, ARankThatNeverArrivesIsNamedWithinTheDeadline) {
  auto group = make_thread_group(3);
  std::vector<dcukit::Status> got(2);
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r)  // rank 2 never calls
    threads.emplace_back([&, r] {
      got[static_cast<std::size_t>(r)] = group[static_cast<std::size_t>(r)]->barrier(std::chrono::milliseconds(200));
    });
  for (auto& t : threads) t.join();
  for (const auto& s : got) {
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("rank(s) 2 of 3 did not arrive"), std::string::npos) << s.message();
  }
}

TEST(CommThreads, ARankThatGivesUpReleasesTheOthersAtOnce) {
  auto group = make_thread_group(3);
  std::vector<dcukit::Status> got(2);
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r)
    threads.emplace_back([&, r] {
      got[static_cast<std::size_t>(r)] = group[static_cast<std::size_t>(r)]->barrier(std::chrono::minutes(10));
    });
  group[2]->abort();  // rank 2 failed (an allocation, say) and will never come
  for (auto& t : threads) t.join();
  for (const auto& s : got) {
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("rank 2 gave up"), std::string::npos) << s.message();
  }
}

TEST(CommNccl, AMissingLibraryIsNamedWithWhereToFindIt) {
  ASSERT_EQ(setenv("DCUKIT_NCCL_LIBRARY", "/nonexistent/libnccl.so.2", 1), 0);
  EXPECT_EQ(collective_library(dcukit::device::BackendKind::cuda), "/nonexistent/libnccl.so.2");
  const auto lib = load_collective_library(dcukit::device::BackendKind::cuda);
  unsetenv("DCUKIT_NCCL_LIBRARY");
  ASSERT_FALSE(lib);
  EXPECT_NE(lib.error().message.find("/nonexistent/libnccl.so.2"), std::string::npos) << lib.error().message;
  EXPECT_NE(lib.error().message.find("DCUKIT_NCCL_LIBRARY"), std::string::npos) << lib.error().message;
  EXPECT_EQ(collective_library(dcukit::device::BackendKind::hip), "librccl.so.1");
  EXPECT_FALSE(make_nccl_group(dcukit::device::BackendKind::cpu, {0}));
}

namespace {

/// The job's world for make_nccl_rank, as MPI would be: a rank of `size` threads whose
/// broadcast_bytes hands rank 0's bytes to the others (up to the timeout).
struct WorldState {
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<char> bytes;
  bool sent = false;
};

class ThreadWorld final : public dcukit::device::comm::Communicator {
public:
  ThreadWorld(std::shared_ptr<WorldState> s, int rank, int size) : m_s(std::move(s)), m_rank(rank), m_size(size) {}
  int rank() const override { return m_rank; }
  int size() const override { return m_size; }
  std::string name() const override { return "test world"; }
  dcukit::Status run(dcukit::device::comm::Collective, const void*, void*, const dcukit::device::comm::Shape&,
                     dcukit::device::Stream, std::chrono::milliseconds) override {
    return dcukit::Error{"not here"};
  }
  dcukit::Status barrier(std::chrono::milliseconds) override { return {}; }
  dcukit::Result<double> max_of(double v, std::chrono::milliseconds) override { return v; }
  dcukit::Result<double> sum_of(double v, std::chrono::milliseconds) override { return v; }
  dcukit::Status broadcast_bytes(void* data, std::size_t n, std::chrono::milliseconds timeout) override {
    std::unique_lock lock(m_s->mutex);
    if (m_rank == 0) {
      m_s->bytes.assign(static_cast<char*>(data), static_cast<char*>(data) + n);
      m_s->sent = true;
      m_s->cv.notify_all();
      return {};
    }
    if (!m_s->cv.wait_for(lock, timeout, [&] { return m_s->sent; })) return dcukit::Error{"no broadcast"};
    std::memcpy(data, m_s->bytes.data(), std::min(n, m_s->bytes.size()));
    return {};
  }

private:
  std::shared_ptr<WorldState> m_s;
  int m_rank, m_size;
};

/// Three ranks join through the fake NCCL; "" when each joined with rank 0's id and its own rank,
/// on the thread `bind` ran on, else what went wrong. Runs in a child process (the library is
/// loaded once a process).
std::string three_ranks_join(const std::string& log, std::chrono::milliseconds timeout) {
  setenv("DCUKIT_NCCL_LIBRARY", DCUKIT_FAKE_NCCL, 1);
  setenv("DCUKIT_FAKE_NCCL_LOG", log.c_str(), 1);
  auto state = std::make_shared<WorldState>();
  std::vector<std::string> errors(3);
  std::vector<int> binds(3, 0);
  {
    std::vector<std::jthread> ranks;
    for (int r = 0; r < 3; ++r)
      ranks.emplace_back([&, r] {
        ThreadWorld world(state, r, 3);
        const auto caller = std::this_thread::get_id();
        auto comm = make_nccl_rank(
            dcukit::device::BackendKind::cuda, world,
            [&, r, caller]() -> dcukit::Status {
              binds[static_cast<std::size_t>(r)] = std::this_thread::get_id() != caller ? 1 : -1;
              return {};
            },
            timeout);
        if (!comm) errors[static_cast<std::size_t>(r)] = comm.error().message;
        else if ((*comm)->rank() != r || (*comm)->size() != 3 || (*comm)->name() != "nccl 2.28.9")
          errors[static_cast<std::size_t>(r)] = "rank, size or name wrong: " + (*comm)->name();
      });
  }
  std::string out;
  for (int r = 0; r < 3; ++r) {
    if (!errors[static_cast<std::size_t>(r)].empty()) out += errors[static_cast<std::size_t>(r)] + "\n";
    if (binds[static_cast<std::size_t>(r)] != 1) out += "rank " + std::to_string(r) + ": bind not on the joining thread\n";
  }
  return out;
}

}  // namespace

// One process a device under MPI: rank 0's ncclUniqueId reaches every rank through the world's
// broadcast, and each joins with it and its own rank (checked in the fake library's log). In a
// child process: NCCL is opened once a process, and other tests want it missing.
TEST(CommNccl, EveryRankJoinsWithRankZerosIdThroughTheWorld) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // the child runs this test again, alone
  std::optional<testutil::TempDir> dir;
  std::string log;
  if (const char* given = std::getenv("DCUKIT_TEST_NCCL_LOG")) {
    log = given;  // the child: the parent's file
  } else {
    dir.emplace("nccl_rank");
    log = dir->file("joined");
    setenv("DCUKIT_TEST_NCCL_LOG", log.c_str(), 1);
  }
  EXPECT_EXIT(
      {
        const std::string why = three_ranks_join(log, std::chrono::seconds(20));
        std::fputs(why.c_str(), stderr);
        std::fflush(stderr);
        std::_Exit(why.empty() ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
  unsetenv("DCUKIT_TEST_NCCL_LOG");
  std::ifstream in(log);
  std::set<int> ranks;
  std::set<std::string> ids;
  int rank = 0, size = 0;
  std::string id;
  while (in >> rank >> size >> id) {
    ranks.insert(rank);
    ids.insert(id);
    EXPECT_EQ(size, 3);
  }
  EXPECT_EQ(ranks, (std::set<int>{0, 1, 2}));
  ASSERT_EQ(ids.size(), 1u) << "every rank must join with the one id rank 0 made";
  EXPECT_EQ(ids.begin()->rfind("dcukit-fake-nccl-id", 0), 0u) << *ids.begin();
}

// A rank whose peers never join is an error within the timeout that says so, not a wait.
TEST(CommNccl, ARankWhosePeersNeverJoinIsAnErrorWithinTheTimeout) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("DCUKIT_FAKE_NCCL_STALL", "1", 1);
        const std::string why = three_ranks_join("/dev/null", std::chrono::milliseconds(300));
        std::fputs(why.c_str(), stderr);
        std::fflush(stderr);
        std::_Exit(why.find("did not join") != std::string::npos ? 3 : 1);
      },
      ::testing::ExitedWithCode(3), "ncclCommInitRank did not complete within 300 ms");
}
