#pragma once
// The kernel's messages about GPUs, as they arrive: NVIDIA's Xid events ("NVRM: Xid
// (PCI:0000:3b:00): 79, pid=0, GPU has fallen off the bus."), a GPU that stopped responding,
// and amdgpu's (and Hygon's hydcu/hycu's) page faults, ring timeouts, resets and RAS errors.
// Read from /dev/kmsg from the moment of opening on, where the kernel lets this user read it
// (kernel.dmesg_restrict=0, or root); a regular file in its place (a test's root, a saved
// `dmesg` output) is read the same way from its end.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"
#include "util/root.h"
#include "util/unique_fd.h"

namespace dcukit::telemetry {

/// What a message says happened.
enum class KernelEventKind {
  xid,          ///< an NVIDIA Xid with its number
  off_the_bus,  ///< the GPU stopped responding ("fallen off the bus")
  fault,        ///< amdgpu/hydcu: a page fault, ring timeout or hang
  reset,        ///< amdgpu/hydcu: the GPU was reset
  ras,          ///< amdgpu/hydcu: an uncorrectable (RAS, poison) error
};
std::string_view to_string(KernelEventKind k);

/// One message about one GPU.
struct KernelEvent {
  KernelEventKind kind = KernelEventKind::xid;
  std::string bus_id;  ///< "0000:3b:00.0"; "" where the message names none
  int xid = 0;         ///< the Xid number (xid only)
  std::string text;    ///< the message, without the kernel's prefix
};

/// The event a kernel message line describes, if it is one (a /dev/kmsg record "6,1234,56,-;...",
/// a `dmesg` line "[ 12.345] ..." or the bare text).
std::optional<KernelEvent> parse_kernel_message(std::string_view line);

/// What an Xid means for the device, as NVIDIA's Xid catalogue and DCGM grade it.
struct XidMeaning {
  std::string_view what;  ///< "double-bit ECC error"
  bool hardware;          ///< true: the device is at fault; false: often the application
};
XidMeaning xid_meaning(int xid);

/// The kernel's ring buffer from the moment open() was called.
class KernelLog {
public:
  /// Opens /dev/kmsg under `root` at its end; the error says why it cannot be read.
  static Result<KernelLog> open(const util::Root& root);
  /// The GPU events logged since the last call (never blocks).
  std::vector<KernelEvent> read_new();

private:
  explicit KernelLog(util::UniqueFd fd, bool records) : m_fd(std::move(fd)), m_records(records) {}
  util::UniqueFd m_fd;
  bool m_records;       ///< /dev/kmsg: one record a read; a file: any bytes
  std::string m_carry;  ///< a file's last line not yet ended
};

}  // namespace dcukit::telemetry
