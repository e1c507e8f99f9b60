#pragma once
// The data a load run is made of: what is sent (a Prompt), how it is paced (a LoadShape), and
// what came back for each request (a RequestRecord). Plain structs; the engine fills them and
// the metrics and renderers read them.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dcukit::load {

/// Which OpenAI-compatible API the requests use.
enum class Api { completions, chat };

/// Why a request failed. `none` is a success.
enum class ErrorClass {
  none,
  http_status,   ///< the server answered with a status other than 200
  timeout,       ///< the request ran past --timeout (a stream that never ends lands here)
  cancelled,     ///< the user stopped the run (Ctrl-C, SIGTERM) before it finished
  protocol,      ///< the bytes were not a valid OpenAI stream or response
  dropped,       ///< the connection closed before the response was complete
  stream_error,  ///< a 200 stream carried `data: {"error": ...}`
  connect,       ///< no connection could be made
};

/// The key used in JSON and tables: "http_status", "timeout", ... (one table both ways).
std::string_view to_string(ErrorClass c);
/// The class named `name`, or nullopt.
std::optional<ErrorClass> parse_error_class(std::string_view name);
/// All classes that are failures, in a stable order.
inline constexpr ErrorClass kFailureClasses[] = {ErrorClass::http_status, ErrorClass::timeout, ErrorClass::cancelled,
                                                 ErrorClass::protocol,    ErrorClass::dropped, ErrorClass::stream_error,
                                                 ErrorClass::connect};

/// One request's input: a text prompt or (completions only) token ids, and its output budget.
struct Prompt {
  std::string text;  ///< used when token_ids is empty
  std::vector<std::int32_t> token_ids;
  int input_tokens = 0;  ///< known length in tokens (0 when unknown)
  int max_tokens = 0;    ///< output budget; 0 lets the server decide
};

/// How requests are paced.
enum class ShapeKind {
  closed,  ///< a fixed number of requests in flight; each completion starts the next
  open,    ///< requests start at scheduled times, whatever is in flight
};

/// "closed" or "open".
std::string_view to_string(ShapeKind k);

/// One load level: the pacing plus the bounds that end it.
struct LoadShape {
  ShapeKind kind = ShapeKind::closed;
  int concurrency = 1;      ///< closed: requests in flight; open: a cap (0 = none)
  double rate = 0;          ///< open: requests per second (infinity = all at once)
  double burstiness = 1.0;  ///< open: gamma shape of the gaps; 1 is a Poisson process
  std::size_t count = 0;    ///< requests to issue (0 = bounded by duration only)
  double duration_s = 0;    ///< stop issuing after this long (0 = bounded by count only)
  std::uint64_t seed = 0;   ///< for the gaps

  /// The cap on requests in flight: a closed loop's concurrency (at least 1), an open loop's cap
  /// (0: none).
  int concurrency_cap() const { return kind == ShapeKind::closed ? std::max(1, concurrency) : concurrency; }
  /// The most requests the shape can have in flight at once: the cap, bounded by the count;
  /// nullopt for an open loop with neither.
  std::optional<std::size_t> max_in_flight() const {
    std::optional<std::size_t> n;
    if (concurrency_cap() > 0) n = static_cast<std::size_t>(concurrency_cap());
    if (count > 0) n = n ? std::min(*n, count) : count;
    return n;
  }
};

/// Everything measured for one request. Times are milliseconds since the run's start.
struct RequestRecord {
  std::size_t index = 0;
  double scheduled_ms = 0;                  ///< when the schedule said to send it
  double sent_ms = 0;                       ///< when it was handed to the transport
  double first_token_ms = -1;               ///< first chunk with non-empty content or reasoning (-1: none)
  double last_token_ms = -1;                ///< last such chunk
  double done_ms = 0;                       ///< when the exchange finished (after [DONE])
  int input_tokens = 0;                     ///< from the server's usage, else the prompt's known length
  int known_input_tokens = 0;               ///< the prompt's length as dcukit made or counted it (0: unknown)
  int output_tokens = 0;                    ///< from the server's usage, else the number of content chunks
  bool usage_reported = false;              ///< the server sent usage (stream_options.include_usage)
  bool streamed = true;                     ///< the reply was an event stream (false: --no-stream, or a plain
                                            ///< JSON body the server sent instead of a stream)
  std::vector<double> chunk_ms;             ///< arrival of each content chunk
  std::vector<std::uint32_t> chunk_bytes;   ///< its content and reasoning bytes
  std::vector<std::uint32_t> chunk_tokens;  ///< its tokens, when every content chunk carried usage; else empty
  std::size_t reasoning_chunks = 0;
  ErrorClass error = ErrorClass::none;
  long http_status = 0;
  std::string error_message;
  std::string text;  ///< the generated text, kept only with --save-detailed

  bool ok() const { return error == ErrorClass::none; }
  /// The server counted fewer prompt tokens than were sent: it cut the prompt.
  bool truncated() const {
    return ok() && usage_reported && known_input_tokens > 0 && input_tokens < known_input_tokens;
  }
};

/// All requests of one load level, in issue order, and what the engine saw while running.
struct RunRecords {
  std::vector<RequestRecord> requests;
  double duration_ms = 0;  ///< from the start to the last completion
  int peak_in_flight = 0;
  int event_loops = 1;     ///< client threads the streams were spread over
  bool cancelled = false;  ///< the user stopped the level before it ended
};

/// Why a run stopped before it measured everything it was asked to.
enum class ProblemKind {
  bad_input,  ///< the input was wrong (a file, a length, a flag): exit 2
  failed,     ///< the server or the client failed: exit 1
};

/// What stopped the run, in words a user can act on.
struct Problem {
  ProblemKind kind = ProblemKind::failed;
  std::string message;
};

}  // namespace dcukit::load
