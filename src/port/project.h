#pragma once
// The files audited together and what the rules learn across them: mask-dropping *_sync macros
// (ggml's vendors/hip.h), names that stand for the hardware wavefront width, warp-size constants
// fixed at 32 and whether they are used as a shuffle width, full-mask constants, a __CUDA_ARCH__
// defined for HIP, and the names the files define themselves.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "port/preprocess.h"
#include "port/rules.h"
#include "port/source.h"
#include "util/result.h"

namespace dcukit::port {

/// A place in one of the project's files.
struct Place {
  std::size_t file = 0;
  std::size_t token = 0;
};

/// A named warp size fixed at 32 (`#define WARP_SIZE 32`, `constexpr int kWarpSize = 32`).
struct WarpConstant {
  Place where;
  bool used_as_width = false;  ///< passed as the width of a shuffle: a deliberate logical warp
  std::set<std::pair<std::size_t, std::size_t>> sync_uses;  ///< (file, token) of uses in warp-synchronous code
  /// Some use shares a scope with lane-exact code (a vote, a lane id, a width-less broadcast or
  /// upward shuffle); otherwise the constant is a self-consistent 32-lane logical warp on wave64.
  bool lane_exact = false;
};

/// The block sizes of CUB loads and stores with a warp-transpose algorithm, which rocPRIM compiles
/// only for a multiple of the 64-lane wavefront.
struct TransposeBlocks {
  /// Templates one of whose parameters sizes such a load or store, directly or passed on (mamba's
  /// selective_scan_fwd_launch): name -> (the parameter's index, its name, the load or store).
  std::map<std::string, std::tuple<std::size_t, std::string, Place>, std::less<>> templates;
  std::vector<std::pair<Place, std::int64_t>> literals;  ///< a literal size rocPRIM refuses, and its value
};

/// What the rules know about the whole set of files.
struct ProjectFacts {
  std::set<std::string, std::less<>> shimmed_sync;       ///< *_sync names a HIP build maps to a mask-free call
  /// Names defined as a 32-bit all-ones mask, each definition (pytorch_scatter's two .cu files
  /// each `#define FULL_MASK 0xffffffff`).
  std::multimap<std::string, Place, std::less<>> full_masks;
  std::set<std::string, std::less<>> hardware_width;     ///< warpSize, __AMDGCN_WAVEFRONT_SIZE and names made from them
  std::map<std::string, WarpConstant, std::less<>> warp32;
  std::vector<Place> cuda_arch_shims;                        ///< `#define __CUDA_ARCH__ ...` a HIP build compiles
  /// Macros a HIP build defines from __CUDA_ARCH__, directly or through one another
  /// (bitsandbytes' `#define BNB_BF16_AVAILABLE (__CUDA_ARCH__ >= BNB_CC_AMPERE)`): their
  /// definition is no hazard; an `#if` that tests one is, and so is code that uses one as a value.
  std::map<std::string, Place, std::less<>> arch_macros;
  /// Those of them a __CUDA_ARCH__ test sets to a number or defines empty (lmdeploy's
  /// TURBOMIND_ARCH_SM80, 1 or 0): HIP defines them too, so a use as a value compiles.
  std::set<std::string, std::less<>> arch_flags;
  /// Functions that return a ballot in 32 bits (cuDF's `uint32_t ballot(int pred) { return
  /// __ballot_sync(~0, pred); }`): each call loses lanes 32-63.
  std::map<std::string, Place, std::less<>> ballot_wrappers;
  std::map<std::string, Place, std::less<>> vendor_map;      ///< cudaX -> hipY defines in HIP-only code
  std::set<std::string, std::less<>> defined_names;          ///< macros, functions and types the files define
  std::set<std::string, std::less<>> own_names;              ///< those defined in code both builds compile
  std::map<std::string, std::string, std::less<>> typedefs;  ///< alias -> the type it names (one level)
  std::set<std::string, std::less<>> warp_sync_names;        ///< functions and macros holding warp-synchronous code
  std::set<std::string, std::less<>> lane_exact_names;       ///< those of them holding lane-exact code
  std::set<std::string, std::less<>> namespaces;             ///< namespaces the files open in code both builds compile
  std::vector<std::string> normal_paths;                     ///< each file's normal_path(), for resolve_include
  std::set<RuleId> included_libraries;  ///< libraries some file includes where a HIP build reads it
  /// Libraries ATen's CUDA context header brings (cuBLAS, cuBLASLt, cuSPARSE) where some file
  /// includes it: a PyTorch extension, which torch's ROCm build hipifies and links.
  std::set<RuleId> torch_libraries;
  /// Function-like macros the files define and never name again: helpers nothing expands
  /// (FasterTransformer's checkCUDNN), whose bodies bring no dependency.
  std::set<std::string, std::less<>> unexpanded_macros;
  /// Some conditional tests HIP itself (__HIP_PLATFORM_AMD__, __HIPCC__, a HIP switch such as
  /// USE_ROCM) or some file includes HIP's headers: the project has been built for HIP, so the
  /// branches a HIP build takes are its authors' choice.
  bool hip_branches = false;
  TransposeBlocks transpose_blocks;
};

/// Files audited (or translated) together.
struct Project {
  std::vector<SourceFile> files;
  Preprocessed pp;
  ProjectFacts facts;
};

/// `path` absolute and lexically normal, as resolve_include compares paths.
std::string normal_path(std::string_view path);

/// The file among `normal` (normal_path()s) that `#include NAME` in file `from` names: the one
/// beside the includer, else one whose path ends with NAME; npos when none is (a system or
/// library header).
std::size_t resolve_include(const std::vector<std::string>& normal, std::size_t from, std::string_view name);

/// Whether file `index` uses what nvcc's implicit cuda_runtime.h declares (kernel qualifiers, the
/// built-in indices, a launch, a runtime name) without including a runtime header, itself or
/// through the project's files it includes. `unsure` (when given) is set where a quoted include
/// names a file that is not in the project, which may include the runtime itself.
bool relies_on_implicit_runtime(const Project& p, std::size_t index, bool* unsure = nullptr);

/// The files under `paths` (a folder contributes its .cu .cuh .cpp .cc .cxx .h .hpp .hip files,
/// recursively and sorted; a file is taken whatever its suffix). Errors name the missing path.
Result<std::vector<std::string>> expand_paths(const std::vector<std::string>& paths);

/// Reads, lexes and preprocesses the files and computes the facts. Errors name the file.
Result<Project> load_project(const std::vector<std::string>& files, const std::vector<std::string>& hip_switches);

/// Builds a project from in-memory sources (path, text); for tests and the translator.
Project make_project(std::vector<std::pair<std::string, std::string>> sources,
                     const std::vector<std::string>& hip_switches);

/// The *_sync intrinsics whose first argument is a lane mask.
bool is_sync_intrinsic(std::string_view name);
/// The shuffles (sync or not), whose last optional argument is the width.
bool is_shuffle(std::string_view name);
/// Whether the name reads as a warp or wavefront size (WARP_SIZE, kWarpSize, warp_size, ...).
bool looks_like_warp_size(std::string_view name);

}  // namespace dcukit::port
