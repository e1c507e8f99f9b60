// serving/url.h: credentials in URLs are never shown, and origins compare as servers.
#include <gtest/gtest.h>

#include "serving/url.h"

using namespace dcukit::serving;

TEST(ServingUrl, KnowsCredentialsAndSchemes) {
  EXPECT_TRUE(has_credentials("http://u:p@h"));
  EXPECT_FALSE(has_credentials("http://h/a@b"));
  EXPECT_EQ(scheme_of("HTTPS://h"), "https");
  EXPECT_EQ(scheme_of("h:8000"), "");
  EXPECT_EQ(scheme_of("ftp://h"), "ftp");
}

TEST(ServingUrl, SameOriginIsSchemeHostAndPort) {
  EXPECT_TRUE(same_origin("http://h:8000", "http://u:p@H:8000/metrics"));
  EXPECT_TRUE(same_origin("http://h", "http://h:80/x"));
  EXPECT_TRUE(same_origin("https://h/x", "https://h:443"));
  EXPECT_FALSE(same_origin("http://h:8000", "http://h:9000/metrics"));
  EXPECT_FALSE(same_origin("http://h:8000", "https://h:8000"));
  EXPECT_FALSE(same_origin("http://h:8000", "http://evil:8000"));
}
