#pragma once
// What the Python stack on this host says about itself and its GPUs: the interpreter, torch
// (its build: CUDA, ROCm or Hygon's DTK), the devices torch sees with their ISA, whether they do
// bf16, and the serving packages' versions. Asked by running the interpreter with a small inline
// script under a deadline: a broken or hanging Python is an error value, never a hang or a crash.
// Shared by plan (bf16 on this card) and doctor (the stack's health).
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace dcukit::stack {

/// What a wheel was built for, from its version's local tag ("+cu124", "+rocm6.0", "das.dtk2604").
enum class BuildKind { none, cuda, rocm, dtk, cpu, other };

/// "none", "cuda", "rocm", "dtk", "cpu", "other".
std::string_view to_string(BuildKind kind);

/// The local part of a version: "2.4.1+cu124" -> "cu124", "0.18.1das.dtk2604" -> "das.dtk2604",
/// "2.4.0" -> "", "2.5.0rc1" -> "" (a pre-release is not a build tag).
std::string build_tag(std::string_view version);
/// The kind of a build tag: cu* CUDA, rocm* ROCm, das*/dtk* (or containing dtk) Hygon's DTK, cpu.
BuildKind build_kind(std::string_view tag);

/// One Python package: its version, or why it did not import.
struct Package {
  std::string name;  ///< the import name: "vllm", "flash_attn", "triton", "lmdeploy"
  bool imported = false;
  std::string version;  ///< __version__ where it imported ("0.18.1das.dtk2604")
  std::string tag;      ///< build_tag(version), else build_tag(dist_version)
  BuildKind kind = BuildKind::none;
  std::string error;  ///< the import error ("ModuleNotFoundError: No module named 'vllm'")
  /// The installed distribution's version (importlib.metadata), even when the import failed;
  /// "" when not installed or unknown. Hygon's builds may print a plain __version__ ("2.4.1")
  /// while the distribution keeps the tag ("2.4.1+das.opt1.dtk25041").
  std::string dist_version;
};

/// One device as torch sees it.
struct TorchDevice {
  int index = 0;
  std::string name;  ///< torch.cuda.get_device_name(i)
  std::string arch;  ///< gcnArchName on ROCm/DTK ("gfx936:sramecc+:xnack-"); "sm_90" on CUDA
};

/// Everything the probe learned. Optional fields are empty where the stack did not answer.
struct PythonStack {
  std::string interpreter;             ///< the path that was run
  std::string python_version;          ///< "3.10.12"
  Package torch;                       ///< name "torch"
  std::string torch_cuda;              ///< torch.version.cuda; empty when None
  std::string torch_hip;               ///< torch.version.hip; empty when None
  std::optional<bool> cuda_available;  ///< torch.cuda.is_available()
  std::vector<TorchDevice> devices;
  std::optional<bool> bf16_supported;  ///< torch.cuda.is_bf16_supported() on device 0
  std::string bf16_error;              ///< why it could not be asked, where it raised
  std::vector<Package> packages;       ///< the serving packages asked for, in the order asked
  std::string answer;                  ///< the probe's JSON as received (a bundle keeps it to read again)

  /// The package named `name` among packages (torch included), or nullptr.
  const Package* find(std::string_view name) const;
};

/// How to ask.
struct ProbeOptions {
  std::string interpreter = "python3";       ///< a name looked up in search_path (or $PATH), or a path
  std::string search_path;                   ///< colon-separated folders; empty: $PATH
  std::chrono::milliseconds timeout{60000};  ///< importing torch and vllm can take seconds each
  std::vector<std::string> packages{"vllm", "flash_attn", "triton", "lmdeploy"};
  std::vector<std::string> env_add;  ///< "NAME=value" for the interpreter's environment
};

/// Runs the interpreter with the probe script. Errors (not found, timed out, no answer, an answer
/// that is not the probe's) name the interpreter and what to do.
Result<PythonStack> probe_python(const ProbeOptions& options = {});

/// The marker the probe's answer line starts with.
inline constexpr std::string_view kProbeMarker = "DCUKIT_STACK_PROBE ";

/// Reads the probe script's output (its marker line among whatever the imports printed); used
/// by tests and to read a support bundle's recorded answer again. Fields of the wrong type count as absent.
Result<PythonStack> parse_probe_output(std::string_view out, std::string_view interpreter);

/// The probe script itself (Python 3.6 and later), for the doctor's report and for tests.
std::string_view probe_script();

}  // namespace dcukit::stack
