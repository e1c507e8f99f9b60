#pragma once
#include <unistd.h>
// A fake server per test suite, and a helper that runs `dcukit load` against it and reads the
// JSON it wrote. Everything stays on 127.0.0.1 and every child has a deadline.
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "process.h"

namespace itest {

/// A running fake_server; the port it printed.
class FakeServer {
public:
  /// Starts `binary` (the fake server unless another is named) with flags.
  explicit FakeServer(const std::vector<std::string>& flags, const std::string& name,
                      const std::string& binary = DCUKIT_FAKE_SERVER) {
    std::vector<std::string> argv{binary};
    argv.insert(argv.end(), flags.begin(), flags.end());
    // The process id keeps the output file apart from other test processes' servers: ctest runs
    // each test in its own process, in parallel, and a shared file would hand out their ports.
    m_child = std::make_unique<Child>(argv, ::testing::TempDir() + "fake_" + name + "_" + std::to_string(::getpid()));
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < end) {
      const std::string out = m_child->out();
      const auto p = out.find("PORT ");
      if (p != std::string::npos && out.find('\n', p) != std::string::npos) {
        m_port = std::stoi(out.substr(p + 5));
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  int port() const { return m_port; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }

private:
  std::unique_ptr<Child> m_child;
  int m_port = 0;
};

/// A test suite sharing one fake server, started once with Derived::flags() under Derived::kName;
/// a suite that declares its own binary() starts that server instead.
template <class Derived>
class ServerSuite : public ::testing::Test {
public:
  static std::string binary() { return DCUKIT_FAKE_SERVER; }

protected:
  static void SetUpTestSuite() { s_server = new FakeServer(Derived::flags(), Derived::kName, Derived::binary()); }
  static void TearDownTestSuite() {
    delete s_server;
    s_server = nullptr;
  }
  static inline FakeServer* s_server = nullptr;
};

/// A finished dcukit run: exit, output and the JSON result (null when none was written).
struct Run {
  Exit exit;
  nlohmann::json json;
};

/// Runs dcukit with args (the --json path is added), waiting up to deadline.
inline Run run_dcukit(std::vector<std::string> args, const std::string& name,
                      std::chrono::milliseconds deadline = std::chrono::seconds(60),
                      const std::vector<std::string>& env = {}) {
  const std::string base = ::testing::TempDir() + "dcukit_" + name + "_" + std::to_string(::getpid());
  const std::string json_path = base + ".json";
  std::remove(json_path.c_str());
  std::vector<std::string> argv{DCUKIT_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  if (argv.size() > 2 && argv[2] != "compare") {
    argv.push_back("--json");
    argv.push_back(json_path);
  }
  Child child(argv, base, env);
  Run r;
  r.exit = child.wait(deadline);
  const std::string text = slurp(json_path);
  if (!text.empty()) r.json = nlohmann::json::parse(text, nullptr, false);
  return r;
}

}  // namespace itest
