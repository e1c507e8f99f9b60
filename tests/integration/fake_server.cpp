// A fake OpenAI-compatible server for dcukit load's tests and overhead benchmark. Each event loop
// (fake_loop.cpp) is one thread with an epoll loop and a timer heap, so that thousands of streams
// keep exact token times on a small machine; --threads N runs N of them on one port
// (SO_REUSEPORT: the kernel spreads connections across them) for more streams than one core can
// write. It misbehaves on demand: per run with --mode, per request with the X-Fake-Mode header
// (see fake_protocol.h for the list) or inside the prompt text as "fake-mode=drop"; and it speaks
// as a given real server does where they differ (kFlags below). Listens on 127.0.0.1 only and
// prints "PORT <n>" when ready.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "fake_loop.h"

namespace {

// A non-blocking socket listening on 127.0.0.1:port (0: any free port), or -1.
int listen_on(int port, bool reuse_port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (reuse_port) setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 4096) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

/// One command-line flag: its name, whether it takes a value, what it sets, and its help. A new
/// behaviour is one more row here and one more field in fake::Config.
struct Flag {
  const char* name;
  bool takes_value;
  std::function<void(fake::Config&, const std::string&)> set;
  const char* help;
};

const std::vector<Flag>& flags() {
  using C = fake::Config;
  static const std::vector<Flag> kFlags = {
      {"--port", true, [](C& c, const std::string& v) { c.port = std::stoi(v); }, "port (0: any free one)"},
      {"--threads", true, [](C& c, const std::string& v) { c.threads = std::stoi(v); }, "event loops on the port"},
      {"--ttft-ms", true, [](C& c, const std::string& v) { c.ttft_ms = std::stod(v); }, "time to the first token"},
      {"--itl-ms", true, [](C& c, const std::string& v) { c.itl_ms = std::stod(v); }, "time between tokens"},
      {"--mode", true, [](C& c, const std::string& v) { c.modes = v; }, "misbehaviours for every request"},
      {"--api-key", true, [](C& c, const std::string& v) { c.api_key = v; }, "require this Bearer token"},
      {"--ready-after-ms", true, [](C& c, const std::string& v) { c.ready_after_ms = std::stod(v); },
       "/health and /v1/models answer 503 until then"},
      {"--model", true, [](C& c, const std::string& v) { c.model = v; }, "the model /v1/models lists"},
      {"--models-body", true, [](C& c, const std::string& v) { c.models_body = v; }, "the /v1/models reply, as is"},
      {"--close-after-reply", false, [](C& c, const std::string&) { c.close_after_reply = true; },
       "close the connection after each reply, with no Connection: close (llama.cpp)"},
      {"--reject-token-ids", false, [](C& c, const std::string&) { c.reject_token_ids = true; },
       "HTTP 400 \"prompt must be a string\" to token-id prompts (llama.cpp)"},
      {"--tokenize", true, [](C& c, const std::string& v) { c.tokenize = v; },
       "/tokenize dialect: vllm, llamacpp, tgi, none"},
      {"--metrics", true, [](C& c, const std::string& v) { c.metrics = v; },
       "/metrics dialect: vllm, sglang, llamacpp, tgi, none"},
      {"--template-tokens", true, [](C& c, const std::string& v) { c.template_tokens = std::stoi(v); },
       "tokens a chat template adds to each chat prompt"},
      {"--metrics-auth-status", true, [](C& c, const std::string& v) { c.metrics_auth_status = std::stoi(v); },
       "/metrics answers this HTTP status to a request that carries credentials"},
      {"--max-num-seqs", true, [](C& c, const std::string& v) { c.max_num_seqs = std::stoi(v); },
       "vLLM's: requests generating at once; the others wait"},
      {"--itl-ms-per-seq", true, [](C& c, const std::string& v) { c.itl_ms_per_seq = std::stod(v); },
       "added to --itl-ms for each of --max-num-seqs"},
      {"--oom-above-seqs", true, [](C& c, const std::string& v) { c.oom_above_seqs = std::stoi(v); },
       "exit at start with vLLM's out-of-memory message when --max-num-seqs is above this"},
      {"--gpu-memory-utilization", true, [](C& c, const std::string& v) { c.gpu_memory_utilization = std::stod(v); },
       "vLLM's"},
      {"--oom-above-utilization", true, [](C& c, const std::string& v) { c.oom_above_utilization = std::stod(v); },
       "exit at start with vLLM's out-of-memory message when --gpu-memory-utilization is above this"},
      {"--memory-file", true, [](C& c, const std::string& v) { c.memory_file = v; },
       "write a card's memory there as nvidia-smi's CSV, growing with the requests generating"},
      {"--memory-total-mib", true, [](C& c, const std::string& v) { c.memory_total_mib = std::stod(v); },
       "the card's memory (default 81920)"},
      {"--memory-base-mib", true, [](C& c, const std::string& v) { c.memory_base_mib = std::stod(v); },
       "memory in use with nothing generating"},
      {"--memory-per-seq-mib", true, [](C& c, const std::string& v) { c.memory_per_seq_mib = std::stod(v); },
       "memory each generating request adds"},
      {"--oom-at-seqs", true, [](C& c, const std::string& v) { c.oom_at_seqs = std::stoi(v); },
       "end with vLLM's out-of-memory message when this many requests generate at once"},
      {"--max-num-batched-tokens", true, [](C&, const std::string& v) { (void)std::stoi(v); }, "vLLM's; accepted"},
      {"--max-prompt-tokens", true, [](C& c, const std::string& v) { c.max_prompt_tokens = std::stoi(v); },
       "cut longer prompts to this many tokens, and count them so"},
  };
  return kFlags;
}

/// Applies argv to c; false (after a message) on an unknown flag or a bad value.
bool parse_flags(int argc, char** argv, fake::Config& c) {
  for (int i = 1; i < argc; ++i) {
    const std::string name = argv[i];
    const Flag* flag = nullptr;
    for (const auto& f : flags())
      if (name == f.name) flag = &f;
    if (!flag) {
      std::fprintf(stderr, "fake_server: unknown option %s; the options are:\n", name.c_str());
      for (const auto& f : flags()) std::fprintf(stderr, "  %s%s  %s\n", f.name, f.takes_value ? " V" : "", f.help);
      return false;
    }
    std::string value;
    if (flag->takes_value) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "fake_server: %s needs a value\n", flag->name);
        return false;
      }
      value = argv[++i];
    }
    try {
      flag->set(c, value);
    } catch (const std::exception&) {
      std::fprintf(stderr, "fake_server: %s %s: not a number\n", flag->name, value.c_str());
      return false;
    }
  }
  return true;
}

int bound_port(int fd) {
  sockaddr_in addr{};
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  return ntohs(addr.sin_port);
}

}  // namespace

int main(int argc, char** argv) {
  fake::Shared shared;
  fake::Config& c = shared.cfg;
  if (!parse_flags(argc, argv, c)) return 2;
  if (c.oom_above_seqs > 0 && c.max_num_seqs > c.oom_above_seqs) {
    std::fprintf(stderr,
                 "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB for %d sequences "
                 "(fake_server --oom-above-seqs %d)\n",
                 c.max_num_seqs, c.oom_above_seqs);
    return 1;
  }
  if (c.oom_above_utilization > 0 && c.gpu_memory_utilization > c.oom_above_utilization) {
    std::fprintf(stderr,
                 "torch.OutOfMemoryError: CUDA out of memory while profiling at --gpu-memory-utilization %g "
                 "(fake_server --oom-above-utilization %g)\n",
                 c.gpu_memory_utilization, c.oom_above_utilization);
    return 1;
  }
  fake::running_changed(c, 0);
  c.itl_ms += c.itl_ms_per_seq * c.max_num_seqs;
  if (c.threads < 1) {
    std::fprintf(stderr, "fake_server: --threads must be at least 1\n");
    return 2;
  }
  // The first socket picks the port (when --port is 0); the others join it. One loop alone keeps
  // the port to itself (no SO_REUSEPORT).
  const bool reuse_port = c.threads > 1;
  std::vector<int> fds;
  for (int i = 0; i < c.threads; ++i) {
    const int fd = listen_on(fds.empty() ? c.port : bound_port(fds.front()), reuse_port);
    if (fd < 0) {
      std::perror("fake_server: bind/listen");
      return 1;
    }
    fds.push_back(fd);
    shared.counters.push_back(std::make_unique<fake::Counters>());
  }
  std::printf("PORT %d\n", bound_port(fds.front()));
  std::fflush(stdout);
  std::vector<std::thread> others;
  for (std::size_t i = 1; i < fds.size(); ++i) others.emplace_back(fake::run_loop, std::cref(shared), i, fds[i]);
  fake::run_loop(shared, 0, fds.front());
}
