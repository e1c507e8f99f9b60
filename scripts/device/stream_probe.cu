// Scratch probe for docs/backends.md: copy and triad in more flat shapes than DCUKIT_STREAM_VARIANT offers,
// on 4 GiB fp64 arrays, TB/s (read + write) at the median of 35 event-timed runs, with cudaMemcpy
// for reference. Build and run on the GPU: nvcc -O3 -arch=sm_90 -o probe stream_probe.cu && ./probe
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

template <int kVec, int kBlock, bool kNT, int kOp>
__global__ void __launch_bounds__(kBlock) flat(const double2* __restrict__ a, const double2* __restrict__ b, double2* __restrict__ c, size_t nv, double s) {
  size_t base = (size_t(blockIdx.x) * kBlock * kVec) + threadIdx.x;
  double2 x[kVec], y[kVec];
#pragma unroll
  for (int u = 0; u < kVec; ++u) { size_t i = base + u * kBlock; if (i < nv) { x[u] = kNT ? __ldcs(a + i) : a[i]; if (kOp) y[u] = kNT ? __ldcs(b + i) : b[i]; } }
#pragma unroll
  for (int u = 0; u < kVec; ++u) { size_t i = base + u * kBlock; if (i < nv) { double2 r = kOp ? make_double2(x[u].x + s * y[u].x, x[u].y + s * y[u].y) : x[u]; if (kNT) __stcs(c + i, r); else c[i] = r; } }
}

template <int kVec, int kBlock, bool kNT, int kOp>
float run(const double2* a, const double2* b, double2* c, size_t nv, const char* name) {
  size_t per = size_t(kBlock) * kVec;
  unsigned grid = unsigned((nv + per - 1) / per);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  std::vector<float> t;
  for (int r = 0; r < 40; ++r) {
    cudaEventRecord(e0);
    flat<kVec, kBlock, kNT, kOp><<<grid, kBlock>>>(a, b, c, nv, 0.4);
    cudaEventRecord(e1); cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1); if (r >= 5) t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  double bytes = double(nv) * 16 * (kOp ? 3 : 2);
  printf("%-8s vec=%d block=%4d nt=%d  %.3f TB/s\n", name, kVec, kBlock, int(kNT), bytes / (t[t.size() / 2] * 1e-3) / 1e12);
  return 0;
}

int main() {
  size_t bytes = size_t(4) << 30, nv = bytes / 16;
  double2 *a, *b, *c;
  CK(cudaMalloc(&a, bytes)); CK(cudaMalloc(&b, bytes)); CK(cudaMalloc(&c, bytes));
  cudaMemset(a, 0, bytes); cudaMemset(b, 0, bytes); cudaMemset(c, 0, bytes);
#define BOTH(V, B, NT) run<V, B, NT, 0>(a, b, c, nv, "copy"); run<V, B, NT, 1>(a, b, c, nv, "triad");
  BOTH(1, 256, false) BOTH(1, 256, true) BOTH(2, 256, false) BOTH(2, 256, true) BOTH(4, 256, false) BOTH(4, 256, true)
  BOTH(1, 512, false) BOTH(2, 512, false) BOTH(1, 1024, false) BOTH(2, 1024, false) BOTH(4, 128, false) BOTH(8, 128, false)
  BOTH(2, 512, true) BOTH(4, 512, true)
  // cudaMemcpy for reference
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1); std::vector<float> t;
  for (int r = 0; r < 40; ++r) { cudaEventRecord(e0); cudaMemcpyAsync(c, a, bytes, cudaMemcpyDeviceToDevice); cudaEventRecord(e1); cudaEventSynchronize(e1); float ms; cudaEventElapsedTime(&ms, e0, e1); if (r >= 5) t.push_back(ms); }
  std::sort(t.begin(), t.end()); printf("memcpy   %.3f TB/s\n", 2.0 * bytes / (t[t.size() / 2] * 1e-3) / 1e12);
  CK(cudaGetLastError());
  return 0;
}
