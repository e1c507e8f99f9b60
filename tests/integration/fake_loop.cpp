// One event loop of the fake server; see fake_loop.h. Token c of a stream goes out at
// arrival + ttft + c * itl.
#include "fake_loop.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include "fake_dialects.h"
#include "fake_protocol.h"

namespace fake {
namespace {

struct Conn {
  int fd = -1;
  std::uint64_t gen = 0;
  std::string in, out;
  bool want_write = false;
  bool busy = false;         // a response is in progress
  bool close_after = false;  // close once the reply's last bytes are written
  bool running = false;      // holds one of --max-num-seqs' places
  fake::GenRequest req;
  fake::Modes modes;
  Clock::time_point start;
  int chunks = 0, per_chunk = 1, tokens = 0;
  std::string coalesced;
  std::deque<std::string> pieces;  // framed bytes waiting for PIECE timers
};

enum class Action { chunk, piece, full, close };

struct Timer {
  Clock::time_point at;
  int fd;
  std::uint64_t gen;
  Action action;
  int arg;
  bool operator>(const Timer& o) const { return at > o.at; }
};

// Counters have one writer (their loop), so a plain load and store is enough.
template <typename T>
void add(std::atomic<T>& a, T d) {
  a.store(a.load(std::memory_order_relaxed) + d, std::memory_order_relaxed);
}

class Loop {
public:
  Loop(const Shared& shared, std::size_t index, int listen_fd)
      : m_shared(shared), m_cfg(shared.cfg), m_counts(*shared.counters[index]), m_listen(listen_fd) {}
  [[noreturn]] void run();

private:
  void on_readable(Conn& c);
  void handle(Conn& c, const std::string& method, const std::string& path, const std::string& body,
              const std::unordered_map<std::string, std::string>& headers);
  void respond(Conn& c, int status, const std::string& type, const std::string& body);
  void start_stream(Conn& c);
  void begin(Conn& c, Clock::time_point now);
  void release(Conn& c);
  void on_timer(const Timer& t);
  void emit_chunk(Conn& c, int index);
  void emit(Conn& c, const std::string& sse);
  void write_framed(Conn& c, std::string framed);
  void finish(Conn& c);
  void write_raw(Conn& c, const std::string& bytes);
  void flush(Conn& c);
  void close_conn(Conn& c);
  void reply_done(Conn& c);
  void schedule(Conn& c, Clock::time_point at, Action a, int arg) { m_timers.push(Timer{at, c.fd, c.gen, a, arg}); }
  std::string metrics_text() const;

  const Shared& m_shared;
  const Config& m_cfg;
  Counters& m_counts;
  int m_listen, m_ep = -1, m_tfd = -1;
  std::uint64_t m_next_gen = 1;
  std::unordered_map<int, std::unique_ptr<Conn>> m_conns;
  int m_running = 0;                                     // requests generating (--max-num-seqs)
  std::deque<std::pair<int, std::uint64_t>> m_waiting;  // (fd, gen) of requests waiting for a place
  std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> m_timers;
};

std::chrono::nanoseconds ms(double v) {
  return std::chrono::nanoseconds(static_cast<long long>(v * 1e6));
}

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

void Loop::write_raw(Conn& c, const std::string& bytes) {
  if (c.fd < 0) return;
  if (!c.out.empty()) {
    c.out += bytes;
    return;
  }
  std::size_t off = 0;
  while (off < bytes.size()) {
    const ssize_t n = ::send(c.fd, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
    if (n > 0) {
      off += static_cast<std::size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  if (off < bytes.size()) {
    c.out.assign(bytes, off, std::string::npos);
    if (!c.want_write) {
      epoll_event ev{};
      ev.events = EPOLLIN | EPOLLOUT;
      ev.data.fd = c.fd;
      epoll_ctl(m_ep, EPOLL_CTL_MOD, c.fd, &ev);
      c.want_write = true;
    }
  }
}

void Loop::flush(Conn& c) {
  std::string pending = std::move(c.out);
  c.out.clear();
  write_raw(c, pending);
  if (c.out.empty() && c.want_write) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = c.fd;
    epoll_ctl(m_ep, EPOLL_CTL_MOD, c.fd, &ev);
    c.want_write = false;
  }
}

// A reply is complete (its bytes written or queued). With --close-after-reply the connection
// closes a moment after they are out, with no "Connection: close" header and without reading
// what came meanwhile, as llama.cpp's server does after a streamed reply: a client that reuses
// the connection at once has sent its next request into a connection about to die.
void Loop::reply_done(Conn& c) {
  c.busy = false;
  release(c);
  if (!m_cfg.close_after_reply) return;
  c.close_after = true;
  schedule(c, Clock::now() + ms(2), Action::close, 0);
}

// A request that held a place gives it up; the first waiting request still connected starts.
void Loop::release(Conn& c) {
  if (!c.running) return;
  c.running = false;
  --m_running;
  running_changed(m_cfg, m_running);
  while (!m_waiting.empty()) {
    const auto [fd, gen] = m_waiting.front();
    m_waiting.pop_front();
    const auto it = m_conns.find(fd);
    if (it == m_conns.end() || it->second->gen != gen || !it->second->busy) continue;
    ++m_running;
    running_changed(m_cfg, m_running);
    it->second->running = true;
    begin(*it->second, Clock::now());
    return;
  }
}

void Loop::close_conn(Conn& c) {
  const int fd = c.fd;
  if (c.busy && c.req.stream && c.running) add(m_counts.active, -1);
  release(c);
  epoll_ctl(m_ep, EPOLL_CTL_DEL, fd, nullptr);
  ::close(fd);
  m_conns.erase(fd);  // destroys c
}

void Loop::respond(Conn& c, int status, const std::string& type, const std::string& body) {
  const char* reason = status == 200 ? "OK" : status < 500 ? "Client Error" : "Server Error";
  write_raw(c, "HTTP/1.1 " + std::to_string(status) + " " + reason +
                   "\r\nKeep-Alive: timeout=5, max=100\r\nContent-Type: " + type +
                   "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
}

void Loop::on_readable(Conn& c) {
  char buf[65536];
  for (;;) {
    const ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
    if (n > 0) {
      c.in.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
      close_conn(c);
      return;
    }
    if (errno == EINTR) continue;
    break;
  }
  while (!c.busy && !c.close_after) {
    const auto end = c.in.find("\r\n\r\n");
    if (end == std::string::npos) return;
    const std::string head = c.in.substr(0, end);
    std::unordered_map<std::string, std::string> headers;
    std::size_t line_end = head.find("\r\n");
    const std::string request_line = head.substr(0, line_end);
    while (line_end != std::string::npos) {
      const std::size_t next = head.find("\r\n", line_end + 2);
      const std::string line =
          head.substr(line_end + 2, next == std::string::npos ? std::string::npos : next - line_end - 2);
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        std::string value = line.substr(colon + 1);
        while (!value.empty() && value.front() == ' ') value.erase(value.begin());
        headers[lower(line.substr(0, colon))] = value;
      }
      line_end = next;
    }
    std::size_t length = 0;
    if (auto it = headers.find("content-length"); it != headers.end()) length = std::stoul(it->second);
    if (c.in.size() < end + 4 + length) return;
    const std::string body = c.in.substr(end + 4, length);
    c.in.erase(0, end + 4 + length);
    const auto sp1 = request_line.find(' ');
    const auto sp2 = request_line.find(' ', sp1 + 1);
    const std::string method = request_line.substr(0, sp1);
    const std::string path = request_line.substr(sp1 + 1, sp2 - sp1 - 1);
    const int fd = c.fd;
    handle(c, method, path, body, headers);
    if (!m_conns.count(fd)) return;  // closed while handling
  }
}

void Loop::handle(Conn& c, const std::string& method, const std::string& path, const std::string& body,
                  const std::unordered_map<std::string, std::string>& headers) {
  const auto now = Clock::now();
  if (path == "/health") {
    const bool ready = now - m_shared.boot >= ms(m_cfg.ready_after_ms);
    add(m_counts.health, 1LL);
    return respond(c, ready ? 200 : 503, "text/plain", ready ? "" : "starting");
  }
  if (path == "/metrics") {
    if (m_cfg.metrics_auth_status != 0 && headers.count("authorization"))
      return respond(c, m_cfg.metrics_auth_status, "text/plain", "credentials were sent to /metrics");
    return respond(c, 200, "text/plain; version=0.0.4", metrics_text());
  }
  if (path == "/v1/models") {
    if (now - m_shared.boot < ms(m_cfg.ready_after_ms))
      return respond(c, 503, "application/json", "{\"error\":\"loading\"}");
    return respond(c, 200, "application/json",
                   !m_cfg.models_body.empty()
                       ? m_cfg.models_body
                       : "{\"object\":\"list\",\"data\":[{\"id\":\"" + m_cfg.model + "\",\"object\":\"model\"}]}");
  }
  if (path == "/tokenize" && method == "POST") {
    const fake::Reply r = fake::tokenize_reply(m_cfg.tokenize, body, m_cfg.template_tokens);
    return respond(c, r.status, r.type, r.body);
  }
  const bool chat = path == "/v1/chat/completions";
  if (!chat && path != "/v1/completions") return respond(c, 404, "application/json", "{\"error\":\"no such route\"}");
  if (!m_cfg.api_key.empty()) {
    const auto it = headers.find("authorization");
    if (it == headers.end() || it->second != "Bearer " + m_cfg.api_key) {
      return respond(c, 401, "application/json", "{\"error\":{\"message\":\"bad api key\",\"code\":401}}");
    }
  }
  c.modes = fake::Modes{};
  fake::parse_modes(m_cfg.modes, c.modes);
  if (auto it = headers.find("x-fake-mode"); it != headers.end()) fake::parse_modes(it->second, c.modes);
  if (c.modes.status != 200) {
    return respond(c, c.modes.status, "application/json",
                   "{\"object\":\"error\",\"message\":\"fake status\",\"type\":\"Error\",\"code\":" +
                       std::to_string(c.modes.status) + "}");
  }
  const auto in_prompt = body.find("fake-mode=");
  if (in_prompt != std::string::npos) {
    const auto end = body.find_first_of(" \\\"", in_prompt);
    fake::parse_modes(body.substr(in_prompt + 10, end == std::string::npos ? std::string::npos : end - in_prompt - 10),
                      c.modes);
    if (c.modes.status != 200) {
      return respond(
          c, c.modes.status, "application/json",
          "{\"object\":\"error\",\"message\":\"fake status\",\"code\":" + std::to_string(c.modes.status) + "}");
    }
  }
  if (!fake::parse_gen_request(body, chat, c.req))
    return respond(c, 400, "application/json", "{\"error\":\"bad json\"}");
  if (m_cfg.reject_token_ids && body.find("\"prompt\":[") != std::string::npos)
    return respond(
        c, 400, "application/json",
        "{\"error\":{\"code\":400,\"message\":\"prompt must be a string\",\"type\":\"invalid_request_error\"}}");
  if (chat) c.req.prompt_tokens += m_cfg.template_tokens;
  if (m_cfg.max_prompt_tokens > 0) c.req.prompt_tokens = std::min(c.req.prompt_tokens, m_cfg.max_prompt_tokens);
  if (c.modes.has("ignore_continuous")) c.req.continuous_usage = false;
  add(m_counts.requests, 1LL);
  add(m_counts.prompt, static_cast<long long>(c.req.prompt_tokens));
  c.busy = true;
  if (m_cfg.max_num_seqs > 0 && m_running >= m_cfg.max_num_seqs) {  // its turn comes in release()
    m_waiting.emplace_back(c.fd, c.gen);
    return;
  }
  ++m_running;
  running_changed(m_cfg, m_running);
  c.running = true;
  begin(c, now);
}

void Loop::begin(Conn& c, Clock::time_point now) {
  c.start = now;
  c.per_chunk = c.modes.has("multi") ? 3 : 1;
  c.tokens = std::max(1, c.req.max_tokens);
  c.chunks = (c.tokens + c.per_chunk - 1) / c.per_chunk;
  if (!c.req.stream || c.modes.has("json_reply")) {
    schedule(c, now + ms(m_cfg.ttft_ms + (c.tokens - 1) * m_cfg.itl_ms), Action::full, 0);
    return;
  }
  start_stream(c);
}

void Loop::start_stream(Conn& c) {
  add(m_counts.active, 1);
  write_raw(c,
            "HTTP/1.1 200 OK\r\nKeep-Alive: timeout=5, max=100\r\nContent-Type: text/event-stream\r\nCache-Control: "
            "no-cache\r\nTransfer-Encoding: chunked\r\n\r\n");
  if (c.modes.has("roleonly")) emit(c, fake::empty_event(c.req, c.modes, true));
  schedule(c, c.start + ms(m_cfg.ttft_ms), Action::chunk, 0);
}

std::string chunked(const std::string& data) {
  char len[32];
  std::snprintf(len, sizeof len, "%zx\r\n", data.size());
  return len + data + "\r\n";
}

void Loop::write_framed(Conn& c, std::string framed) {
  if (!c.pieces.empty()) {
    c.pieces.push_back(std::move(framed));
    return;
  }
  write_raw(c, framed);
}

// Writes one SSE event; split and utf8 modes cut it into HTTP chunks sent 1 ms apart, so that
// the client reads them separately.
void Loop::emit(Conn& c, const std::string& sse) {
  std::vector<std::string> parts;
  if (c.modes.has("utf8")) {
    std::size_t cut = 0;
    for (std::size_t i = 0; i < sse.size(); ++i) {
      if (static_cast<unsigned char>(sse[i]) >= 0xC0) {
        cut = i + 1;  // inside a multi-byte sequence
        break;
      }
    }
    if (cut > 0) {
      parts = {sse.substr(0, cut), sse.substr(cut)};
    } else {
      parts = {sse};
    }
  } else if (c.modes.has("split") && sse.size() >= 3) {
    const std::size_t third = sse.size() / 3;
    parts = {sse.substr(0, third), sse.substr(third, third), sse.substr(2 * third)};
  } else {
    parts = {sse};
  }
  const bool was_idle = c.pieces.empty();
  write_framed(c, chunked(parts[0]));
  for (std::size_t i = 1; i < parts.size(); ++i) c.pieces.push_back(chunked(parts[i]));
  if (was_idle && !c.pieces.empty()) schedule(c, Clock::now() + ms(1), Action::piece, 0);
}

void Loop::finish(Conn& c) {
  if (c.req.include_usage && !c.modes.has("nousage")) emit(c, fake::usage_event(c.req, c.modes, c.tokens));
  if (!c.modes.has("nodone")) emit(c, fake::done_event(c.modes));
  write_framed(c, "0\r\n\r\n");
  add(m_counts.generation, static_cast<long long>(c.tokens));
  add(m_counts.active, -1);
  reply_done(c);
}

void Loop::emit_chunk(Conn& c, int index) {
  const auto& m = c.modes;
  const double late =
      std::chrono::duration<double, std::milli>(Clock::now() - (c.start + ms(m_cfg.ttft_ms + index * m_cfg.itl_ms)))
          .count();
  add(m_counts.late_sum_ms, late);
  if (late > m_counts.late_max_ms.load(std::memory_order_relaxed))
    m_counts.late_max_ms.store(late, std::memory_order_relaxed);
  add(m_counts.late_n, 1LL);
  if (index == 2 && c.chunks > 3) {
    if (m.has("drop")) return close_conn(c);
    if (m.has("hang")) return;  // never another byte; the connection stays open
    if (m.has("error")) {
      emit(c, fake::error_event(m));
      emit(c, fake::done_event(m));
      write_framed(c, "0\r\n\r\n");
      add(m_counts.active, -1);
      return reply_done(c);
    }
    if (m.has("badjson")) emit(c, "data: {\"choices\": [\n\n");
  }
  const int first_token = index * c.per_chunk;
  const int n = std::min(c.per_chunk, c.tokens - first_token);
  std::string text;
  for (int i = 0; i < n; ++i) text += m.has("utf8") ? " \xC3\xA9\xE4\xB8\xAD\xF0\x9F\x99\x82" : " tok";
  if (m.has("longline") && index == 1) text = std::string(std::size_t{3} << 19, 'x');  // 1.5 MiB
  if (m.has("skew") && index == 0) text += std::string(40, 'x');
  const bool reasoning = m.has("reasoning") && index < c.chunks / 2;
  const bool last = index == c.chunks - 1;
  std::string event = fake::text_event(c.req, m, text, reasoning, last, c.req.continuous_usage ? first_token + n : -1);
  if (m.has("roleonly")) event = fake::empty_event(c.req, m, false) + event;
  if (m.has("coalesce")) {
    c.coalesced += event;
    if (index % 4 == 3 || last) {
      emit(c, c.coalesced);
      c.coalesced.clear();
    }
  } else {
    emit(c, event);
  }
  if (last) return finish(c);
  schedule(c, c.start + ms(m_cfg.ttft_ms + (index + 1) * m_cfg.itl_ms), Action::chunk, index + 1);
}

void Loop::on_timer(const Timer& t) {
  const auto it = m_conns.find(t.fd);
  if (it == m_conns.end() || it->second->gen != t.gen) return;
  Conn& c = *it->second;
  switch (t.action) {
    case Action::chunk:
      emit_chunk(c, t.arg);
      break;
    case Action::piece:
      if (!c.pieces.empty()) {
        std::string next = std::move(c.pieces.front());
        c.pieces.pop_front();
        write_raw(c, next);
        if (!c.pieces.empty()) schedule(c, Clock::now() + ms(1), Action::piece, 0);
      }
      break;
    case Action::close:
      if (c.out.empty() && c.pieces.empty())
        close_conn(c);
      else
        schedule(c, Clock::now() + ms(1), Action::close, 0);
      return;
    case Action::full: {
      std::string text;
      for (int i = 0; i < c.tokens; ++i) text += " tok";
      add(m_counts.generation, static_cast<long long>(c.tokens));
      respond(c, 200, "application/json", fake::full_response(c.req, c.modes, c.tokens, text));
      reply_done(c);
      break;
    }
  }
  if (m_conns.count(t.fd) && !m_conns[t.fd]->busy && !m_conns[t.fd]->close_after && !m_conns[t.fd]->in.empty())
    on_readable(*m_conns[t.fd]);
}

std::string Loop::metrics_text() const {
  fake::Totals t;
  for (const auto& c : m_shared.counters) {
    t.prompt += c->prompt.load(std::memory_order_relaxed);
    t.generation += c->generation.load(std::memory_order_relaxed);
    t.requests += c->requests.load(std::memory_order_relaxed);
    t.health += c->health.load(std::memory_order_relaxed);
    t.active += c->active.load(std::memory_order_relaxed);
    t.late_sum_ms += c->late_sum_ms.load(std::memory_order_relaxed);
    t.late_max_ms = std::max(t.late_max_ms, c->late_max_ms.load(std::memory_order_relaxed));
    t.late_n += c->late_n.load(std::memory_order_relaxed);
  }
  return fake::metrics_text(m_cfg.metrics, t, m_cfg.model);
}

void Loop::run() {
  const int one = 1;
  m_ep = epoll_create1(EPOLL_CLOEXEC);
  m_tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  for (int fd : {m_listen, m_tfd}) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    epoll_ctl(m_ep, EPOLL_CTL_ADD, fd, &ev);
  }
  std::vector<epoll_event> events(1024);
  for (;;) {
    const auto now = Clock::now();
    while (!m_timers.empty() && m_timers.top().at <= now) {
      const Timer t = m_timers.top();
      m_timers.pop();
      on_timer(t);
    }
    itimerspec its{};
    if (!m_timers.empty()) {
      const auto ns =
          std::chrono::duration_cast<std::chrono::nanoseconds>(m_timers.top().at.time_since_epoch()).count();
      its.it_value.tv_sec = static_cast<time_t>(ns / 1000000000);
      its.it_value.tv_nsec = static_cast<long>(ns % 1000000000);
    }
    timerfd_settime(m_tfd, TFD_TIMER_ABSTIME, &its, nullptr);
    const int n = epoll_wait(m_ep, events.data(), static_cast<int>(events.size()), 1000);
    for (int i = 0; i < n; ++i) {
      const int fd = events[static_cast<std::size_t>(i)].data.fd;
      if (fd == m_tfd) {
        std::uint64_t x;
        (void)!::read(m_tfd, &x, sizeof x);
      } else if (fd == m_listen) {
        for (;;) {
          const int cfd = ::accept4(m_listen, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
          if (cfd < 0) break;
          setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          auto conn = std::make_unique<Conn>();
          conn->fd = cfd;
          conn->gen = m_next_gen++;
          epoll_event ev{};
          ev.events = EPOLLIN;
          ev.data.fd = cfd;
          epoll_ctl(m_ep, EPOLL_CTL_ADD, cfd, &ev);
          m_conns[cfd] = std::move(conn);
        }
      } else {
        const auto it = m_conns.find(fd);
        if (it == m_conns.end()) continue;
        const std::uint32_t ev = events[static_cast<std::size_t>(i)].events;
        if (ev & EPOLLOUT) flush(*it->second);
        if (m_conns.count(fd) && (ev & (EPOLLIN | EPOLLHUP | EPOLLERR))) on_readable(*m_conns[fd]);
      }
    }
  }
}

}  // namespace

void run_loop(const Shared& shared, std::size_t index, int listen_fd) {
  Loop(shared, index, listen_fd).run();
}

void running_changed(const Config& c, int generating) {
  if (c.oom_at_seqs > 0 && generating >= c.oom_at_seqs) {
    std::fprintf(stderr,
                 "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB with %d sequences running "
                 "(fake_server --oom-at-seqs %d)\n",
                 generating, c.oom_at_seqs);
    std::_Exit(1);
  }
  if (c.memory_file.empty()) return;
  const std::string tmp = c.memory_file + ".tmp";
  if (std::FILE* f = std::fopen(tmp.c_str(), "w")) {
    std::fprintf(f, "index, name, pci.bus_id, memory.used [MiB], memory.total [MiB]\n0, Fake GPU, 00000000:41:00.0, %.0f MiB, %.0f MiB\n",
                 c.memory_base_mib + c.memory_per_seq_mib * generating, c.memory_total_mib);
    std::fclose(f);
    std::rename(tmp.c_str(), c.memory_file.c_str());
  }
}

}  // namespace fake
