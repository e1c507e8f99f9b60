#include <gtest/gtest.h>

#include "load/body.h"
#include "load/chunk.h"

using namespace dcukit::load;

TEST(LoadChunk, CompletionsTextAndFinish) {
  auto c = parse_chunk(R"({"choices":[{"index":0,"text":"héllo","finish_reason":"length"}]})");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->content_bytes, 6u);
  EXPECT_TRUE(c->finished);
}

TEST(LoadChunk, ChatRoleOnlyIsEmptyAndReasoningCounts) {
  auto role = parse_chunk(R"({"choices":[{"delta":{"role":"assistant","content":""},"finish_reason":null}]})");
  ASSERT_TRUE(role.ok());
  EXPECT_EQ(role->content_bytes + role->reasoning_bytes, 0u);
  auto r = parse_chunk(R"({"choices":[{"delta":{"reasoning_content":"think"}}]})");
  EXPECT_EQ(r->reasoning_bytes, 5u);
  auto r2 = parse_chunk(R"({"choices":[{"delta":{"reasoning":"hm","content":null}}]})");
  EXPECT_EQ(r2->reasoning_bytes, 2u);
}

TEST(LoadChunk, UsageErrorDoneAndGarbage) {
  auto u = parse_chunk(R"({"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":9,"total_tokens":16}})");
  EXPECT_TRUE(u->has_usage);
  EXPECT_EQ(u->prompt_tokens, 7);
  EXPECT_EQ(u->completion_tokens, 9);
  auto e = parse_chunk(R"({"error":{"message":"boom","code":500}})");
  EXPECT_TRUE(e->has_error);
  EXPECT_EQ(e->error_message, "boom");
  EXPECT_TRUE(parse_chunk("[DONE]")->done);
  EXPECT_FALSE(parse_chunk("{\"choices\": [").ok());
  EXPECT_EQ(error_text(R"({"detail":"Not Found"})"), "Not Found");
}

TEST(LoadBody, BodiesForBothApis) {
  BodyOptions o;
  o.model = "m";
  o.ignore_eos = true;
  Prompt p;
  p.token_ids = {1, 2, 3};
  p.max_tokens = 5;
  const auto j = nlohmann::json::parse(build_body(p, o));
  EXPECT_EQ(j["prompt"].size(), 3u);
  EXPECT_EQ(j["max_tokens"], 5);
  EXPECT_TRUE(j["stream_options"]["include_usage"].get<bool>());
  EXPECT_TRUE(j["ignore_eos"].get<bool>());
  o.api = Api::chat;
  o.extra_body = {{"top_k", 1}};
  p.text = "hi";
  const auto c = nlohmann::json::parse(build_body(p, o));
  EXPECT_EQ(c["messages"][0]["content"], "hi");
  EXPECT_EQ(c["max_completion_tokens"], 5);
  EXPECT_EQ(c["top_k"], 1);
}

TEST(LoadChunk, UsageOfTheWrongTypeIsAnErrorNeverACrashOrAWrappedNumber) {
  for (const char* bad : {R"({"usage":{"prompt_tokens":"5","completion_tokens":3}})",
                          R"({"usage":{"prompt_tokens":5,"completion_tokens":1e30}})",
                          R"({"usage":{"prompt_tokens":-1,"completion_tokens":3}})",
                          R"({"usage":{"prompt_tokens":2.5,"completion_tokens":3}})",
                          R"({"usage":{"prompt_tokens":5,"completion_tokens":[]}})",
                          R"({"usage":{"prompt_tokens":5,"completion_tokens":18446744073709551615}})"}) {
    auto c = parse_chunk(bad);
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_NE(c.error().message.find("usage."), std::string::npos) << c.error().message;
    EXPECT_FALSE(parse_response(bad).ok()) << bad;
  }
  auto whole = parse_chunk(R"({"usage":{"prompt_tokens":5.0,"completion_tokens":7}})");
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->prompt_tokens, 5);
  auto null_usage = parse_chunk(R"({"choices":[{"text":"a"}],"usage":null})");
  ASSERT_TRUE(null_usage.ok());
  EXPECT_FALSE(null_usage->has_usage);
}

TEST(LoadChunk, ANullCountIsAnAbsentOne) {
  // A final usage with "prompt_tokens": null (seen from OpenAI-compatible servers that fill only
  // some counts): the completion count is taken, the prompt count is unknown, not an error.
  auto partial = parse_chunk(R"({"choices":[],"usage":{"prompt_tokens":null,"completion_tokens":3,"total_tokens":null}})");
  ASSERT_TRUE(partial.ok()) << partial.error().message;
  EXPECT_TRUE(partial->has_usage);
  EXPECT_FALSE(partial->prompt_tokens.has_value());
  EXPECT_EQ(partial->completion_tokens, 3);
  auto none = parse_response(R"({"choices":[{"text":"a"}],"usage":{"prompt_tokens":null,"completion_tokens":null}})");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_usage) << "no count given: as if there were no usage";
  auto absent = parse_chunk(R"({"usage":{"completion_tokens":2}})");
  ASSERT_TRUE(absent.ok());
  EXPECT_FALSE(absent->prompt_tokens.has_value()) << "absent is unknown, not 0";
}

TEST(LoadChunk, TextIsKeptWhenAsked) {
  std::string text;
  ASSERT_TRUE(parse_chunk(R"({"choices":[{"delta":{"reasoning_content":"hm ","content":"yes"}}]})", &text).ok());
  ASSERT_TRUE(parse_chunk(R"({"choices":[{"text":"!"}]})", &text).ok());
  EXPECT_EQ(text, "hm yes!");
}
