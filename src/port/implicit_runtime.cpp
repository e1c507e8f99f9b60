// nvcc includes cuda_runtime.h in every .cu it compiles; hipcc does not include hip_runtime.h.
// A file that relied on the former does not compile after hipify (`unknown type name
// 'hipError_t'`): the audit reports it (api.implicit-runtime) and translate adds the include.
#include <set>
#include <string>
#include <vector>

#include "port/project.h"
#include "port/syntax.h"

namespace dcukit::port {

namespace {

/// Whether file `index` includes a runtime header, itself or through the project's files it
/// includes ("common.cuh" holding <cuda_runtime.h>).
bool includes_runtime(const Project& p, const std::vector<std::string>& normal, std::size_t index,
                      std::set<std::size_t>& seen, bool& unsure) {
  if (!seen.insert(index).second) return false;
  const SourceFile& f = p.files[index];
  for (const Directive& d : f.lexed.directives) {
    std::string inner;
    const Token* t = included_header(f, d, inner);
    if (!t) continue;
    // Not cuda_runtime_api.h: hipify makes it hip_runtime_api.h, which has no kernel language.
    for (const char* h : {"cuda_runtime.h", "cuda.h", "hip/hip_runtime.h", "hip_runtime.h"})
      if (inner == h) return true;
    // CUB and Thrust: hipify makes them hipCUB and rocThrust, whose headers include hip_runtime.h.
    if (t->text.front() == '<' && (starts_with(inner, "cub/") || starts_with(inner, "thrust/"))) return true;
    // A PyTorch extension's CUDA headers (pytorch_scatter's <ATen/cuda/CUDAContext.h>): torch's ROCm
    // build hipifies the extension, and its hipify (hip_header_magic) adds hip/hip_runtime.h to each
    // file that holds device code.
    if (starts_with(inner, "ATen/cuda/") || starts_with(inner, "c10/cuda/")) return true;
    const std::size_t k = resolve_include(normal, index, inner);
    if (k == std::string::npos && t->text.front() == '"') unsure = true;  // a project header not given
    if (k != std::string::npos && includes_runtime(p, normal, k, seen, unsure)) return true;
  }
  return false;
}

}  // namespace

bool relies_on_implicit_runtime(const Project& p, std::size_t index, bool* unsure) {
  std::vector<std::string> normal;
  for (const SourceFile& f : p.files) normal.push_back(normal_path(f.path));
  std::set<std::size_t> seen;
  bool missing_header = false;
  if (includes_runtime(p, normal, index, seen, missing_header)) return false;
  if (unsure) *unsure = missing_header;
  static const std::set<std::string, std::less<>> kImplicit = {
      "__global__", "__device__", "__shared__", "__constant__", "threadIdx", "blockIdx", "blockDim", "gridDim",
      "__syncthreads", "cudaError_t", "cudaMalloc", "cudaFree", "cudaMemcpy", "cudaStream_t", "cudaGetLastError",
      "cudaDeviceSynchronize", "dim3"};
  // The file and the project headers it includes (all of them visited above): a .cu that only
  // includes "slab_alloc.cuh" compiles that header's kernels.
  for (const std::size_t i : seen)
    for (const Token& t : p.files[i].lexed.tokens)  // code only: a macro's body is expanded where it is used
      if (t.directive < 0 && ((t.kind == TokenKind::identifier && kImplicit.count(t.text)) ||
                              (t.kind == TokenKind::punct && t.text == "<<<")))
        return true;
  return false;
}

}  // namespace dcukit::port
