#pragma once
// The real llama.cpp server from ../shared/peers/llama.cpp (a CPU build and a tiny random-weight
// model), started on a port of its own for one test, and its log read back: for each request
// the prompt tokens it counted ("n_prompt_tokens = N") and its generation time ("eval time =
// X ms / N tokens"), to hold dcukit's figures against the server's own.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "fixture.h"

namespace itest {

/// What the server logged, request by request, in the order it logged them.
struct ServerLog {
  std::vector<int> prompt_tokens;  ///< "new prompt, ..., n_prompt_tokens = N": in order of start
  struct Eval {
    double ms = 0;
    int tokens = 0;
  };
  std::vector<Eval> evals;  ///< "eval time = X ms / N tokens": in order of completion
};

inline ServerLog parse_llama_log(const std::string& text) {
  ServerLog log;
  static const std::regex prompt(R"(new prompt, .*n_prompt_tokens = (\d+))");
  static const std::regex eval(R"((^|\n)\s*eval time =\s*([0-9.]+) ms /\s*(\d+) tokens)");
  for (std::sregex_iterator it(text.begin(), text.end(), prompt), end; it != end; ++it)
    log.prompt_tokens.push_back(std::stoi((*it)[1]));
  for (std::sregex_iterator it(text.begin(), text.end(), eval), end; it != end; ++it)
    log.evals.push_back({std::stod((*it)[2]), std::stoi((*it)[3])});
  return log;
}

/// The status of GET path on 127.0.0.1:port, or 0 when nothing answers (2 s at most).
inline int http_status(int port, const std::string& path) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  timeval tv{2, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int status = 0;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    const std::string req = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    char buf[64] = {};
    if (::send(fd, req.data(), req.size(), MSG_NOSIGNAL) > 0 && ::recv(fd, buf, sizeof buf - 1, 0) > 12)
      status = std::atoi(buf + 9);
  }
  ::close(fd);
  return status;
}

/// A llama-server child on a free port, its log in dir; killed when destroyed.
class LlamaServer {
public:
  /// Starts `peer`/llama-server with `peer`/mini.gguf; ready() says whether it came up.
  LlamaServer(const std::string& peer, const testutil::TempDir& dir, const std::string& name) : m_port(free_port()) {
    m_base = dir.file(name);
    m_child = std::make_unique<Child>(
        std::vector<std::string>{peer + "/llama-server", "-m", peer + "/mini.gguf", "--host", "127.0.0.1", "--port",
                                 std::to_string(m_port), "-np", "4", "-c", "4096", "-t", "2", "--metrics"},
        m_base, std::vector<std::string>{}, Child::Stderr::with_out);
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < end && !m_child->finished()) {
      if (http_status(m_port, "/health") == 200) {
        m_ready = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  bool ready() const { return m_ready; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }
  /// Everything it printed so far.
  std::string output() const { return slurp(m_base + ".out"); }
  ServerLog log() const { return parse_llama_log(output()); }
  /// Kills it, as a crash would.
  void kill() { m_child->signal(SIGKILL); }

private:
  int m_port;
  std::string m_base;
  std::unique_ptr<Child> m_child;
  bool m_ready = false;
};

}  // namespace itest
