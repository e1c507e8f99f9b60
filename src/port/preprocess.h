#pragma once
// Which code a HIP build compiles. Each file's #if/#ifdef/#elif/#else structure is evaluated
// twice, for a HIP build (AMD platform macros and the project's HIP switches such as GGML_USE_HIP
// defined, __CUDA_ARCH__ and CUDART_VERSION undefined) and for a CUDA build (the opposite), with
// three-valued logic: what depends on a macro we cannot know stays "maybe". Macros the files
// define themselves (FP16_AVAILABLE, NEW_MMA_AVAILABLE, ggml's `#define __CUDA_ARCH__ 1300` in its
// HIP vendor header) and which headers each branch includes are followed across the files
// audited together, to a fixed point. The result is each token's Reach (source.h).
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "port/pp_expr.h"
#include "port/source.h"

namespace dcukit::port {

/// The two builds a condition is evaluated for.
enum class Build { hip, cuda };

/// The HIP switches dcukit knows (GGML_USE_HIP, USE_ROCM, DCUKIT_HIP, ...): defined in a HIP
/// build, undefined in a CUDA one, like the platform's own (__HIP_PLATFORM_AMD__, __HIPCC__).
const std::vector<std::string>& default_hip_switches();

/// Whether `name` is the include guard of an NVIDIA library header (CUBLAS_API_H_, CURAND_H_,
/// NV_NPPIDEFS_H, ...): defined where the CUDA library was included, never by its HIP port.
bool is_cuda_library_guard(std::string_view name);

/// A macro only CUDA's toolchain or NVIDIA's libraries define (__CUDACC__, CUDART_VERSION,
/// __CUDACC_VER_MAJOR__, CUDNN_MAJOR, the libraries' header guards); not __CUDA_ARCH__.
bool is_cuda_only_macro(std::string_view n);

/// One #define seen in the files.
struct MacroDefinition {
  std::size_t file = 0;       ///< index into the file list
  std::size_t directive = 0;  ///< index into that file's directives
  bool function_like = false;
  std::vector<std::string> params;
  std::vector<const Token*> body;  ///< comments dropped
  /// The conditions of the innermost #if chain around it: its #if and the #elifs before its branch.
  std::vector<std::size_t> chain;
};

/// What the fixed point concluded about the macros, for one build.
struct MacroModel {
  std::map<std::string, MacroInfo, std::less<>> facts;                 ///< the platform's and the switches'
  std::map<std::string, Tri, std::less<>> state;                       ///< macros defined in the files
  std::map<std::string, std::vector<const Token*>, std::less<>> body;  ///< when one body is known
  std::set<std::string, std::less<>> function_like;

  /// What NAME is in this build: the files' own definition, else the platform's fact, else unknown.
  MacroInfo lookup(std::string_view name) const;
};

/// The preprocessor view of a set of files audited together.
struct Preprocessed {
  MacroModel hip, cuda;
  std::multimap<std::string, MacroDefinition, std::less<>> definitions;  ///< by macro name
};

/// Evaluates every file's conditionals for both builds and fills each file's hip/cuda token
/// vectors; `hip_switches` are the macros a HIP build defines besides the platform's.
Preprocessed preprocess(std::vector<SourceFile>& files, const std::vector<std::string>& hip_switches);

/// The truth of conditional directive d (#if, #elif, #ifdef, #ifndef) under `lookup`; `tainted`
/// as for condition_truth.
Tri directive_truth(const SourceFile& f, std::size_t d, const MacroLookup& lookup, bool* tainted = nullptr);

/// The directive ending the branch that conditional directive d opens (its #elif, #else or
/// #endif), and whether it is an #endif; directives.size() where the file ends first.
std::pair<std::size_t, bool> branch_end(const SourceFile& f, std::size_t d);
/// The token indices [first, last) of the code in the branch that conditional directive d opens,
/// up to branch_end's directive (or the file's end).
std::pair<std::size_t, std::size_t> branch_tokens(const SourceFile& f, std::size_t d);

/// The code tokens of directive d after its name, comments dropped.
std::vector<const Token*> directive_tokens(const SourceFile& f, std::size_t d);

}  // namespace dcukit::port
