#include "telemetry/kernel_log.h"

#include <errno.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>

#include "telemetry/types.h"
#include "util/names.h"
#include "util/text.h"

namespace dcukit::telemetry {
namespace {

constexpr util::Name<KernelEventKind> kKinds[] = {
    {KernelEventKind::xid, "xid"},     {KernelEventKind::off_the_bus, "off the bus"},
    {KernelEventKind::fault, "fault"}, {KernelEventKind::reset, "reset"},
    {KernelEventKind::ras, "ras"},
};

/// The message without "6,1234,5678901,-;" (/dev/kmsg) or "[ 1843.308145] " (dmesg).
std::string_view message_of(std::string_view line) {
  if (const auto semi = line.find(';'); semi != std::string_view::npos && semi < 40 && !line.empty() &&
                                        line[0] >= '0' && line[0] <= '9' && line.find(',') < semi)
    line.remove_prefix(semi + 1);
  line = util::trim(line);
  if (const auto k = line.find(" kernel: "); k != std::string_view::npos && k < 64)  // journalctl -k
    line.remove_prefix(k + 9);
  if (!line.empty() && line[0] == '[')
    if (const auto close = line.find(']'); close != std::string_view::npos && close < 24) line.remove_prefix(close + 1);
  return util::trim(line);
}

/// "0000:3b:00" or "0000:3b:00.0" at `at` in `s`, normalised; "" where there is none.
std::string bus_at(std::string_view s, std::size_t at) {
  std::size_t end = at;
  while (end < s.size() && (std::isxdigit(static_cast<unsigned char>(s[end])) || s[end] == ':' || s[end] == '.')) ++end;
  std::string id(s.substr(at, end - at));
  while (!id.empty() && (id.back() == ':' || id.back() == '.')) id.pop_back();
  if (id.find('.') == std::string::npos) id += ".0";  // Xid names the device, not its function
  return normalize_bus_id(id).value_or("");
}

std::optional<KernelEvent> nvidia(std::string_view m) {
  if (const auto at = m.find("NVRM: Xid (PCI:"); at != std::string_view::npos) {
    KernelEvent e;
    e.kind = KernelEventKind::xid;
    e.bus_id = bus_at(m, at + 15);
    const auto close = m.find("):", at);
    if (close == std::string_view::npos) return std::nullopt;
    e.xid = std::atoi(std::string(m.substr(close + 2, 8)).c_str());
    if (e.xid <= 0) return std::nullopt;
    e.text = std::string(m.substr(at));
    return e;
  }
  if (util::icontains(m, "fallen off the bus")) {  // "NVRM: The NVIDIA GPU 0000:b3:00.0 ... has fallen off the bus"
    KernelEvent e;
    e.kind = KernelEventKind::off_the_bus;
    if (const auto at = m.find("GPU 0000:"); at != std::string_view::npos) e.bus_id = bus_at(m, at + 4);
    e.text = std::string(m);
    return e;
  }
  return std::nullopt;
}

/// "amdgpu 0000:c1:00.0: amdgpu: [gfxhub0] retry page fault ...", "hydcu 0000:05:00.0: ...".
std::optional<KernelEvent> amd(std::string_view m) {
  std::size_t at = std::string_view::npos;
  for (const std::string_view driver : {"amdgpu 0000:", "hydcu 0000:", "hycu 0000:"})
    if (m.rfind(driver, 0) == 0) at = driver.size() - 5;
  const bool named = at != std::string_view::npos;
  if (!named && !util::icontains(m, "amdgpu") && !util::icontains(m, "hydcu")) return std::nullopt;
  KernelEvent e;
  if (util::icontains(m, "uncorrectable") || util::icontains(m, "poison") || util::icontains(m, "RAS event"))
    e.kind = KernelEventKind::ras;
  else if (util::icontains(m, "GPU reset") || util::icontains(m, "gpu recover"))
    e.kind = KernelEventKind::reset;
  else if (util::icontains(m, "page fault") || util::icontains(m, "timeout") || util::icontains(m, "GPU hang") ||
           util::icontains(m, "hung") || util::icontains(m, "timed out"))
    e.kind = KernelEventKind::fault;
  else
    return std::nullopt;
  if (named) e.bus_id = bus_at(m, at);
  e.text = std::string(m);
  return e;
}

}  // namespace

std::string_view to_string(KernelEventKind k) {
  return util::name_of(kKinds, k);
}

std::optional<KernelEvent> parse_kernel_message(std::string_view line) {
  const std::string_view m = message_of(line);
  if (m.empty()) return std::nullopt;
  if (auto e = nvidia(m)) return e;
  return amd(m);
}

XidMeaning xid_meaning(int xid) {
  switch (xid) {
    case 13:
      return {"graphics engine exception", false};
    case 31:
      return {"GPU memory page fault", false};
    case 32:
      return {"corrupted push buffer stream", false};
    case 43:
      return {"GPU stopped processing", false};
    case 45:
      return {"preemptive cleanup after earlier errors", false};
    case 48:
      return {"double-bit ECC error", true};
    case 61:
      return {"internal micro-controller breakpoint", true};
    case 62:
      return {"internal micro-controller halt", true};
    case 63:
      return {"ECC page retirement or row remapping recorded", true};
    case 64:
      return {"ECC page retirement or row remapping failed", true};
    case 69:
      return {"graphics engine class error", false};
    case 74:
      return {"NVLink error", true};
    case 79:
      return {"GPU has fallen off the bus", true};
    case 92:
      return {"high single-bit ECC error rate", true};
    case 94:
      return {"contained ECC error", true};
    case 95:
      return {"uncontained ECC error", true};
    case 109:
      return {"context switch timeout", false};
    case 119:
      return {"GSP RPC timeout", true};
    case 120:
      return {"GSP error", true};
    case 140:
      return {"unrecovered ECC error", true};
    default:
      return {"see NVIDIA's Xid catalogue", true};
  }
}

Result<KernelLog> KernelLog::open(const util::Root& root) {
  const std::string path = root.real("/dev/kmsg");
  util::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0) {
    const int err = errno;
    return Error{fmt::format("kernel messages are not readable: {}: {}{}", path, strerror(err),
                             err == EPERM || err == EACCES ? " (run as root, or sysctl kernel.dmesg_restrict=0)" : "")};
  }
  struct stat st {};
  const bool records = ::fstat(fd.get(), &st) == 0 && S_ISCHR(st.st_mode);
  if (::lseek(fd.get(), 0, SEEK_END) < 0 && !records)
    return Error{fmt::format("kernel messages are not readable: {}: cannot seek to its end", path)};
  return KernelLog(std::move(fd), records);
}

std::vector<KernelEvent> KernelLog::read_new() {
  std::vector<KernelEvent> out;
  const auto take = [&](std::string_view line) {
    if (auto e = parse_kernel_message(line)) out.push_back(std::move(*e));
  };
  char buf[8192];
  for (int reads = 0; reads < 4096; ++reads) {  // a burst is bounded: the rest comes next call
    const ssize_t n = ::read(m_fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EPIPE) continue;  // records were overwritten before being read
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EAGAIN: nothing new
    if (m_records) {    // "6,1234,5678,-;text\n" then " SUBSYSTEM=pci\n"-style dictionary lines
      const std::string_view record(buf, static_cast<std::size_t>(n));
      take(record.substr(0, record.find('\n')));
      continue;
    }
    m_carry.append(buf, static_cast<std::size_t>(n));
    std::size_t start = 0;
    for (std::size_t nl; (nl = m_carry.find('\n', start)) != std::string::npos; start = nl + 1)
      take(std::string_view(m_carry).substr(start, nl - start));
    m_carry.erase(0, start);
  }
  return out;
}

}  // namespace dcukit::telemetry
