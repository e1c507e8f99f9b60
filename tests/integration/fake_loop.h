#pragma once
// One event loop of the fake server (fake_server.cpp): an epoll loop and a timer heap on a
// timerfd (absolute times) serving the connections accepted on its own listening socket. With
// --threads N the server runs N loops, one a thread, each with a socket bound to the same port
// (SO_REUSEPORT); they share nothing but the options and the counters /metrics reports.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace fake {

using Clock = std::chrono::steady_clock;

/// The server's behaviour, set by its flags (fake_server.cpp lists them).
struct Config {
  int port = 0;
  int threads = 1;
  double ttft_ms = 50, itl_ms = 10;
  double ready_after_ms = 0;
  std::string modes, api_key, model = "fake-model";
  bool close_after_reply = false;  ///< close the connection after each reply, as llama.cpp does
  bool reject_token_ids = false;   ///< HTTP 400 to a token-id prompt, as llama.cpp does
  std::string tokenize = "vllm";   ///< /tokenize dialect: vllm, llamacpp, tgi, none
  std::string metrics = "vllm";    ///< /metrics dialect: vllm, sglang, llamacpp, tgi, none
  int template_tokens = 0;         ///< tokens a chat template adds to each chat prompt
  int max_prompt_tokens = 0;       ///< longer prompts are cut to this many tokens (0: never)
  std::string models_body;         ///< the /v1/models reply body ("" = one model, named model)
  int metrics_auth_status = 0;     ///< /metrics answers this status to a request with credentials (0: never)
  /// vLLM's --max-num-seqs: at most this many requests generate at once a loop, the others wait
  /// their turn (0: no limit). The time between tokens grows by itl_ms_per_seq for each seq
  /// allowed (a bigger batch steps slower), and a limit above oom_above_seqs exits at start-up
  /// with vLLM's out-of-memory message: a fake engine whose best setting is known.
  int max_num_seqs = 0;
  double itl_ms_per_seq = 0;
  int oom_above_seqs = 0;
  /// vLLM's --gpu-memory-utilization; above oom_above_utilization the start fails out of memory.
  double gpu_memory_utilization = 0.9, oom_above_utilization = 0;
  /// A card's memory as nvidia-smi's CSV prints it, written to memory_file at start and whenever
  /// the number of requests generating changes: base + per_seq x generating, of total (MiB). At
  /// oom_at_seqs generating requests the server ends with vLLM's out-of-memory message (a
  /// setting that starts and then runs out of memory under load).
  std::string memory_file;
  double memory_total_mib = 81920, memory_base_mib = 0, memory_per_seq_mib = 0;
  int oom_at_seqs = 0;
};

/// Writes c.memory_file (when set) for `generating` requests; at c.oom_at_seqs ends the process.
void running_changed(const Config& c, int generating);

/// What one loop has served. Written only by its own loop's thread, read by whichever loop
/// serves /metrics, which sums (and, for the max, takes the maximum of) all loops' counters.
struct alignas(64) Counters {
  std::atomic<long long> prompt{0}, generation{0}, requests{0}, health{0};
  std::atomic<int> active{0};
  std::atomic<double> late_sum_ms{0}, late_max_ms{0};  // how far token writes ran behind their schedule
  std::atomic<long long> late_n{0};
};

/// What all loops share, read-only once the loops start (the counters are atomics).
struct Shared {
  Config cfg;
  Clock::time_point boot = Clock::now();
  std::vector<std::unique_ptr<Counters>> counters;  // one a loop
};

/// Serves listen_fd (bound, listening, non-blocking) for ever on the calling thread, counting into
/// shared.counters[index].
[[noreturn]] void run_loop(const Shared& shared, std::size_t index, int listen_fd);

}  // namespace fake
