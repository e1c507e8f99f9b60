#pragma once
// The cards a plan is for: named from the peak data (--gpu NAME) or detected on this host.
// Plans assume identical cards; a host with mixed cards is planned for the smallest. What a card
// can do is three-valued (core::Support); on this host its own answer decides.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/peaks.h"
#include "util/result.h"

namespace dcukit::device {
struct DetectedDevice;
}
namespace dcukit::stack {
struct PythonStack;
}

namespace dcukit::plan {

/// Who decided what plan acts on for one capability.
enum class Decider {
  this_host,       ///< the card's own answer on this host (the Python stack's probe)
  published,       ///< a published yes or no (data/peaks.json, with its source)
  offline_advice,  ///< unknown, and a later source's advice for planning without the card
  nobody,          ///< unknown, with no advice either
};

/// "this host", "published", "offline advice", "nobody".
std::string_view to_string(Decider decider);
/// The value to_string spells `text`, or nullopt.
std::optional<Decider> parse_decider(std::string_view text);

/// One capability of the cards: the published answer and, where asked, this host's own.
struct CardCapability {
  core::Capability published;  ///< from data/peaks.json
  std::optional<bool> host;    ///< the card's own answer on this host, where it gave one
  std::string host_source;     ///< how the host answered: "torch.cuda.is_bf16_supported() ... (torch 2.4.1+das...)"
  std::string host_error;      ///< why this host could not answer, where it was asked

  /// What plan acts on: the host's answer, else the published one, else the offline lean.
  core::Support effective() const;
  /// Which of those decided.
  Decider decider() const;
  /// The source of the answer acted on, for the plan's "why".
  std::string source() const;
};

/// What plan needs to know of the cards.
struct Cards {
  std::string name;  ///< "Hygon BW1000"
  std::string key;   ///< "bw1000"; empty for a card the peak data does not know
  core::Vendor vendor = core::Vendor::nvidia;  ///< from the peak data or the backend that found it
  std::string arch;             ///< the ISA ("gfx936"); from the runtime when detected
  CardCapability bf16;          ///< bf16 arithmetic
  CardCapability fp8;           ///< FP8 compute units (FP8 weights run natively)
  CardCapability fp8_kv_cache;  ///< vLLM's --kv-cache-dtype fp8 (storage, not compute)
  /// Total memory as the runtime reports it: what vLLM multiplies by gpu-memory-utilization.
  std::uint64_t total_bytes = 0;
  std::string total_source;      ///< where total_bytes came from
  std::uint64_t free_bytes = 0;  ///< smallest free memory among the cards; 0 when not detected
  int count = 0;                 ///< cards available to the plan
  std::vector<int> indices;      ///< device indices for *_VISIBLE_DEVICES
  std::vector<int> numa_nodes;   ///< NUMA node of each card; -1 unknown
  bool detected = false;         ///< true when read from this host
  /// On an NVSwitch board with NVLink SHARP (the peak data's board.nvls): NCCL's NVLS buffers at TP > 1.
  bool nvls_board = false;

  /// Hygon DCUs get DCU advice: HIP_VISIBLE_DEVICES, the toolkit's env.sh, eager mode, headroom.
  bool dcu() const { return vendor == core::Vendor::hygon; }
  /// AMD and Hygon run vLLM through HIP.
  bool hip() const { return core::runs_hip(vendor); }
};

/// The most cards a plan considers (and the largest --count); beyond it, a plan would be an
/// exercise in arithmetic, and --count 2000000000 must not allocate.
inline constexpr int kMaxCards = 1024;

/// The runtime-reported total of a known device from data/peaks.json's runtime_memory field,
/// else its memory_bytes. `source` receives where the figure came from.
std::uint64_t runtime_memory(const core::DeviceSpec& spec, std::string* source = nullptr);

/// `count` cards (1 to kMaxCards) of a named device. An unknown name is an error naming the
/// nearest known key.
Result<Cards> cards_from_name(std::string_view name, int count);

/// The GPUs detected on this host; `count` 0 means all of them. No GPU is an error that says
/// to pass --gpu NAME. The ISA the runtime reports identifies the card.
Result<Cards> cards_from_detected(const std::vector<device::DetectedDevice>& devices, int count);

/// Takes this host's Python stack's answers (bf16 from torch.cuda.is_bf16_supported()) into
/// `cards`; an error, a torch that does not import or one that sees no GPU is kept as the
/// reason the host did not decide.
void apply_host_stack(Cards& cards, const Result<stack::PythonStack>& probe);

}  // namespace dcukit::plan
