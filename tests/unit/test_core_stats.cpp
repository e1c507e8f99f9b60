#include <gtest/gtest.h>

#include <vector>

#include "core/stats.h"

using dcukit::core::percentile;
using dcukit::core::summarize;

TEST(CoreStats, MedianOfOddAndEvenCounts) {
  std::vector<double> odd{5, 1, 3};
  std::vector<double> even{4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(summarize(odd).median, 3);
  EXPECT_DOUBLE_EQ(summarize(even).median, 2.5);
}

TEST(CoreStats, PercentilesInterpolateLikeNumpy) {
  std::vector<double> v;
  for (int i = 1; i <= 10; ++i) v.push_back(i);
  // numpy.percentile(range(1, 11), 90) == 9.1; 99 -> 9.91
  EXPECT_NEAR(percentile(v, 90), 9.1, 1e-12);
  EXPECT_NEAR(percentile(v, 99), 9.91, 1e-12);
  EXPECT_DOUBLE_EQ(percentile(v, 0), 1);
  EXPECT_DOUBLE_EQ(percentile(v, 100), 10);
}

TEST(CoreStats, MeanStdMinMax) {
  std::vector<double> v{2, 4, 4, 4, 5, 5, 7, 9};
  const auto s = summarize(v);
  EXPECT_DOUBLE_EQ(s.mean, 5);
  EXPECT_NEAR(s.stddev, 2.13808993529939, 1e-12);  // sample (n-1) deviation
  EXPECT_DOUBLE_EQ(s.min, 2);
  EXPECT_DOUBLE_EQ(s.max, 9);
  EXPECT_EQ(s.count, 8u);
}

TEST(CoreStats, EmptyInputIsAllZero) {
  std::vector<double> v;
  const auto s = summarize(v);
  EXPECT_EQ(s.count, 0u);
  EXPECT_EQ(s.median, 0);
  EXPECT_EQ(percentile(v, 50), 0);
}
