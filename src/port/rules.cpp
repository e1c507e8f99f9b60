#include "port/rules.h"
#include "util/names.h"

namespace dcukit::port {

constexpr util::Name<Severity> kSeverityNames[] = {
    {Severity::error, "error"},
    {Severity::warning, "warning"},
    {Severity::note, "note"},
};

std::string_view to_string(Severity s) {
  return util::name_of(kSeverityNames, s, "error");
}

const std::vector<RuleInfo>& all_rules() {
  using R = RuleId;
  using S = Severity;
  static const std::vector<RuleInfo> k = {
      {R::wave64_full_mask, "wave64.full-mask", S::error,
       "A 32-bit lane mask (0xffffffff, ~0u, uint32_t(-1), 0xffffffff >> n) passed to a *_sync intrinsic or "
       "compared with __activemask()",
       "The mask names lanes 0-31 only; a DCU or AMD wavefront has 64 lanes. HIP 6.2 and later refuse a 32-bit mask "
       "at compile time, HIP before 6.2 has no *_sync forms, and DTK's and vendor headers' versions drop the mask, so "
       "the call either does not build or runs on all 64 lanes while the code around it counts 32.",
       "Drop the mask with a non-sync form when every lane takes part (__shfl_xor(v, o, w)), or use a 64-bit mask "
       "type on HIP (a lane_mask_t that is unsigned long long under __HIP_PLATFORM_AMD__, 0xffffffffffffffffull)."},
      {R::wave64_warp_size_literal, "wave64.warp-size-literal", S::error,
       "32 used as the warp size: % 32, & 31, / 32, >> 5 on a thread index, a shuffle width of 32, a reduction "
       "starting at offset 16 over the whole wavefront, a warp-size constant fixed at 32",
       "On a 64-lane wavefront lane and warp numbers computed with 32 disagree with warpSize, with the default "
       "shuffle width and with __ballot's 64 bits: a reduction that starts at 16 leaves lane 0 with the sum of lanes "
       "0-31 only, and warp indices count twice as many warps as there are.",
       "Use warpSize (or a constant that is __AMDGCN_WAVEFRONT_SIZE on AMD) for hardware lanes, or make a logical "
       "32-lane warp explicit: a named width passed to every shuffle, as ggml's WARP_SIZE is."},
      {R::wave64_ballot_width, "wave64.ballot-width", S::error,
       "The result of __ballot_sync/__ballot/__activemask/__match_*_sync or a tile's .ballot() kept in 32 bits or "
       "given to __popc/__ffs, or a lane bit built as 1 << lane",
       "HIP returns a 64-bit lane mask on a 64-lane wavefront; a 32-bit variable, cast or __popc/__ffs/__clz keeps "
       "the low half and silently ignores lanes 32-63.",
       "Keep lane masks in unsigned long long (or auto) and use __popcll, __ffsll, __clzll."},
      {R::wave64_per_warp_shared, "wave64.per-warp-shared", S::error,
       "A shared array sized for 32-lane warps ([32], [N / 32]) indexed by a hardware lane, or read by thread index "
       "with no bound on the number of warps, in a kernel that uses warpSize",
       "With 64 lanes a lane index runs to 63 while the array holds 32 entries, and N / 32 counts twice the warps "
       "that write partial results: reads go out of bounds or pick up slots no warp wrote.",
       "Size per-warp arrays by the number of warps of the hardware (blockDim.x / warpSize, or the largest block "
       "divided by the smallest warp) and read only the slots that were written."},
      {R::ptx_inline_asm, "ptx.inline-asm", S::error, "Inline PTX assembly (asm(...), asm volatile(...))",
       "PTX is NVIDIA's virtual ISA; hipcc compiles for AMD's GCN/CDNA ISA and rejects PTX constraints such as "
       "\"l\", \"f\" and \"d\". hipify does not touch asm.",
       "Replace the instruction with a portable intrinsic (__ldg, __builtin_nontemporal_load, atomics, "
       "__builtin_amdgcn_*), or keep the asm in a branch a HIP build does not compile."},
      {R::arch_cuda_arch, "arch.cuda-arch", S::warning, "A __CUDA_ARCH__ test, or a definition of __CUDA_ARCH__",
       "HIP never defines __CUDA_ARCH__: its branches are never taken (#ifdef __CUDA_ARCH__ is false even in device "
       "code, where HIP defines __HIP_DEVICE_COMPILE__), and `__CUDA_ARCH__ >= 800` compares 0. A header that defines "
       "__CUDA_ARCH__ for HIP (ggml's 1300) makes every such test true instead.",
       "Test __HIP_DEVICE_COMPILE__ for the device pass and a feature macro for the capability; where "
       "__CUDA_ARCH__ is defined for HIP, exclude HIP explicitly from NVIDIA-only branches."},
      {R::api_cooperative_groups, "api.cooperative-groups", S::error, "Cooperative-groups features HIP lacks",
       "HIP has hip/hip_cooperative_groups.h with tiles, coalesced groups and grid sync, but not CUDA 11's "
       "cg::reduce and scans (cooperative_groups/reduce.h, scan.h), labeled_partition, block_tile_memory and "
       "this_thread_block(scratch), memcpy_async, or tiles past 64 lanes. Tile masks and ballots are wave64's rules.",
       "Reduce with the tile's shfl_down or in shared memory, partition with ballots, keep tiles within 64 lanes; "
       "launch grid-synchronising kernels with hipLaunchCooperativeKernel."},
      {R::api_texture, "api.texture", S::warning, "Texture and surface references or objects",
       "Texture references (texture<>, cudaBindTexture) were removed from HIP; texture objects exist but filtering, "
       "formats and 1D linear limits differ on AMD hardware.",
       "Use plain global loads (__ldg) where the texture only caches; otherwise hipTextureObject_t, tested on the "
       "target."},
      {R::api_wmma, "api.wmma", S::error, "Warp matrix multiply-accumulate (nvcuda::wmma, <mma.h>)",
       "HIP has no nvcuda::wmma. rocWMMA is the AMD counterpart with its own namespace and fragment sizes for "
       "64-lane wavefronts, and it needs matrix cores (gfx908 and later); older DCUs have none.",
       "Port to rocWMMA (rocwmma::fragment, gfx908/gfx90a and later) or to hipBLAS/rocBLAS calls; keep a non-matrix "
       "path for gfx906-class devices."},
      {R::api_launch_bounds, "api.launch-bounds", S::warning, "__launch_bounds__ with a second argument",
       "The second argument is the minimum resident blocks per multiprocessor in CUDA; HIP reads it as the minimum "
       "waves per execution unit (SIMD), a different quantity: the register budget it implies changes.",
       "Keep only the first argument, or compute the HIP value (waves per EU) from the occupancy you want; HIP also "
       "offers __attribute__((amdgpu_waves_per_eu(min, max)))."},
      {R::api_warp_matrix, "api.warp-matrix", S::error,
       "Tensor-core instructions below the WMMA API: mma.sync/ldmatrix/movmatrix/wgmma PTX, __hmma/__imma intrinsics",
       "These are NVIDIA tensor-core instructions with NVIDIA's register layout per lane of a 32-lane warp; AMD's "
       "matrix cores (MFMA) have other shapes and a 64-lane layout, and gfx906-class DCUs have none.",
       "Rewrite the tile code for MFMA (__builtin_amdgcn_mfma_*, rocWMMA) where the device has matrix cores, with a "
       "non-matrix path elsewhere."},
      {R::api_graph, "api.graph", S::warning, "CUDA graphs (cudaGraph*, stream capture)",
       "HIP has hipGraph*, but graphs are commonly disabled on DCU: vLLM runs --enforce-eager there because capture "
       "crashes or raises tail latency in some operators.",
       "Keep an eager path and make graphs optional (a build or run-time switch, off on DCU until measured)."},
      {R::api_implicit_runtime, "api.implicit-runtime", S::error, "A .cu that relies on nvcc's implicit cuda_runtime.h",
       "nvcc includes cuda_runtime.h in every .cu; hipcc does not include hip/hip_runtime.h. A file that uses kernel "
       "qualifiers, built-in indices, launches or runtime names without including a runtime header (itself or "
       "through its headers) fails after hipify: unknown type name 'hipError_t'.",
       "Include <hip/hip_runtime.h> (dcukit port translate adds it), or <cuda_runtime.h> before hipify."},
      {R::api_graphics_interop, "api.graphics-interop", S::warning, "Graphics interop (OpenGL, Direct3D, EGL, VDPAU)",
       "cudaGraphics* and cudaGL*/cudaD3D*/cudaEGL* share buffers with a display stack. HIP has OpenGL interop "
       "(hip/hip_gl_interop.h) on ROCm only, nothing for Direct3D, EGL or VDPAU, and DCU servers run headless.",
       "Keep the interop behind a build switch with a copy-through-host path, or render off the device."},
      {R::api_legacy_launch, "api.legacy-launch", S::error,
       "The driver API's legacy launch (cuParamSet*, cuFuncSetBlockShape, cuLaunchGrid)",
       "The launch calls CUDA deprecated in 4.0 and removed in 12 (cuParamSetSize, cuParamSetv, "
       "cuFuncSetBlockShape, cuLaunch, cuLaunchGrid) have no HIP counterpart: hipify leaves them, and hipcc "
       "stops at them.",
       "Launch with hipModuleLaunchKernel (cuLaunchKernel's form): the grid and block in the call, the arguments "
       "as an array of pointers."},
      {R::api_async_copy, "api.async-copy", S::error,
       "CUDA's pipeline primitives (__pipeline_memcpy_async, __pipeline_commit, __pipeline_wait_prior)",
       "cuda_pipeline_primitives.h and cuda_pipeline.h drive Ampere's asynchronous global-to-shared copies "
       "(cp.async). HIP has neither the header nor the calls, hipify leaves them, and hipcc stops at them.",
       "Load into shared memory with plain loads and __syncthreads() (the code's pre-sm80 path, where it has one); "
       "keep the pipelined loop's structure so the stages still overlap."},
      {R::lib_cublas, "lib.cublas", S::note, "cuBLAS", "cuBLAS maps to hipBLAS (hipify renames it) over rocBLAS.",
       "hipBLAS covers BLAS 1-3 and the Ex GEMMs; check compute types (HIPBLAS_R_16F), math modes (no TF32) and "
       "cublasSetMathMode, which has no counterpart."},
      {R::lib_cublaslt, "lib.cublasLt", S::warning, "cuBLASLt",
       "cuBLASLt maps to hipBLASLt, which exists only for gfx90a, gfx94x and later: not for gfx906-class DCUs, and "
       "epilogues and FP8 matmuls differ.",
       "Use hipBLASLt where the target has it, else hipBLAS/rocBLAS GEMMs with a separate epilogue kernel."},
      {R::lib_cudnn, "lib.cudnn", S::warning, "cuDNN",
       "cuDNN maps to MIOpen, whose API is not a rename: convolutions need a find step "
       "(miopenFindConvolutionForwardAlgorithm) and workspace handling differs. hipify leaves cudnn* untranslated.",
       "Port each call to MIOpen by hand, or move the operator to a library call that has a HIP equivalent."},
      {R::lib_cufft, "lib.cufft", S::note, "cuFFT", "cuFFT maps to hipFFT (over rocFFT); hipify renames it.",
       "Check plan types and callbacks (hipFFT callbacks are limited)."},
      {R::lib_curand, "lib.curand", S::note, "cuRAND", "cuRAND maps to hipRAND (over rocRAND); hipify renames it.",
       "Device-side generators come from hiprand_kernel.h; sequences match for the common generators, not all."},
      {R::lib_cusparse, "lib.cusparse", S::note, "cuSPARSE",
       "cuSPARSE maps to hipSPARSE (over rocSPARSE); the generic API (SpMV/SpMM descriptors) is covered, some "
       "legacy calls are not.",
       "Translate with the name table, then check each call in the hipSPARSE reference."},
      {R::lib_nccl, "lib.nccl", S::note, "NCCL", "NCCL maps to RCCL, which keeps the nccl* API and NCCL_* variables.",
       "Include <rccl/rccl.h>; expect lower all-reduce bandwidth on DCU and tune NCCL_* variables there."},
      {R::lib_cub, "lib.cub", S::note, "CUB", "CUB maps to hipCUB (over rocPRIM): cub:: becomes hipcub::.",
       "Check warp-level primitives (WarpReduce, WarpScan) for their logical warp size: 64 on AMD by default."},
      {R::lib_thrust, "lib.thrust", S::note, "Thrust's CUDA system (thrust::cuda::par, thrust/system/cuda/)",
       "rocThrust keeps the thrust:: namespace and headers, so plain Thrust ports as it is (and is not reported); "
       "its CUDA system is thrust::hip:: there: thrust::cuda::par, thrust::system::cuda:: (the pinned allocator), "
       "thrust::cuda_category() and the thrust/system/cuda/ headers have no same-named counterpart.",
       "Install rocThrust; write thrust::hip::par (or thrust::device), thrust::system::hip:: and thrust/system/hip/ "
       "where the CUDA system is named."},
      {R::lib_cutlass, "lib.cutlass", S::error, "CUTLASS / CuTe",
       "CUTLASS has no HIP equivalent: it is built on NVIDIA tensor-core PTX and layouts.",
       "Use hipBLASLt/rocBLAS for GEMMs, Composable Kernel (CK) for fused kernels, or a plain HIP kernel."},
      {R::lib_flash_attn, "lib.flash-attn", S::warning, "FlashAttention",
       "FlashAttention's CUDA kernels use CUTLASS and tensor-core PTX; DCU needs the vendor's ROCm/DTK build "
       "(flash_attn for DCU) or a fallback.",
       "Use the DTK build of flash-attn, or fall back to the framework's SDPA/paged attention on DCU."},
      {R::lib_triton, "lib.triton", S::note, "Triton",
       "Triton compiles for AMD, but DCU needs DTK's Triton build and kernels tuned for 64-lane wavefronts "
       "(num_warps counts wavefronts).",
       "Use DTK's Triton; set TRITON_HIP_LLD_PATH as the toolkit says; re-tune block sizes."},
      {R::lib_nvtx, "lib.nvtx", S::note, "NVTX (nvToolsExt, nvtx3)",
       "NVTX ranges map to roctx (roctracer's roctxRangePush/Pop, or rocprofiler-sdk's); the CUDA-runtime "
       "extension (nvtxNameCudaStreamA and the like) has no counterpart.",
       "Include <roctracer/roctx.h> and call roctxRangePushA/roctxRangePop, or keep NVTX behind a build switch."},
      {R::lib_cupti, "lib.cupti", S::warning, "CUPTI (NVIDIA's profiling and tracing interface)",
       "CUPTI's activity and callback APIs have no drop-in on ROCm: rocprofiler-sdk (or roctracer on older "
       "ROCm and DTK) traces kernels and API calls with its own records and callbacks.",
       "Port the tool to rocprofiler-sdk (rocprofiler_configure, buffer tracing), or keep the CUPTI build "
       "behind a switch."},
      {R::lib_nvml, "lib.nvml", S::warning, "NVML (NVIDIA's management library)",
       "NVML reads NVIDIA devices only; AMD and DCU devices answer through amd-smi's library (amdsmi.h), "
       "rocm-smi's (rocm_smi.h) or DTK's hy-smi, with their own names and units.",
       "Use amdsmi_* (or rsmi_* on older ROCm and DTK) behind the same interface, or hipDeviceGetAttribute "
       "for what the runtime knows."},
      {R::lib_libcudacxx, "lib.libcudacxx", S::warning, "libcu++ (<cuda/barrier>, <cuda/pipeline>, <cuda/std/...>)",
       "NVIDIA's libcu++ headers (cuda::barrier, cuda::pipeline, cuda::memcpy_async) are not part of HIP; "
       "libhipcxx covers part of them, and the asynchronous copies they wrap are Ampere's cp.async.",
       "Use libhipcxx where it has the facility, else __syncthreads and plain loads in place of barriers and "
       "pipelines."},
      {R::dcu_fp8, "dcu.fp8", S::error, "NVIDIA FP8 types and conversions (__nv_fp8_e4m3, __nv_fp8_e5m2, cuda_fp8.h)",
       "NVIDIA's E4M3/E5M2 layouts are not DCU's: FP8 data quantized on CUDA cannot be reused as is, and BW1000's "
       "datasheet lists no FP8 units (FP8 there is storage, converted in software).",
       "Keep FP8 as a storage format with explicit conversion kernels for the target's encoding, or use FP16/BF16 "
       "compute on DCU; never reuse CUDA-quantized FP8 weights unconverted."},
      {R::pp_cuda_only_macro, "pp.cuda-only-macro", S::warning,
       "An #if on a macro only CUDA defines (CUDART_VERSION >= N, __CUDACC_VER_MAJOR__, __DRIVER_TYPES_H__) that is "
       "false on HIP and has no #else: the code inside disappears from a HIP build",
       "HIP defines none of CUDA's version macros or header guards, so `#if CUDART_VERSION >= 10000` compares 0 and "
       "`#ifdef __DRIVER_TYPES_H__` is false: whatever the branch holds (graph capture, an error-check macro such as "
       "cuda-samples' checkCudaErrors) is silently left out, and code that uses it later fails to build or runs "
       "without it.",
       "Add the HIP platform to the condition (`|| defined(__HIP_PLATFORM_AMD__)`, or test HIP_VERSION), or give the "
       "branch an #else that HIP compiles."},
  };
  return k;
}

const RuleInfo& rule_info(RuleId id) {
  for (const auto& r : all_rules())
    if (r.id == id) return r;
  return all_rules().front();
}

std::string_view to_string(RuleId id) {
  return rule_info(id).name;
}

std::optional<RuleId> parse_rule(std::string_view name) {
  for (const auto& r : all_rules())
    if (r.name == name) return r.id;
  return std::nullopt;
}

}  // namespace dcukit::port
