// `dcukit up` end to end: the real llama.cpp server (../shared/peers/llama.cpp) brought into
// service through every step, a report written, and Ctrl-C leaving no process and no port
// behind; a failed step named with exit 1; bad input refused with exit 2 before anything starts.
#include <dirent.h>

#include <filesystem>
#include <fstream>

#include "fixture.h"

namespace {

using itest::Child;

/// Whether something accepts connections on 127.0.0.1:port.
bool listening(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

/// Processes whose command line holds `needle`.
int processes_with(const std::string& needle) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "cmdline");
    std::string cmd((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (auto& c : cmd)
      if (c == '\0') c = ' ';
    n += cmd.find(needle) != std::string::npos;
  }
  return n;
}

TEST(UpCli, LlamaCppIsServedSmokedSweptAndReportedAndCtrlCLeavesNothingBehind) {
  DCUKIT_REQUIRE_SHARED(peer, "peers/llama.cpp");
  testutil::TempDir dir("up");
  const int port = itest::free_port(), listen = itest::free_port();
  const std::string out = dir.file("out");
  const char* path = ::getenv("PATH");
  Child up({DCUKIT_BINARY, "up", "--engine", "llama.cpp", "--model", peer + "/mini.gguf", "--out", out, "--port",
            std::to_string(port), "--listen", "127.0.0.1:" + std::to_string(listen), "--slo", "ttft=5000"},
           dir.file("up"), {"PATH=" + peer + ":" + (path ? path : "/usr/bin:/bin")});
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(280);
  bool serving = false;
  while (std::chrono::steady_clock::now() < end && !up.finished()) {
    if (itest::slurp(dir.file("up.err")).find("Ctrl-C stops it") != std::string::npos) {
      serving = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ASSERT_TRUE(serving) << itest::slurp(dir.file("up.err"));
  EXPECT_TRUE(listening(port)) << "the engine answers on its port while up serves";
  EXPECT_TRUE(std::filesystem::exists(out + "/report.html"));
  EXPECT_NE(itest::slurp(out + "/report.html").find("TTFT against concurrency"), std::string::npos);
  for (const char* f : {"doctor.json", "stress.json", "load.json", "service.log"})
    EXPECT_TRUE(std::filesystem::exists(out + "/" + f)) << f;
  up.signal(SIGINT);
  const auto e = up.wait(std::chrono::seconds(200));
  EXPECT_EQ(e.code, 0) << e.err;
  const auto j = nlohmann::json::parse(itest::slurp(out + "/up.json"));
  EXPECT_TRUE(j["ok"].get<bool>()) << j.dump(2);
  ASSERT_EQ(j["steps"].size(), 7U) << j.dump(2);
  EXPECT_EQ(j["steps"][2]["outcome"], "skipped");  // plan: vLLM only
  for (int i : {0, 1, 3, 4, 5, 6}) EXPECT_EQ(j["steps"][i]["outcome"], "done") << j["steps"][i].dump();
  EXPECT_NE(j["steps"][4]["detail"].get<std::string>().find("3 completions of 8 tokens"), std::string::npos);
  EXPECT_FALSE(listening(port)) << "the engine's port is still open after Ctrl-C";
  EXPECT_FALSE(listening(listen)) << "guard's status port is still open after Ctrl-C";
  EXPECT_EQ(processes_with("--port " + std::to_string(port)), 0) << "a process of the service is left";
}

TEST(UpCli, AStepThatFailsIsNamedAndStopsTheRunWithExitOne) {
  testutil::TempDir dir("up_fail");
  const std::string out = dir.file("out");
  // An engine that exits at once, under a name no other process on the machine has (tests run
  // side by side, and CI machines run other jobs).
  const std::string engine = dir.file("engine-that-exits");
  std::ofstream(engine) << "#!/bin/sh\nexit 1\n";
  std::filesystem::permissions(engine, std::filesystem::perms::owner_exec, std::filesystem::perm_options::add);
  Child up({DCUKIT_BINARY, "up", "--from", "serve", "--out", out, "--port", std::to_string(itest::free_port()),
            "--listen", "127.0.0.1:" + std::to_string(itest::free_port()), "--startup-timeout", "10s", "--", engine},
           dir.file("up"));
  const auto e = up.wait(std::chrono::seconds(200));
  EXPECT_EQ(e.code, 1) << e.err;
  EXPECT_NE(e.out.find("serve   failed"), std::string::npos) << e.out;
  EXPECT_NE(e.out.find("crash loop"), std::string::npos) << e.out;
  const auto j = nlohmann::json::parse(itest::slurp(out + "/up.json"));
  ASSERT_EQ(j["steps"].size(), 1U);  // from serve: the smoke test, sweep and report never ran
  EXPECT_EQ(j["steps"][0]["step"], "serve");
  EXPECT_EQ(processes_with(engine), 0) << "a process of the engine or its guard is left";
}

TEST(UpCli, AFailedDoctorFindingStopsTheRunUnlessForced) {
  // NCCL_SOCKET_IFNAME naming no interface of this host is a failed doctor finding.
  testutil::TempDir dir("up_doctor");
  const int port = itest::free_port();
  const auto up = [&](const std::string& out, std::vector<std::string> extra, const std::string& name) {
    std::vector<std::string> argv{DCUKIT_BINARY, "up", "--out", out, "--port", std::to_string(port), "--listen",
                                  "127.0.0.1:" + std::to_string(itest::free_port()), "--startup-timeout", "30s"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.insert(argv.end(), {"--", DCUKIT_FAKE_SERVER, "--port", std::to_string(port)});
    return Child(argv, dir.file(name), {"NCCL_SOCKET_IFNAME=nosuchif9"}).wait(std::chrono::seconds(200));
  };
  const auto stopped = up(dir.file("out"), {}, "stopped");
  EXPECT_EQ(stopped.code, 1) << stopped.out << stopped.err;
  const auto j = nlohmann::json::parse(itest::slurp(dir.file("out") + "/up.json"));
  ASSERT_EQ(j["steps"].size(), 1U) << j.dump(2);
  EXPECT_EQ(j["steps"][0]["step"], "doctor");
  EXPECT_EQ(j["steps"][0]["outcome"], "failed");
  const std::string why = j["steps"][0]["detail"];
  EXPECT_NE(why.find("nosuchif9"), std::string::npos) << why;
  EXPECT_NE(why.find("fix: "), std::string::npos) << why;
  EXPECT_NE(why.find("--force"), std::string::npos) << why;
  EXPECT_FALSE(listening(port)) << "nothing was started";

  const auto forced = up(dir.file("forced"), {"--force", "--detach"}, "forced");
  EXPECT_EQ(forced.code, 0) << forced.out << forced.err;
  const auto f = nlohmann::json::parse(itest::slurp(dir.file("forced") + "/up.json"));
  ASSERT_GE(f["steps"].size(), 4U) << f.dump(2);
  EXPECT_EQ(f["steps"][0]["outcome"], "done") << f["steps"][0].dump();
  EXPECT_NE(f["steps"][0]["detail"].get<std::string>().find("1 fail"), std::string::npos) << f["steps"][0].dump();
  EXPECT_EQ(f["steps"][3]["step"], "serve");
  EXPECT_EQ(f["steps"][3]["outcome"], "done") << f["steps"][3].dump();
  const int pid = std::stoi(itest::slurp(dir.file("forced") + "/guard.pid"));
  ASSERT_GT(pid, 0);
  ::kill(pid, SIGTERM);
  for (int i = 0; i < 300 && (::kill(pid, 0) == 0 || listening(port)); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(listening(port));
}

TEST(UpCli, BadInputExitsTwoBeforeAnythingStarts) {
  testutil::TempDir dir("up_bad");
  const std::string out = dir.file("never");
  const auto run = [&](std::vector<std::string> args, const std::string& name) {
    std::vector<std::string> argv{DCUKIT_BINARY, "up", "--out", out};
    argv.insert(argv.end(), args.begin(), args.end());
    return Child(argv, dir.file(name)).wait(std::chrono::seconds(30));
  };
  auto missing = run({"--model", dir.file("no-such-model")}, "missing");
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("no-such-model: no such file or folder"), std::string::npos) << missing.err;
  auto engine = run({"--model", dir.path(), "--engine", "tgi"}, "engine");
  EXPECT_EQ(engine.code, 2);
  EXPECT_NE(engine.err.find("--engine tgi"), std::string::npos) << engine.err;
  auto from = run({"--model", dir.path(), "--from", "later"}, "from");
  EXPECT_EQ(from.code, 2);
  EXPECT_NE(from.err.find("--from later"), std::string::npos) << from.err;
  EXPECT_FALSE(std::filesystem::exists(out)) << "nothing is written before the input is checked";
}

}  // namespace

namespace {

TEST(TuneCli, LlamaCppSlotsAreSearchedARefusedSettingIsRejectedAndARunResumes) {
  DCUKIT_REQUIRE_SHARED(peer, "peers/llama.cpp");
  testutil::TempDir dir("tune");
  const std::string out = dir.file("out");
  const char* path = ::getenv("PATH");
  const std::vector<std::string> args{DCUKIT_BINARY, "tune", "--engine", "llama.cpp", "--model", peer + "/mini.gguf",
                                      "--slo", "ttft=5000", "--grid", "parallel=1,2", "--grid", "ctx-size=4096,bogus",
                                      "--max-rate", "4", "--requests", "4", "--out", out, "--port",
                                      std::to_string(itest::free_port()), "--listen",
                                      "127.0.0.1:" + std::to_string(itest::free_port()), "--startup-timeout", "60s"};
  const std::vector<std::string> env{"PATH=" + peer + ":" + (path ? path : "/usr/bin:/bin")};
  auto e = Child(args, dir.file("tune"), env).wait(std::chrono::seconds(280));
  ASSERT_EQ(e.code, 0) << e.out << e.err;
  const auto j = nlohmann::json::parse(itest::slurp(out + "/tune.json"));
  ASSERT_EQ(j["settings"].size(), 4U) << j.dump(2);
  for (const auto& s : j["settings"]) {
    const std::string flags = s["flags"].dump();
    if (flags.find("bogus") != std::string::npos) {
      EXPECT_EQ(s["outcome"], "rejected") << s.dump();
      EXPECT_NE(s["why"].get<std::string>().find("never became ready"), std::string::npos) << s.dump();
    } else {
      EXPECT_EQ(s["outcome"], "served") << s.dump();
      EXPECT_EQ(s["best_rate"], 4.0) << "a 5 s TTFT is met at 4 requests a second: " << s.dump();
    }
  }
  const std::string script = itest::slurp(out + "/best.sh");
  EXPECT_NE(script.find("llama-server"), std::string::npos) << script;
  EXPECT_NE(script.find("--parallel"), std::string::npos) << script;
  EXPECT_EQ(processes_with("--ctx-size bogus"), 0);
  // Again with the same folder: every setting is read from tune.jsonl, none is started again.
  auto again = Child(args, dir.file("tune2"), env).wait(std::chrono::seconds(60));
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.out.find("(earlier run)"), std::string::npos) << again.out;
  EXPECT_EQ(again.err.find("setting 1 of 4"), std::string::npos) << again.err;
}

TEST(TuneCli, BadInputExitsTwo) {
  testutil::TempDir dir("tune_bad");
  auto no_slo = Child({DCUKIT_BINARY, "tune", "--model", dir.path()}, dir.file("a")).wait(std::chrono::seconds(30));
  EXPECT_EQ(no_slo.code, 2);
  auto no_grid = Child({DCUKIT_BINARY, "tune", "--slo", "ttft=1", "--out", dir.file("o"), "--", "/bin/true"}, dir.file("b"))
                     .wait(std::chrono::seconds(30));
  EXPECT_EQ(no_grid.code, 2);
  EXPECT_NE(no_grid.err.find("--grid"), std::string::npos) << no_grid.err;
  auto bad_grid = Child({DCUKIT_BINARY, "tune", "--slo", "ttft=1", "--grid", "parallel", "--", "/bin/true"},
                        dir.file("c"))
                      .wait(std::chrono::seconds(30));
  EXPECT_EQ(bad_grid.code, 2);
  EXPECT_NE(bad_grid.err.find("NAME=V1,V2"), std::string::npos) << bad_grid.err;
}

}  // namespace

namespace {

TEST(TuneCli, AFakeVllmsKnownBestSettingIsFoundAndItsOutOfMemorySettingRejected) {
  // The fake engine: 20 ms to the first token, then 5 ms + 0.1 ms per --max-num-seqs between
  // tokens, at most --max-num-seqs requests at once (the rest wait), out of memory above 300.
  // Within TPOT 25 ms and TTFT 400 ms: 4 seqs keep up with about 40 requests a second (16
  // tokens in ~100 ms each), 128 with far more than 64, 256 step at 30.6 ms (over the TPOT at
  // any rate), 512 never starts. The best is 128, at the search's cap.
  testutil::TempDir dir("tune_fake");
  const std::string out = dir.file("out");
  const int port = itest::free_port();
  auto e = Child({DCUKIT_BINARY, "tune", "--slo", "ttft=400,tpot=25", "--grid", "max-num-seqs=4,128,256,512",
                  "--max-rate", "64", "--requests", "4", "--out", out, "--port", std::to_string(port), "--listen",
                  "127.0.0.1:" + std::to_string(itest::free_port()), "--startup-timeout", "30s", "--",
                  DCUKIT_FAKE_SERVER, "--port", std::to_string(port), "--ttft-ms", "20", "--itl-ms", "5",
                  "--itl-ms-per-seq", "0.1", "--oom-above-seqs", "300"},
                 dir.file("tune"))
               .wait(std::chrono::seconds(280));
  ASSERT_EQ(e.code, 0) << e.out << e.err;
  const auto j = nlohmann::json::parse(itest::slurp(out + "/tune.json"));
  ASSERT_EQ(j["settings"].size(), 4U) << j.dump(2);
  const auto& s4 = j["settings"][0];
  const auto& s128 = j["settings"][1];
  const auto& s256 = j["settings"][2];
  const auto& s512 = j["settings"][3];
  EXPECT_EQ(s4["outcome"], "served");
  EXPECT_GE(s4["best_rate"].get<double>(), 8.0) << s4.dump();
  EXPECT_LT(s4["best_rate"].get<double>(), 64.0) << "4 places cannot keep up with 64 a second: " << s4.dump();
  EXPECT_EQ(s128["best_rate"], 64.0) << s128.dump();
  EXPECT_EQ(s256["outcome"], "served");
  EXPECT_EQ(s256["best_rate"], 0.0) << "30.6 ms between tokens misses a 25 ms TPOT: " << s256.dump();
  EXPECT_EQ(s512["outcome"], "rejected");
  EXPECT_NE(s512["why"].get<std::string>().find("out of memory"), std::string::npos) << s512.dump();
  ASSERT_TRUE(j["best"].is_object());
  EXPECT_EQ(j["best"]["flags"], nlohmann::json::array({"--max-num-seqs", "128"}));
  EXPECT_NE(itest::slurp(out + "/best.sh").find("--max-num-seqs 128"), std::string::npos);
}

TEST(TuneCli, UtilizationIsProbedDownAndASettingThatFillsTheCardIsRejectedBeforeItRunsOut) {
  // The fake engine runs out of memory at start above --gpu-memory-utilization 0.87, and under
  // load once 20 requests generate at once; its card holds 900 of 1000 MiB idle and 10 MiB more
  // for each request generating, written as nvidia-smi's CSV. With a limit of 95%: 2 seqs peak at
  // 92% and are searched; 64 seqs pass 95% at 5 requests and are rejected before the engine
  // runs out of memory. The probe goes 0.95, 0.90 (out of memory), 0.85 (started).
  testutil::TempDir dir("tune_memory");
  const std::string out = dir.file("out"), memory = dir.file("memory.csv");
  const int port = itest::free_port();
  const std::vector<std::string> fake{DCUKIT_FAKE_SERVER, "--port", std::to_string(port), "--ttft-ms", "20",
                                      "--itl-ms", "40", "--memory-file", memory, "--memory-total-mib", "1000",
                                      "--memory-base-mib", "900", "--memory-per-seq-mib", "10"};
  std::vector<std::string> argv{DCUKIT_BINARY, "tune", "--slo", "ttft=1500", "--grid", "max-num-seqs=2,64",
                                "--utilization-from", "0.95", "--memory-from", memory, "--memory-limit", "0.95",
                                "--max-rate", "16", "--requests", "8", "--out", out, "--port", std::to_string(port),
                                "--listen", "127.0.0.1:" + std::to_string(itest::free_port()), "--startup-timeout", "30s",
                                "--"};
  argv.insert(argv.end(), fake.begin(), fake.end());
  argv.insert(argv.end(), {"--oom-above-utilization", "0.87", "--oom-at-seqs", "20"});
  auto e = Child(argv, dir.file("tune")).wait(std::chrono::seconds(280));
  ASSERT_EQ(e.code, 0) << e.out << e.err;
  const auto j = nlohmann::json::parse(itest::slurp(out + "/tune.json"));
  ASSERT_EQ(j["utilization_probe"].size(), 3U) << j.dump(2);
  EXPECT_FALSE(j["utilization_probe"][0]["started"].get<bool>());
  EXPECT_NE(j["utilization_probe"][0]["why"].get<std::string>().find("never became ready"), std::string::npos)
      << j["utilization_probe"].dump(2);
  EXPECT_FALSE(j["utilization_probe"][1]["started"].get<bool>());
  EXPECT_TRUE(j["utilization_probe"][2]["started"].get<bool>());
  EXPECT_EQ(j["utilization"], 0.85);
  ASSERT_EQ(j["settings"].size(), 2U) << j.dump(2);
  const auto& few = j["settings"][0];
  const auto& many = j["settings"][1];
  EXPECT_EQ(few["outcome"], "served") << few.dump();
  EXPECT_GE(few["best_rate"].get<double>(), 1.0) << few.dump();
  EXPECT_NEAR(few["memory_peak"].get<double>(), 0.92, 0.0051) << few.dump();
  EXPECT_EQ(many["outcome"], "rejected") << many.dump();
  EXPECT_NE(many["why"].get<std::string>().find("it would run out of memory"), std::string::npos) << many.dump();
  EXPECT_GE(many["memory_peak"].get<double>(), 0.95) << many.dump();
  EXPECT_EQ(itest::slurp(out + "/setting-2/service.log").find("out of memory"), std::string::npos)
      << "the setting was to be rejected before the engine ran out of memory";
  EXPECT_NE(itest::slurp(out + "/best.sh").find("--gpu-memory-utilization 0.85 --max-num-seqs 2"), std::string::npos)
      << itest::slurp(out + "/best.sh");
  EXPECT_NE(e.out.find("--gpu-memory-utilization 0.90: refused"), std::string::npos) << e.out;

  // Not watched, the same setting runs out of memory under load (at 3 generating): rejected so.
  const std::string out2 = dir.file("out2");
  argv = {DCUKIT_BINARY, "tune", "--slo", "ttft=1500", "--grid", "max-num-seqs=64", "--memory-limit", "0",
          "--max-rate", "16", "--requests", "8", "--out", out2, "--port", std::to_string(port), "--listen",
          "127.0.0.1:" + std::to_string(itest::free_port()), "--startup-timeout", "30s", "--"};
  argv.insert(argv.end(), fake.begin(), fake.end());
  argv.insert(argv.end(), {"--oom-at-seqs", "3"});
  auto e2 = Child(argv, dir.file("tune2")).wait(std::chrono::seconds(200));
  EXPECT_EQ(e2.code, 1) << "no setting met the SLO\n" << e2.out << e2.err;
  const auto j2 = nlohmann::json::parse(itest::slurp(out2 + "/tune.json"));
  ASSERT_EQ(j2["settings"].size(), 1U) << j2.dump(2);
  EXPECT_EQ(j2["settings"][0]["outcome"], "rejected") << j2.dump(2);
  EXPECT_NE(j2["settings"][0]["why"].get<std::string>().find("ran out of memory under load"), std::string::npos)
      << j2.dump(2);
}

}  // namespace

namespace {

TEST(UpCli, ASmokeTestWhoseTokenCountIsWrongFailsTheSmokeStep) {
  testutil::TempDir dir("up_smoke");
  const std::string out = dir.file("out");
  const int port = itest::free_port();
  auto e = Child({DCUKIT_BINARY, "up", "--from", "serve", "--out", out, "--port", std::to_string(port), "--listen",
                  "127.0.0.1:" + std::to_string(itest::free_port()), "--startup-timeout", "30s", "--",
                  DCUKIT_FAKE_SERVER, "--port", std::to_string(port), "--mode", "usage_huge"},
                 dir.file("up"))
               .wait(std::chrono::seconds(200));
  EXPECT_EQ(e.code, 1) << e.err;
  const auto j = nlohmann::json::parse(itest::slurp(out + "/up.json"));
  ASSERT_EQ(j["steps"].size(), 2U) << j.dump(2);
  EXPECT_EQ(j["steps"][0]["outcome"], "done");
  EXPECT_EQ(j["steps"][1]["step"], "smoke");
  EXPECT_EQ(j["steps"][1]["outcome"], "failed");
  EXPECT_NE(j["steps"][1]["detail"].get<std::string>().find("the server counted 1e+30"), std::string::npos)
      << j["steps"][1].dump();
  EXPECT_FALSE(listening(port)) << "the engine is stopped when a step after serve fails";
}

}  // namespace

namespace {

TEST(UpCli, VllmIsPlannedAndServedFromThePlansLaunchScript) {
  // A stand-in `vllm` (the fake server, given the port the script asks for) and `numactl` (runs
  // the rest of its command line) on PATH: the path from plan's launch script to a served,
  // smoke-tested, swept engine runs as it would on a GPU host.
  testutil::TempDir dir("up_vllm");
  const std::string bin = dir.file("bin");
  std::filesystem::create_directories(bin);
  dir.write("bin/vllm",
            "#!/bin/sh\nport=8000\nwhile [ $# -gt 0 ]; do [ \"$1\" = --port ] && port=$2; shift; done\n"
            "exec " DCUKIT_FAKE_SERVER " --port \"$port\" --model llama-3.1-8b-instruct\n");
  dir.write("bin/numactl", "#!/bin/sh\nwhile [ $# -gt 0 ]; do case $1 in --*) shift ;; *) exec \"$@\" ;; esac; done\n");
  std::filesystem::permissions(bin + "/vllm", std::filesystem::perms::owner_all);
  std::filesystem::permissions(bin + "/numactl", std::filesystem::perms::owner_all);
  const std::string out = dir.file("out");
  const int port = itest::free_port();
  const char* path = ::getenv("PATH");
  Child up({DCUKIT_BINARY, "up", "--model", std::string(DCUKIT_FIXTURES) + "/models/llama-3.1-8b-instruct", "--gpu",
            "h200", "--out", out, "--port", std::to_string(port), "--listen",
            "127.0.0.1:" + std::to_string(itest::free_port()), "--from", "plan", "--detach"},
           dir.file("up"), {"PATH=" + bin + ":" + (path ? path : "/usr/bin:/bin")});
  const auto e = up.wait(std::chrono::seconds(200));
  ASSERT_EQ(e.code, 0) << e.out << e.err;
  const auto j = nlohmann::json::parse(itest::slurp(out + "/up.json"));
  ASSERT_EQ(j["steps"].size(), 5U) << j.dump(2);
  for (const auto& s : j["steps"]) EXPECT_EQ(s["outcome"], "done") << s.dump();
  EXPECT_NE(itest::slurp(out + "/launch.sh").find("vllm serve"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(out + "/plan.json"));
  // The sweep is sized from the plan: an 8B model on an H200 holds far more than 64 of its
  // 80-token requests, so the sweep goes 1, 4, 16, 64 in flight.
  const auto load = nlohmann::json::parse(itest::slurp(out + "/load.json"));
  ASSERT_EQ(load["runs"].size(), 4U) << load.dump(2).substr(0, 2000);
  EXPECT_EQ(load["runs"][3]["max_concurrency"], 64);
  EXPECT_NE(e.err.find("sweep: up to 64 in flight: the plan's KV cache holds"), std::string::npos) << e.err;
  EXPECT_TRUE(listening(port)) << "--detach leaves the engine served";
  // Detached: guard's pid is in guard.pid; SIGTERM to it stops the engine completely.
  const int pid = std::stoi(itest::slurp(out + "/guard.pid"));
  ASSERT_GT(pid, 0);
  ::kill(pid, SIGTERM);
  for (int i = 0; i < 300 && (::kill(pid, 0) == 0 || listening(port)); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(listening(port)) << "the engine outlived its guard";
}

}  // namespace
