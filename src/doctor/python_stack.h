#pragma once
// What doctor derives from the Python probe's answer: torch's build (from its tag, else from
// torch.version.cuda / .hip, since PyPI's CUDA wheels carry no tag), the pip command that puts the
// right build in place for this host, and the serving packages' findings.
#include <string>
#include <string_view>
#include <vector>

#include "doctor/context.h"
#include "stack/python.h"

namespace dcukit::doctor {

/// What a torch was built for.
enum class TorchBuild { cuda, rocm, dtk, cpu };
/// The one table between TorchBuild and its name in findings.
inline constexpr util::Name<TorchBuild> kTorchBuildNames[] = {
    {TorchBuild::cuda, "CUDA"}, {TorchBuild::rocm, "ROCm"}, {TorchBuild::dtk, "DTK"}, {TorchBuild::cpu, "CPU"}};
/// "CUDA", "ROCm", "DTK", "CPU".
std::string_view to_string(TorchBuild b);

/// The build of the probed torch: the tag's kind where it has one, else from torch.version.
TorchBuild torch_build_of(const stack::PythonStack& s);

/// The pip command that installs the torch build this host needs, for the probed interpreter.
std::string torch_install_command(const Context& c, const stack::PythonStack& s);

/// "dtk2604" for DTK 26.04, "dtk25041" for 25.04.1: the tag Hygon's wheels carry.
std::string dtk_tag_of(std::string_view dtk_version);

/// python.packages, one finding a serving package (vllm, flash_attn, triton, lmdeploy).
void check_packages(const Context& c, const stack::PythonStack& s, std::vector<Finding>& out);

}  // namespace dcukit::doctor
