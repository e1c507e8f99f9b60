// serving/url.h: credentials in URLs are never shown, and origins compare as servers.
#include <gtest/gtest.h>

#include "serving/url.h"

using namespace dcukit::serving;

TEST(ServingUrl, RedactsPasswordsAndLoneTokensEverywhereInAText) {
  EXPECT_EQ(redact_credentials("http://user:pass@host:8000/v1"), "http://user:***@host:8000/v1");
  EXPECT_EQ(redact_credentials("https://tok3n@host"), "https://***@host");
  EXPECT_EQ(redact_credentials("GET http://a:b@h/x failed; retry http://h2/y"),
            "GET http://a:***@h/x failed; retry http://h2/y");
  EXPECT_EQ(redact_credentials("dcukit load --url http://u:p%40ss@h:1 -n 2"),
            "dcukit load --url http://u:***@h:1 -n 2");
  EXPECT_EQ(redact_credentials("no url here"), "no url here");
  EXPECT_EQ(redact_credentials("http://host/path@not-userinfo"), "http://host/path@not-userinfo");
  EXPECT_EQ(redact_credentials("two http://a:1@x and http://b:2@y"), "two http://a:***@x and http://b:***@y");
}

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
