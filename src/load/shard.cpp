#include "load/shard.h"

#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <unordered_set>

#include "load/schedule.h"
#include "util/unique_fd.h"

namespace dcukit::load {
namespace {

constexpr auto kNever = Clock::time_point::max();

}  // namespace

/// What outlives one run: the multi handle (and so its connection cache), the descriptors and
/// the pool of idle exchanges.
struct Shard::State {
  util::UniqueFd epoll{epoll_create1(EPOLL_CLOEXEC)};
  util::UniqueFd timer{timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC)};
  std::vector<std::unique_ptr<Exchange>> idle;
  Clock::time_point curl_deadline = kNever;  // when curl wants CURL_SOCKET_TIMEOUT
  bool timer_added = false;
  int stop_fd = -1;                          // the stop token's descriptor, once added to the epoll set
  util::CurlMulti multi{curl_multi_init()};  // last: cleaned up first, while the rest lives

  /// CURLMOPT_SOCKETFUNCTION: keeps curl's sockets in the epoll set.
  static int on_socket(CURL*, curl_socket_t s, int what, void* userp, void* socketp);
  /// CURLMOPT_TIMERFUNCTION: records curl's next deadline.
  static int on_timer(CURLM*, long timeout_ms, void* userp);
};

int Shard::State::on_socket(CURL*, curl_socket_t s, int what, void* userp, void* socketp) {
  auto* self = static_cast<Shard::State*>(userp);
  const int ep = self->epoll.get();
  if (what == CURL_POLL_REMOVE) {
    epoll_ctl(ep, EPOLL_CTL_DEL, s, nullptr);
    curl_multi_assign(self->multi.get(), s, nullptr);
    return 0;
  }
  epoll_event ev{};
  ev.events = ((what & CURL_POLL_IN) ? EPOLLIN : 0u) | ((what & CURL_POLL_OUT) ? EPOLLOUT : 0u);
  ev.data.fd = s;
  const int op = socketp ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
  if (epoll_ctl(ep, op, s, &ev) != 0) {
    epoll_ctl(ep, errno == EEXIST ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, s, &ev);
  }
  if (!socketp) curl_multi_assign(self->multi.get(), s, self);
  return 0;
}

int Shard::State::on_timer(CURLM*, long timeout_ms, void* userp) {
  auto* self = static_cast<Shard::State*>(userp);
  self->curl_deadline = timeout_ms < 0 ? kNever : Clock::now() + std::chrono::milliseconds(timeout_ms);
  return 0;
}

namespace {

std::size_t write_cb(char* data, std::size_t size, std::size_t n, void* user) {
  return static_cast<Exchange*>(user)->on_bytes(data, size * n);
}

std::size_t read_cb(char* buffer, std::size_t size, std::size_t n, void* user) {
  return static_cast<Exchange*>(user)->on_read(buffer, size * n);
}

int seek_cb(void* user, curl_off_t offset, int origin) {
  if (origin != SEEK_SET || offset < 0) return CURL_SEEKFUNC_CANTSEEK;
  return static_cast<Exchange*>(user)->on_seek(static_cast<std::size_t>(offset)) ? CURL_SEEKFUNC_OK
                                                                                 : CURL_SEEKFUNC_FAIL;
}

/// One shard's event loop for one run.
class Loop {
public:
  Loop(Shard::State& state, const EngineConfig& config, const std::vector<Prompt>& prompts, const LoadShape& shape,
       const ShardPlan& plan, RunShared& shared)
      : m_config(config),
        m_prompts(prompts),
        m_shape(shape),
        m_plan(plan),
        m_shared(shared),
        m_state(state),
        m_schedule(shape.rate, shape.burstiness, shape.seed),
        m_t0(shared.t0) {
    for (const auto& h : config.headers) m_headers.add(h);
    m_headers.add("Content-Type: application/json");
    m_headers.add("Expect:");  // no 100-continue round trip
    if (config.body.stream) m_headers.add("Accept: text/event-stream");
    // An open loop's shard sends requests plan.index, plan.index + plan.count, ...: it draws
    // the same schedule as every other shard and skips to its own slots.
    m_next_index = plan.index;
    take_slot(plan.index);
  }

  ~Loop() {
    for (Exchange* t : m_active) {
      curl_multi_remove_handle(m_state.multi.get(), t->easy());
      delete t;
    }
  }
  Loop(const Loop&) = delete;
  Loop& operator=(const Loop&) = delete;

  Result<RunRecords> run();

private:
  bool may_issue(Clock::time_point now) const;
  bool has_room() const { return m_plan.cap <= 0 || m_in_flight < static_cast<std::size_t>(m_plan.cap); }
  void take_slot(std::size_t skip);
  void issue(Clock::time_point now);
  void send(std::size_t index, Clock::time_point scheduled, Clock::time_point now);
  void reap();
  void abandon_all();
  void arm(Clock::time_point when);
  Clock::time_point wake_time(Clock::time_point now) const;
  void dispatch(const epoll_event& e, int* running);
  double ms(Clock::time_point t) const { return std::chrono::duration<double, std::milli>(t - m_t0).count(); }

  const EngineConfig& m_config;
  const std::vector<Prompt>& m_prompts;
  const LoadShape& m_shape;
  const ShardPlan& m_plan;
  RunShared& m_shared;
  Shard::State& m_state;
  util::HeaderList m_headers;
  SendSchedule m_schedule;  // open loop: every request's time; this shard takes its own
  Clock::time_point m_t0, m_next_send;
  std::size_t m_next_index = 0;            // open loop: the next request this shard sends
  bool m_exhausted = false;                // closed loop: the run's request count is used up
  std::unordered_set<Exchange*> m_active;  // owned while in curl's hands
  std::size_t m_in_flight = 0;
  RunRecords m_out;
};

bool Loop::may_issue(Clock::time_point now) const {
  if (m_shared.stopping() || m_exhausted) return false;
  const bool open = m_shape.kind == ShapeKind::open;
  if (open && m_shape.count > 0 && m_next_index >= m_shape.count) return false;
  if (m_shape.duration_s > 0) {
    const auto limit = std::chrono::duration<double>(m_shape.duration_s);
    if (now - m_t0 >= limit) return false;
    if (open && m_next_send - m_t0 >= limit) return false;
  }
  return true;
}

/// Skips `skip` slots of the schedule (other shards' requests) and takes the next as m_next_send.
void Loop::take_slot(std::size_t skip) {
  for (std::size_t k = 0; k < skip; ++k) m_schedule.next();
  m_next_send = m_t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(m_schedule.next()));
}

void Loop::issue(Clock::time_point now) {
  if (m_shape.kind == ShapeKind::closed) {
    while (has_room() && may_issue(now)) {
      const std::size_t index = m_shared.next.fetch_add(1, std::memory_order_relaxed);
      if (m_shape.count > 0 && index >= m_shape.count) {
        m_exhausted = true;
        break;
      }
      send(index, now, now);
    }
    return;
  }
  while (may_issue(now) && m_next_send <= now && has_room()) {
    send(m_next_index, m_next_send, now);
    m_next_index += m_plan.count;
    take_slot(m_plan.count - 1);
    now = Clock::now();
  }
}

void Loop::send(std::size_t index, Clock::time_point scheduled, Clock::time_point now) {
  std::unique_ptr<Exchange> t;
  if (m_state.idle.empty()) {
    t = std::make_unique<Exchange>();
  } else {
    t = std::move(m_state.idle.back());
    m_state.idle.pop_back();
  }
  const Prompt& prompt = m_prompts[index % m_prompts.size()];
  t->reset(index, build_body(prompt, m_config.body), m_config.body.stream, m_config.keep_text, m_t0);
  RequestRecord& rec = t->record();
  rec.scheduled_ms = ms(scheduled);
  rec.input_tokens = prompt.input_tokens;
  rec.known_input_tokens = prompt.input_tokens;
  CURL* h = t->easy();
  curl_easy_setopt(h, CURLOPT_URL, m_config.url.c_str());
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_POST, 1L);
  // The body goes through the read callback so that the first read marks the actual send.
  curl_easy_setopt(h, CURLOPT_READFUNCTION, read_cb);
  curl_easy_setopt(h, CURLOPT_READDATA, t.get());
  curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, seek_cb);
  curl_easy_setopt(h, CURLOPT_SEEKDATA, t.get());
  curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(t->body().size()));
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, m_headers.get());
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, write_cb);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, t.get());
  curl_easy_setopt(h, CURLOPT_PRIVATE, t.get());
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, t->error_buffer());
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(m_config.timeout.count()));
  curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
  curl_easy_setopt(h, CURLOPT_EXPECT_100_TIMEOUT_MS, 0L);
  m_config.tls.apply(h);
  rec.sent_ms = ms(now);
  ++m_in_flight;
  m_shared.started();
  curl_multi_add_handle(m_state.multi.get(), h);
  m_active.insert(t.get());
  (void)t.release();  // owned through CURLOPT_PRIVATE until reap()
}

void Loop::reap() {
  int left = 0;
  while (CURLMsg* msg = curl_multi_info_read(m_state.multi.get(), &left)) {
    if (msg->msg != CURLMSG_DONE) continue;
    CURL* h = msg->easy_handle;
    const CURLcode code = msg->data.result;
    Exchange* raw = nullptr;
    curl_easy_getinfo(h, CURLINFO_PRIVATE, &raw);
    std::unique_ptr<Exchange> t(raw);
    m_active.erase(raw);
    curl_multi_remove_handle(m_state.multi.get(), h);
    if (t->rearm_after_stale_connection(code)) {  // the server had closed the reused connection
      curl_multi_add_handle(m_state.multi.get(), h);
      m_active.insert(raw);
      (void)t.release();
      continue;
    }
    t->complete(code, t->error_buffer());
    RequestRecord& rec = t->record();
    if (!rec.usage_reported && rec.input_tokens == 0)
      rec.input_tokens = m_prompts[rec.index % m_prompts.size()].input_tokens;
    m_shared.finished(rec.ok());
    m_out.requests.push_back(std::move(rec));
    --m_in_flight;
    m_state.idle.push_back(std::move(t));
  }
}

// The run was stopped: by the user (Ctrl-C, SIGTERM), or because another loop failed. The
// requests in flight are recorded as cancelled, with what they had received so far dropped.
void Loop::abandon_all() {
  const bool by_user = m_shared.stop_asked();
  for (Exchange* raw : m_active) {
    std::unique_ptr<Exchange> t(raw);
    curl_multi_remove_handle(m_state.multi.get(), t->easy());
    RequestRecord& rec = t->record();
    rec.done_ms = ms(Clock::now());
    rec.error = ErrorClass::cancelled;
    rec.error_message = by_user ? "cancelled: the run was stopped (Ctrl-C or SIGTERM) before it finished"
                                : "cancelled: another event loop of the client failed";
    rec.chunk_tokens.clear();
    m_shared.finished(false);
    m_out.requests.push_back(std::move(rec));
    m_state.idle.push_back(std::move(t));
  }
  m_active.clear();
  m_in_flight = 0;
}

void Loop::arm(Clock::time_point when) {
  itimerspec its{};
  if (when != kNever) {
    const auto ns = std::max<std::int64_t>(
        1, std::chrono::duration_cast<std::chrono::nanoseconds>(when.time_since_epoch()).count());
    its.it_value.tv_sec = static_cast<time_t>(ns / 1000000000);
    its.it_value.tv_nsec = static_cast<long>(ns % 1000000000);
  }
  timerfd_settime(m_state.timer.get(), TFD_TIMER_ABSTIME, &its, nullptr);
}

/// The next time the loop must act without a socket event: curl's deadline, the next scheduled
/// send, the end of a duration-bounded run, and at least every 250 ms to see a stop.
Clock::time_point Loop::wake_time(Clock::time_point now) const {
  Clock::time_point wake = std::min(m_state.curl_deadline, now + std::chrono::milliseconds(250));
  if (m_shape.kind == ShapeKind::open && may_issue(now) && has_room()) wake = std::min(wake, m_next_send);
  if (m_shape.duration_s > 0) {
    const auto end =
        m_t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(m_shape.duration_s));
    if (end > now) wake = std::min(wake, end);
  }
  return wake;
}

void Loop::dispatch(const epoll_event& e, int* running) {
  const int fd = e.data.fd;
  if (fd == m_state.timer.get()) {
    std::uint64_t expirations = 0;
    (void)!::read(fd, &expirations, sizeof expirations);
    return;
  }
  if (fd == m_state.stop_fd) return;  // the loop sees the stop at its top
  int mask = 0;
  if (e.events & (EPOLLIN | EPOLLHUP | EPOLLRDHUP)) mask |= CURL_CSELECT_IN;
  if (e.events & EPOLLOUT) mask |= CURL_CSELECT_OUT;
  if (e.events & EPOLLERR) mask |= CURL_CSELECT_ERR;
  curl_multi_socket_action(m_state.multi.get(), fd, mask, running);
}

Result<RunRecords> Loop::run() {
  if (m_state.epoll.get() < 0 || m_state.timer.get() < 0) return Error{"cannot create epoll or timerfd descriptors"};
  if (!m_state.multi) return Error{"curl_multi_init failed"};
  if (m_prompts.empty()) return Error{"no prompts to send"};
  CURLM* multi = m_state.multi.get();
  curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, Shard::State::on_socket);
  curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, &m_state);
  curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, Shard::State::on_timer);
  curl_multi_setopt(multi, CURLMOPT_TIMERDATA, &m_state);
  curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, 100000L);
  if (!m_state.timer_added) {
    epoll_event tev{};
    tev.events = EPOLLIN;
    tev.data.fd = m_state.timer.get();
    epoll_ctl(m_state.epoll.get(), EPOLL_CTL_ADD, m_state.timer.get(), &tev);
    m_state.timer_added = true;
  }
  // A stop (Ctrl-C, SIGTERM) wakes the loop at once, not at its next 250 ms tick.
  if (m_shared.token && m_shared.token->fd() >= 0 && m_state.stop_fd != m_shared.token->fd()) {
    epoll_event sev{};
    sev.events = EPOLLIN;
    sev.data.fd = m_shared.token->fd();
    if (epoll_ctl(m_state.epoll.get(), EPOLL_CTL_ADD, sev.data.fd, &sev) == 0) m_state.stop_fd = sev.data.fd;
  }

  std::vector<epoll_event> events(1024);
  int running = 0;
  for (;;) {
    const Clock::time_point now = Clock::now();
    if (m_shared.stopping()) {
      abandon_all();
      break;
    }
    issue(now);
    if (m_in_flight == 0 && !may_issue(now)) break;
    const Clock::time_point wake = wake_time(now);
    int n = 0;
    if (wake > now) {
      arm(wake);
      n = epoll_wait(m_state.epoll.get(), events.data(), static_cast<int>(events.size()), 1000);
      if (n < 0 && errno != EINTR) return Error{"epoll_wait failed"};
    }
    for (int i = 0; i < n; ++i) dispatch(events[static_cast<std::size_t>(i)], &running);
    if (Clock::now() >= m_state.curl_deadline) {
      m_state.curl_deadline = kNever;
      curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running);
    }
    reap();
  }
  return std::move(m_out);
}

}  // namespace

Shard::Shard() : m_state(std::make_unique<State>()) {}

Shard::~Shard() = default;

Result<RunRecords> Shard::run(const EngineConfig& config, const std::vector<Prompt>& prompts, const LoadShape& shape,
                              const ShardPlan& plan, RunShared& shared) {
  Loop loop(*m_state, config, prompts, shape, plan, shared);
  auto r = loop.run();
  if (!r) shared.abort.store(true);
  return r;
}

}  // namespace dcukit::load
