#include "plan/cards.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "device/registry.h"
#include "stack/python.h"
#include "util/names.h"

namespace dcukit::plan {
namespace {

std::string lower_alnum(std::string_view s) {
  std::string out;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c)))
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// Levenshtein distance, for "did you mean".
std::size_t distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

Cards from_spec(const core::DeviceSpec& spec) {
  Cards c;
  c.name = spec.display_name;
  c.key = spec.key;
  c.vendor = spec.vendor;
  c.arch = spec.arch;
  c.bf16.published = spec.bf16;
  c.fp8.published = spec.fp8;
  c.fp8_kv_cache.published = spec.fp8_kv_cache;
  c.total_bytes = runtime_memory(spec, &c.total_source);
  c.nvls_board = spec.nvls_board;
  return c;
}

/// "torch 2.4.1+das.dtk2504 (DTK build) under /usr/bin/python3".
std::string torch_words(const stack::PythonStack& s) {
  std::string kind;
  if (s.torch.kind != stack::BuildKind::none) kind = fmt::format(", a {} build", stack::to_string(s.torch.kind));
  return fmt::format("torch {}{} under {}", s.torch.version, kind, s.interpreter);
}

const std::vector<core::DeviceSpec>& known_devices() {
  return core::PeakTable::builtin().devices();
}

const core::DeviceSpec* find_device(std::string_view name) {
  return core::PeakTable::builtin().find(name);
}

}  // namespace

constexpr util::Name<Decider> kDeciderNames[] = {
    {Decider::this_host, "this host"},
    {Decider::published, "published"},
    {Decider::offline_advice, "offline advice"},
    {Decider::nobody, "nobody"},
};

std::string_view to_string(Decider decider) {
  return util::name_of(kDeciderNames, decider, "nobody");
}

std::optional<Decider> parse_decider(std::string_view text) {
  return util::value_of(kDeciderNames, text);
}

core::Support CardCapability::effective() const {
  if (host) return *host ? core::Support::yes : core::Support::no;
  if (published.value != core::Support::unknown) return published.value;
  return published.assume;
}

Decider CardCapability::decider() const {
  if (host) return Decider::this_host;
  if (published.value != core::Support::unknown) return Decider::published;
  return published.assume != core::Support::unknown ? Decider::offline_advice : Decider::nobody;
}

std::string CardCapability::source() const {
  switch (decider()) {
    case Decider::this_host:
      return host_source;
    case Decider::published:
      return published.source;
    case Decider::offline_advice:
      return published.assume_source;
    case Decider::nobody:
      return published.note;
  }
  return {};
}

std::uint64_t runtime_memory(const core::DeviceSpec& spec, std::string* source) {
  if (spec.runtime_memory.value > 0) {
    if (source) *source = spec.runtime_memory.source + (spec.runtime_memory.low_confidence ? " (low confidence)" : "");
    return static_cast<std::uint64_t>(spec.runtime_memory.value);
  }
  if (source) *source = "the published size; " + spec.source;
  return spec.memory_bytes;
}

Result<Cards> cards_from_name(std::string_view name, int count) {
  const core::DeviceSpec* spec = find_device(name);
  if (spec == nullptr) {
    std::string best;
    std::size_t best_d = SIZE_MAX;
    std::vector<std::string> keys;
    for (const auto& d : known_devices()) {
      keys.push_back(d.key);
      const auto dist = distance(lower_alnum(name), lower_alnum(d.key));
      if (dist < best_d) best_d = dist, best = d.key;
    }
    return Error{fmt::format("--gpu {}: no such device in the peak data; the nearest is '{}' (known: {})", name, best,
                             fmt::join(keys, ", "))};
  }
  if (count < 1 || count > kMaxCards) return Error{fmt::format("--count {}: pass 1 to {} cards", count, kMaxCards)};
  if (spec->memory_bytes == 0)
    return Error{fmt::format("--gpu {}: the peak data has no memory size for {}; plan cannot budget it", name,
                             spec->display_name)};
  Cards c = from_spec(*spec);
  c.count = count;
  for (int i = 0; i < count; ++i) c.indices.push_back(i), c.numa_nodes.push_back(-1);
  return c;
}

Result<Cards> cards_from_detected(const std::vector<device::DetectedDevice>& devices, int count) {
  if (devices.empty())
    return Error{
        "no GPU detected on this host (no CUDA or HIP device answered); pass --gpu NAME, e.g. --gpu BW1000, "
        "to plan for cards elsewhere"};
  if (count < 0 || count > static_cast<int>(devices.size()))
    return Error{
        fmt::format("--count {}: this host has {} GPU{}; pass --count {} or plan for other cards with --gpu NAME",
                    count, devices.size(), devices.size() == 1 ? "" : "s", devices.size())};
  const int n = count > 0 ? count : static_cast<int>(devices.size());
  const auto& first = devices.front();
  // The runtime's ISA decides: "gfx936:sramecc+:xnack-" is a BW1000 whatever the name says.
  const std::string arch = first.info.arch.substr(0, first.info.arch.find(':'));
  const core::DeviceSpec* spec = first.spec;
  if (spec == nullptr) spec = find_device(first.info.name);
  if (spec != nullptr && !arch.empty() && !spec->arch.empty() && spec->arch != arch) spec = nullptr;
  if (spec == nullptr && !arch.empty()) {  // "BW" on gfx936: the arch is the better key
    for (const auto& d : known_devices())
      if (d.arch == arch) {
        if (spec != nullptr) {
          spec = nullptr;
          break;
        }  // two devices share it: do not guess
        spec = &d;
      }
  }
  Cards c;
  if (spec)
    c = from_spec(*spec);
  else
    c.name = first.info.name,
    c.vendor = first.backend == device::BackendKind::hip ? core::Vendor::amd : core::Vendor::nvidia;
  if (!arch.empty()) c.arch = arch;  // the runtime's ISA, over the peak data's
  c.detected = true;
  c.count = n;
  c.total_bytes = UINT64_MAX;
  c.free_bytes = UINT64_MAX;
  for (int i = 0; i < n; ++i) {
    const auto& d = devices[static_cast<std::size_t>(i)];
    const auto total = d.memory.total > 0 ? d.memory.total : d.info.total_memory;
    c.total_bytes = std::min(c.total_bytes, total);
    c.free_bytes = std::min(c.free_bytes, d.memory.free > 0 ? d.memory.free : total);
    c.indices.push_back(d.info.index);
    c.numa_nodes.push_back(d.numa_node);
  }
  c.total_source = fmt::format("detected on this host ({} backend)", device::to_string(first.backend));
  return c;
}

void apply_host_stack(Cards& cards, const Result<stack::PythonStack>& probe) {
  auto& bf16 = cards.bf16;
  if (!probe) {
    bf16.host_error = probe.error().message;
    return;
  }
  const auto& s = *probe;
  if (!s.torch.imported) {
    bf16.host_error = fmt::format("torch does not import under {} ({})", s.interpreter, s.torch.error);
  } else if (!s.cuda_available.value_or(false)) {
    bf16.host_error = fmt::format(
        "{} sees no GPU (a torch from the public index does not see a DCU: install the "
        "DTK build, seed 004)",
        torch_words(s));
  } else if (!s.bf16_supported) {
    bf16.host_error = fmt::format("{} could not say whether device 0 does bf16 ({})", torch_words(s),
                                  s.bf16_error.empty() ? std::string("no answer") : s.bf16_error);
  } else {
    bf16.host = *s.bf16_supported;
    bf16.host_error.clear();
    const std::string arch = s.devices.empty() || s.devices.front().arch.empty()
                                 ? std::string{}
                                 : fmt::format(" on {}", s.devices.front().arch);
    bf16.host_source = fmt::format("this host: torch.cuda.is_bf16_supported() is {}{} ({})",
                                   *s.bf16_supported ? "True" : "False", arch, torch_words(s));
  }
}

}  // namespace dcukit::plan
