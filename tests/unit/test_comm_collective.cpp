// The collectives' arithmetic: nccl-tests' bus-bandwidth factors for every collective and rank
// count, the sizes as nccl-tests counts them, and the seeded data checked by a reference that
// does each collective by hand over every rank's input.
#include <gtest/gtest.h>

#include <cmath>

#include "device/comm/collective.h"

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
