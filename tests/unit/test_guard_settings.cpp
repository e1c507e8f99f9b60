#include <gtest/gtest.h>

#include "guard/settings.h"
#include "tempdir.h"

using namespace dcukit::guard;
using namespace std::chrono_literals;

TEST(GuardSettings, DefaultsAreThoseTheIssueAsksFor) {
  auto o = resolve_options({"vllm", "serve"}, "", {});
  ASSERT_TRUE(o) << o.error().message;
  EXPECT_EQ(o->url, "http://127.0.0.1:8000");
  EXPECT_EQ(o->listen, "127.0.0.1:9401");
  EXPECT_EQ(o->startup_timeout, 20min);
  EXPECT_FALSE(o->listen_any);
  EXPECT_FALSE(o->device);
}

TEST(GuardSettings, TheFileIsReadThenTheCommandLineOverridesIt) {
  testutil::TempDir dir("guard_settings");
  const std::string kv = dir.write("guard.conf",
                                   "# comment\n"
                                   "probe-timeout = 2s\n"
                                   "failures=4\n"
                                   "--model = \"Qwen2-7B-Instruct\"\n"
                                   "url=http://127.0.0.1:9000/\n");
  auto o = resolve_options({"x"}, kv, {{"failures", "7"}});
  ASSERT_TRUE(o) << o.error().message;
  EXPECT_EQ(o->probe_timeout, 2s);
  EXPECT_EQ(o->failures, 7);
  EXPECT_EQ(o->model, "Qwen2-7B-Instruct");
  EXPECT_EQ(o->url, "http://127.0.0.1:9000");
  const std::string js = dir.write("guard.json", R"({"canary-interval": "90s", "failures": 2, "listen-any": true})");
  auto j = resolve_options({"x"}, js, {});
  ASSERT_TRUE(j) << j.error().message;
  EXPECT_EQ(j->canary_interval, 90s);
  EXPECT_EQ(j->failures, 2);
  EXPECT_TRUE(j->listen_any);
}

TEST(GuardSettings, ErrorsNameTheFileLineAndSetting) {
  testutil::TempDir dir("guard_settings_bad");
  auto unknown = resolve_options({"x"}, dir.write("a.conf", "\nprobe-timout=5s\n"), {});
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("a.conf:2"), std::string::npos) << unknown.error().message;
  EXPECT_NE(unknown.error().message.find("probe-timout"), std::string::npos);
  auto value = resolve_options({"x"}, dir.write("b.conf", "failures=0\n"), {});
  ASSERT_FALSE(value);
  EXPECT_NE(value.error().message.find("--failures '0'"), std::string::npos) << value.error().message;
  auto dur = resolve_options({"x"}, "", {{"probe-timeout", "5 seconds"}});
  ASSERT_FALSE(dur);
  EXPECT_NE(dur.error().message.find("--probe-timeout"), std::string::npos);
  EXPECT_FALSE(resolve_options({"x"}, dir.write("c.conf", "no equals sign\n"), {}));
  EXPECT_FALSE(resolve_options({"x"}, dir.write("d.json", "{\"config\": \"x\"}"), {}));
  EXPECT_FALSE(resolve_options({"x"}, dir.file("missing.conf"), {}));
}

TEST(GuardSettings, ListeningBeyondLoopbackMustBeAskedFor) {
  auto refused = resolve_options({"x"}, "", {{"listen", "0.0.0.0:9401"}});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("--listen-any"), std::string::npos);
  EXPECT_TRUE(resolve_options({"x"}, "", {{"listen", "0.0.0.0:9401"}, {"listen-any", "true"}}));
  EXPECT_TRUE(resolve_options({"x"}, "", {{"listen", "[::1]:9401"}}));
  EXPECT_TRUE(resolve_options({"x"}, "", {{"listen", "localhost:0"}}));
}

TEST(GuardSettings, NoCommandAndAnInvertedBackoffAreRefused) {
  auto none = resolve_options({}, "", {});
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("after --"), std::string::npos);
  EXPECT_FALSE(resolve_options({"x"}, "", {{"backoff-initial", "10s"}, {"backoff-max", "1s"}}));
}

TEST(GuardSettings, EverySettingShowsWhatItParsedAndChangesAreListed) {
  Options a;
  for (const auto& s : settings()) {
    Options b = a;
    const std::string shown = s.show(a);
    if (!shown.empty()) {
      ASSERT_TRUE(s.apply(b, shown)) << s.name << " does not read back '" << shown << "'";
    }
    EXPECT_EQ(s.show(b), shown) << s.name;
    EXPECT_FALSE(s.help.empty()) << s.name;
  }
  Options b = a;
  ASSERT_TRUE(apply_setting(b, "canary-interval", "5m"));
  ASSERT_TRUE(apply_setting(b, "url", "http://127.0.0.1:1234"));
  auto changed = changed_settings(a, b);
  ASSERT_EQ(changed.size(), 2u);
  EXPECT_EQ(changed[0]->name, "url");
  EXPECT_EQ(reload_of(*changed[0]), Reload::next_start);
  EXPECT_EQ(changed[1]->name, "canary-interval");
  EXPECT_EQ(reload_of(*changed[1]), Reload::live);
}
