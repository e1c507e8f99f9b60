// A small self-contained CUDA program for `dcukit port translate`'s compile test: the runtime
// API (devices, peers, streams, events, pinned memory, copies), a block reduction written for
// any warp width, a ballot kept in 64 bits, and <<<...>>> launches. Translated, it must build
// with hipcc for gfx906 and gfx90a.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#define CHECK(call)                                                                     \
  do {                                                                                  \
    cudaError_t err_ = (call);                                                          \
    if (err_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s failed: %s (%s)\n", #call, cudaGetErrorString(err_),     \
                   cudaGetErrorName(err_));                                             \
      return 1;                                                                         \
    }                                                                                   \
  } while (0)

constexpr int kBlock = 256;

// Sum over the block: shuffles across the hardware warp (warpSize lanes), one partial per warp.
__device__ float block_sum(float v) {
  __shared__ float partial[kBlock / 32];  // enough slots for 32- and 64-lane warps
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  float s = 0;
  if (threadIdx.x == 0)
    for (int w = 0; w < int(blockDim.x) / warpSize; ++w) s += partial[w];
  return s;
}

__global__ void __launch_bounds__(kBlock) sum_kernel(const float* x, float* out, int n, unsigned long long* positive) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float v = i < n ? x[i] : 0.0f;
  const unsigned long long votes = __ballot_sync(0xffffffff, v > 0.0f);
  if (threadIdx.x % warpSize == 0) atomicAdd(positive, static_cast<unsigned long long>(__popcll(votes)));
  const float s = block_sum(v);
  if (threadIdx.x == 0) atomicAdd(out, s);
}

int main() {
  int devices = 0;
  CHECK(cudaGetDeviceCount(&devices));
  if (devices == 0) return 0;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, warp %d\n", prop.name, prop.warpSize);
  if (devices > 1) {
    int can = 0;
    CHECK(cudaDeviceCanAccessPeer(&can, 0, 1));
    if (can) CHECK(cudaDeviceEnablePeerAccess(1, 0));
  }
  const int n = 1 << 20;
  float* host = nullptr;
  CHECK(cudaHostAlloc(reinterpret_cast<void**>(&host), n * sizeof(float), cudaHostAllocDefault));
  for (int i = 0; i < n; ++i) host[i] = 1.0f;
  float *x = nullptr, *out = nullptr;
  unsigned long long* positive = nullptr;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&out, sizeof(float)));
  CHECK(cudaMalloc(&positive, sizeof(unsigned long long)));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreateWithFlags(&start, cudaEventDefault));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaMemcpyAsync(x, host, n * sizeof(float), cudaMemcpyHostToDevice, stream));
  CHECK(cudaMemsetAsync(out, 0, sizeof(float), stream));
  CHECK(cudaMemsetAsync(positive, 0, sizeof(unsigned long long), stream));
  CHECK(cudaEventRecord(start, stream));
  sum_kernel<<<(n + kBlock - 1) / kBlock, kBlock, 0, stream>>>(x, out, n, positive);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(stop, stream));
  float sum = 0, ms = 0;
  unsigned long long count = 0;
  CHECK(cudaMemcpyAsync(&sum, out, sizeof(float), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaMemcpyAsync(&count, positive, sizeof(count), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  std::printf("sum %.0f (expected %d), %llu positive, %.3f ms\n", sum, n, count, ms);
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(x));
  CHECK(cudaFree(out));
  CHECK(cudaFree(positive));
  CHECK(cudaFreeHost(host));
  return sum == float(n) && count == static_cast<unsigned long long>(n) ? 0 : 1;
}
