// Counting tokens the server's way (each /tokenize dialect, usage where there is none) and the
// prompts made with those counts (calibrated text, ShareGPT filtered as vLLM filters it),
// against a real HTTP server on loopback.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "load/tokenizer.h"
#include "load/workload.h"
#include "local_server.h"
#include "tempdir.h"
#include "no_hang.h"

using namespace dcukit;
using namespace dcukit::load;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

using Server = testutil::LocalServer;

/// A token counter asking the server `s` the way load does for `api`.
TokenCounter counter_for(const Server& s, Api api = Api::completions) {
  BodyOptions body;
  body.api = api;
  body.model = "m";
  return TokenCounter(TokenizerConfig{
      {s.url(), {}, {}}, s.url() + (api == Api::chat ? "/v1/chat/completions" : "/v1/completions"), body});
}

int words(const std::string& s) {
  int n = 0;
  bool in = false;
  for (char c : s) {
    const bool space = c == ' ';
    if (!space && !in) ++n;
    in = !space;
  }
  return n;
}

/// A /tokenize handler of llama.cpp's form: {"content"} -> {"tokens"}; other forms get [].
void llamacpp_tokenize(Server& s) {
  s.http().Post("/tokenize", [](const httplib::Request& q, httplib::Response& r) {
    const auto j = json::parse(q.body);
    const int n =
        j.contains("content") ? words(j["content"].get<std::string>()) + (j.value("add_special", false) ? 1 : 0) : 0;
    r.set_content(json{{"tokens", std::vector<int>(static_cast<std::size_t>(n), 7)}}.dump(), "application/json");
  });
}

/// The count, or -1 (with the error printed) when it failed.
int count_of(TokenCounter& c, const std::string& text) {
  auto n = c.count(text);
  if (!n) ADD_FAILURE() << n.error().message;
  return n ? *n : -1;
}

}  // namespace

TEST(LoadTokenizer, VllmFormIsTriedFirstAndKept) {
  Server s;
  int calls = 0;
  s.http().Post("/tokenize", [&](const httplib::Request& q, httplib::Response& r) {
    ++calls;
    const auto j = json::parse(q.body);
    EXPECT_EQ(j["model"], "m");
    r.set_content(json{{"count", words(j["prompt"].get<std::string>())}, {"max_model_len", 4096}}.dump(),
                  "application/json");
  });
  auto c = counter_for(s);
  EXPECT_EQ(count_of(c, "a b c"), 3);
  EXPECT_EQ(count_of(c, "a b"), 2);
  EXPECT_EQ(c.kind(), TokenizerKind::vllm);
  EXPECT_EQ(c.max_model_len(), 4096);
  EXPECT_EQ(calls, 2);
}

TEST(LoadTokenizer, AnEmptyAnswerIsAnotherDialectNeverZero) {
  Server s;
  llamacpp_tokenize(s);  // vLLM's form gets {"tokens": []} here, as from the real llama.cpp server
  auto c = counter_for(s);
  auto n = c.count("one two three");
  ASSERT_TRUE(n) << n.error().message;
  EXPECT_EQ(*n, 4) << "three words and the start token, as the server's usage counts them";
  EXPECT_EQ(c.kind(), TokenizerKind::llamacpp);
}

TEST(LoadTokenizer, TgiForm) {
  Server s;
  s.http().Post("/tokenize", [](const httplib::Request& q, httplib::Response& r) {
    const auto j = json::parse(q.body);
    if (!j.contains("inputs")) {
      r.status = 422;
      return;
    }
    json out = json::array();
    for (int i = 0; i < words(j["inputs"].get<std::string>()); ++i) out.push_back({{"id", i}, {"text", "x"}});
    r.set_content(out.dump(), "application/json");
  });
  auto c = counter_for(s);
  EXPECT_EQ(count_of(c, "a b c d e"), 5);
  EXPECT_EQ(c.kind(), TokenizerKind::tgi);
}

TEST(LoadTokenizer, WithoutATokenizerTheUsageOfAOneTokenRequestCounts) {
  Server s;  // no /tokenize at all (404)
  s.http().Post("/v1/chat/completions", [](const httplib::Request& q, httplib::Response& r) {
    const auto j = json::parse(q.body);
    EXPECT_EQ(j["max_tokens"], 1);
    EXPECT_FALSE(j.value("stream", true));
    const int n = 10 + words(j["messages"][0]["content"].get<std::string>());  // a 10-token template
    r.set_content(json{{"choices", {{{"message", {{"content", "x"}}}}}},
                       {"usage", {{"prompt_tokens", n}, {"completion_tokens", 1}}}}
                      .dump(),
                  "application/json");
  });
  auto c = counter_for(s, Api::chat);
  EXPECT_EQ(count_of(c, "a b c"), 13);
  EXPECT_EQ(c.kind(), TokenizerKind::usage);
  EXPECT_FALSE(c.counts_plain_text()) << "chat usage includes the template: an answer cannot be counted so";
  auto text = calibrated_text(c, 25, "", 1);
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(words(*text), 15);
  auto too_short = calibrated_text(c, 5, "", 1);
  ASSERT_FALSE(too_short);
  EXPECT_NE(too_short.error().message.find("raise --input-len"), std::string::npos) << too_short.error().message;
}

TEST(LoadTokenizer, ADeadServerFailsAtOnceSayingSo) {
  TokenCounter c(TokenizerConfig{{"http://127.0.0.1:1", {}, {}}, "http://127.0.0.1:1/v1/completions", {}, 2s});
  const auto start = std::chrono::steady_clock::now();
  auto n = c.count("hello");
  ASSERT_FALSE(n);
  EXPECT_LT(std::chrono::steady_clock::now() - start, testutil::kNoHang);
  EXPECT_NE(n.error().message.find("127.0.0.1:1"), std::string::npos) << n.error().message;
}

TEST(LoadWorkload, ShareGptIsFilteredAsVllmDoesAndCountsItsAnswers) {
  Server s;
  llamacpp_tokenize(s);
  s.http().Get("/props", [](const httplib::Request&, httplib::Response& r) {
    r.set_content(R"({"default_generation_settings":{"n_ctx":40}})", "application/json");
  });
  testutil::TempDir dir("sharegpt");
  const auto conv = [](const std::string& q, const std::string& a) {
    return json{{"conversations", {{{"from", "human"}, {"value", q}}, {{"from", "gpt"}, {"value", a}}}}};
  };
  const auto n_words = [](int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += i ? " w" : "w";
    return s;
  };
  json data = json::array({conv("a b c d e", "f g h i j k"),  // 6 + 7 tokens (start token included): kept
                           conv("a b", "c d e f g"),          // a prompt of 3: out
                           conv("a b c d e", "f g"),          // an answer of 3: out
                           conv(n_words(30), n_words(20)),    // 31 + 21 over the context of 40: out
                           json{{"conversations", {{{"value", "lonely"}}}}}});
  WorkloadSpec spec;
  spec.kind = DatasetKind::sharegpt;
  spec.path = dir.write("sg.json", data.dump());
  spec.output_len = 0;
  auto counter = counter_for(s);
  Workload w = make_prompts(spec, &counter);
  ASSERT_FALSE(w.problem) << w.problem->message;
  ASSERT_EQ(w.prompts.size(), 1u);
  EXPECT_EQ(w.prompts[0].input_tokens, 6);
  EXPECT_EQ(w.prompts[0].max_tokens, 7) << "the answer's own length, never 1";
  ASSERT_EQ(w.notes.size(), 1u);
  EXPECT_NE(w.notes[0].find("3 of 4"), std::string::npos) << w.notes[0];
  EXPECT_NE(w.notes[0].find("context of 40"), std::string::npos) << w.notes[0];
}

TEST(LoadWorkload, ShareGptWithoutAWayToCountAnswersAsksForOutputLen) {
  Server s;  // no /tokenize; chat usage counts the template too
  s.http().Post("/v1/chat/completions", [](const httplib::Request&, httplib::Response& r) {
    r.set_content(R"({"choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":30,"completion_tokens":1}})",
                  "application/json");
  });
  testutil::TempDir dir("sharegpt_chat");
  WorkloadSpec spec;
  spec.kind = DatasetKind::sharegpt;
  spec.path = dir.write("sg.json", R"([{"conversations":[{"value":"a b c d e"},{"value":"f g h i j"}]}])");
  spec.output_len = 0;
  auto counter = counter_for(s, Api::chat);
  Workload w = make_prompts(spec, &counter);
  ASSERT_TRUE(w.problem.has_value());
  EXPECT_EQ(w.problem->kind, ProblemKind::bad_input);
  EXPECT_NE(w.problem->message.find("--output-len"), std::string::npos) << w.problem->message;
  spec.output_len = 16;  // with a length given, the answers need no count
  Workload fixed = make_prompts(spec, &counter);
  ASSERT_FALSE(fixed.problem) << fixed.problem->message;
  EXPECT_EQ(fixed.prompts[0].max_tokens, 16);
}

TEST(LoadWorkload, BadFilesAreBadInputNamingTheLine) {
  testutil::TempDir dir("jsonl");
  WorkloadSpec spec;
  spec.kind = DatasetKind::jsonl;
  spec.path = dir.file("missing.jsonl");
  EXPECT_EQ(make_prompts(spec, nullptr).problem->kind, ProblemKind::bad_input);
  spec.path =
      dir.write("p.jsonl", "{\"prompt\": \"hi\", \"output_len\": 4}\n{\"prompt\": \"x\", \"output_len\": -1}\n");
  Workload w = make_prompts(spec, nullptr);
  ASSERT_TRUE(w.problem.has_value());
  EXPECT_EQ(w.problem->kind, ProblemKind::bad_input);
  EXPECT_NE(w.problem->message.find("p.jsonl:2"), std::string::npos) << w.problem->message;
  spec.kind = DatasetKind::sharegpt;
  spec.path = dir.write("empty.json", "{}");
  EXPECT_EQ(make_prompts(spec, nullptr).problem->kind, ProblemKind::bad_input);
}
