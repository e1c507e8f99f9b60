// util/redact.h: one redactor, by name and by value, against the formats real secrets take.
// The token shapes are those the services document (GitHub's ghp_/github_pat_, GitLab's glpat-,
// Slack's xox*- and hooks.slack.com webhooks, Hugging Face's hf_, AWS's AKIA, RFC 7519 JWTs);
// the values here are made up.
#include <gtest/gtest.h>

#include "util/redact.h"

using namespace dcukit::util;

namespace {

void expect_gone(const std::string& text, const std::string& secret, const std::string& kept = "") {
  const std::string out = redact(text);
  EXPECT_EQ(out.find(secret), std::string::npos) << text << " -> " << out;
  if (!kept.empty()) {
    EXPECT_NE(out.find(kept), std::string::npos) << text << " -> " << out;
  }
}

}  // namespace

TEST(UtilRedact, UrlsWithAndWithoutAScheme) {
  EXPECT_EQ(redact("http://user:pass@host:8000/v1"), "http://user:***@host:8000/v1");
  EXPECT_EQ(redact("https://tok3n@host"), "https://***@host");
  EXPECT_EQ(redact("GET http://a:b@h/x failed; retry http://h2/y"), "GET http://a:***@h/x failed; retry http://h2/y");
  EXPECT_EQ(redact("dcukit load --url http://u:p%40ss@h:1 -n 2"), "dcukit load --url http://u:***@h:1 -n 2");
  EXPECT_EQ(redact("https://user:pa:ss@mirror.example/simple?x=1"), "https://user:***@mirror.example/simple?x=1");
  EXPECT_EQ(redact("two http://a:1@x and http://b:2@y"), "two http://a:***@x and http://b:***@y");
  EXPECT_EQ(redact("https_proxy=u:pw@proxy.corp:3128"), "https_proxy=u:***@proxy.corp:3128");
  EXPECT_EQ(redact("http://host/path@not-userinfo"), "http://host/path@not-userinfo");
  EXPECT_EQ(redact("git@github.com:org/repo.git at 10:30"), "git@github.com:org/repo.git at 10:30");
  EXPECT_EQ(redact("no secret here"), "no secret here");
}

TEST(UtilRedact, HeadersQueryKeysAndFlags) {
  EXPECT_EQ(redact("dcukit load -H 'Authorization: Bearer sk-live-123' --url http://h"),
            "dcukit load -H 'Authorization: Bearer ***' --url http://h");
  EXPECT_EQ(redact("CURL_HEADER=Authorization: Basic dXNlcjpwYXNz"), "CURL_HEADER=Authorization: Basic ***");
  expect_gone("curl -H \"X-Api-Key: abcd1234\" http://h", "abcd1234", "X-Api-Key: ***");
  EXPECT_EQ(redact("--url http://h/v1?api_key=SECRET1&model=m"), "--url http://h/v1?api_key=***&model=m");
  EXPECT_EQ(redact("https://b.blob.core.windows.net/c?sv=2022&sig=AbC%2Bd&se=1"),
            "https://b.blob.core.windows.net/c?sv=2022&sig=***&se=1");
  expect_gone("vllm serve m --api-key tok-123 --port 8000", "tok-123", "--port 8000");
  expect_gone("huggingface-cli login --token=hf_abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnop");
  EXPECT_EQ(redact("HF_TOKEN=abc DB_PASSWORD='x y' max_num_batched_tokens=2048"),
            "HF_TOKEN=*** DB_PASSWORD=*** max_num_batched_tokens=2048");
}

TEST(UtilRedact, TokenFormatsAnywhere) {
  expect_gone("remote: ghp_0123456789abcdefghijABCDEFGHIJ012345", "0123456789abcdef");
  expect_gone("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnop");
  expect_gone("token glpat-xY12_ab34CD56ef78GH90", "xY12_ab34CD56ef78GH90");
  expect_gone("SLACK=xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOp", "AbCdEfGhIjKlMnOp");
  expect_gone("notify https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
              "XXXXXXXXXXXXXXXX", "https://hooks.slack.com/services/***");
  expect_gone("aws AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE");
  expect_gone("OPENAI=sk-proj-abcdefghijklmnopqrstuvwx", "abcdefghijklmnop");
  expect_gone("jwt eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLWJ5dGVz", "c2lnbmF0dXJl");
  expect_gone("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXk");
}

TEST(UtilRedact, TheEnvironmentByNameAndByValue) {
  // The 17 secret-bearing variables a support bundle was tried with: 9 of them were kept.
  const std::map<std::string, std::string> env{
      {"HF_TOKEN", "hf_abc"},
      {"OPENAI_API_KEY", "k1"},
      {"AWS_SECRET_ACCESS_KEY", "k2"},
      {"db_password", "k3"},
      {"GITHUB_TOKEN", "k4"},
      {"VLLM_API_KEY", "k5"},
      {"NGC_API_KEY", "k6"},
      {"PIP_INDEX_URL", "https://u:k7@pypi.example/simple"},
      {"SSHPASS", "k8"},
      {"MYSQL_PWD", "k9"},
      {"DB_PASS", "k10"},
      {"GH_PAT", "k11"},
      {"CI_NOTE", "glpat-k12k12k12k12k12k12k12"},
      {"CI_JOB_JWT", "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJrMTMifQ.c2lnbmF0dXJlazEz"},
      {"CURL_HEADER", "Authorization: Bearer k14k14"},
      {"https_proxy", "user:k15@proxy:3128"},
      {"ALERTS", "https://hooks.slack.com/services/T1/B1/k16k16k16"},
      {"PATH", "/opt/dtk/bin:/usr/bin"},
      {"PWD", "/home/u"},
      {"HIP_VISIBLE_DEVICES", "0,1"},
  };
  const auto out = redact_environment(env);
  for (const auto& [k, v] : out) {
    for (const char* secret : {"k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9", "k10", "k11", "k12", "k13",
                               "k14", "k15", "k16", "hf_abc"})
      if (v.find(secret) != std::string::npos) ADD_FAILURE() << k << "=" << v << " keeps " << secret;
  }
  EXPECT_EQ(out.at("PATH"), "/opt/dtk/bin:/usr/bin");
  EXPECT_EQ(out.at("PWD"), "/home/u");
  EXPECT_EQ(out.at("HIP_VISIBLE_DEVICES"), "0,1");
  EXPECT_EQ(out.at("https_proxy"), "user:***@proxy:3128");
  EXPECT_FALSE(secret_name("PATH"));
  EXPECT_FALSE(secret_name("LD_LIBRARY_PATH"));
  EXPECT_FALSE(secret_name("TORCH_CUDA_ARCH_LIST"));
  EXPECT_TRUE(secret_name("SSHPASS"));
  EXPECT_TRUE(secret_name("MYSQL_PWD"));
  EXPECT_TRUE(secret_name("GH_PAT"));
}
