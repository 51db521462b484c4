// The FP64 tensor cores' rate by instruction shape (`flowdg_fp64_mma_rate`, CUDA builds): long chains
// of mma.sync m8n8k4 (compute capability 8.0, the shape the tensor-core kernels used until session
// 44) against m16n8k4 / m16n8k8 / m16n8k16 (9.0), independent accumulators a warp, every SM busy.
// On the H100 (session 44, docs/performance.md) m8n8k4 issues at half the rate of the m16n8 shapes:
// about 33 against 66 TFLOP/s. Prints one line a configuration: shape, chains, threads, TFLOP/s.
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

namespace {

#define CHECK(call)                                                                        \
  do {                                                                                     \
    const cudaError_t status = (call);                                                     \
    if (status != cudaSuccess) {                                                           \
      std::fprintf(stderr, "flowdg_fp64_mma_rate: %s: %s\n", #call, cudaGetErrorString(status)); \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

// Shape 0: m8n8k4, 1: m16n8k4, 2: m16n8k8, 3: m16n8k16.
template <int Shape, int Chains>
__global__ void chains(double* out, int iterations) {
  double a[8], b[4], c[Chains][4];
  for (int i = 0; i < 8; ++i) a[i] = 1e-9 * (threadIdx.x + i);
  for (int i = 0; i < 4; ++i) b[i] = 1e-9 * (static_cast<int>(threadIdx.x) - i);
  for (int k = 0; k < Chains; ++k)
    for (int i = 0; i < 4; ++i) c[k][i] = 0;
  for (int it = 0; it < iterations; ++it) {
#pragma unroll
    for (int k = 0; k < Chains; ++k) {
      if constexpr (Shape == 0)
        asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                     : "+d"(c[k][0]), "+d"(c[k][1])
                     : "d"(a[0]), "d"(b[0]));
      else if constexpr (Shape == 1)
        asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
                     : "+d"(c[k][0]), "+d"(c[k][1]), "+d"(c[k][2]), "+d"(c[k][3])
                     : "d"(a[0]), "d"(a[1]), "d"(b[0]));
      else if constexpr (Shape == 2)
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+d"(c[k][0]), "+d"(c[k][1]), "+d"(c[k][2]), "+d"(c[k][3])
                     : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
      else
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, "
            "{%0,%1,%2,%3};\n"
            : "+d"(c[k][0]), "+d"(c[k][1]), "+d"(c[k][2]), "+d"(c[k][3])
            : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]), "d"(b[1]), "d"(b[2]),
              "d"(b[3]));
    }
  }
  double sum = 0;
  for (int k = 0; k < Chains; ++k)
    for (int i = 0; i < 4; ++i) sum += c[k][i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;  // keeps the chains alive
}

template <int Shape, int Chains>
void measure(const char* name, int m, int n, int k, int blocks, int threads) {
  double* out = nullptr;
  CHECK(cudaMalloc(&out, sizeof(double) * blocks * threads));
  const int iterations = 4096;
  chains<Shape, Chains><<<blocks, threads>>>(out, 16);  // warm-up
  CHECK(cudaGetLastError());
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start));
  chains<Shape, Chains><<<blocks, threads>>>(out, iterations);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(stop));
  CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  const double flops = 2.0 * m * n * k * Chains * static_cast<double>(iterations) * blocks * (threads / 32);
  std::printf("%-9s chains %d threads %4d: %6.2f TFLOP/s\n", name, Chains, threads, flops / ms * 1e-9);
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  CHECK(cudaFree(out));
}

}  // namespace

int main() {
  int device = 0, sms = 0, major = 0;
  CHECK(cudaGetDevice(&device));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  if (major < 9) {
    std::fprintf(stderr, "flowdg_fp64_mma_rate: the m16n8 FP64 shapes need compute capability 9.0 (this device: %d.x)\n", major);
    return 1;
  }
  for (const int threads : {128, 256}) {  // (512: the m16n8k8 / k16 chains' registers exceed a block's)
    measure<0, 4>("m8n8k4", 8, 8, 4, 2 * sms, threads);
    measure<1, 4>("m16n8k4", 16, 8, 4, 2 * sms, threads);
    measure<2, 4>("m16n8k8", 16, 8, 8, 2 * sms, threads);
    measure<3, 4>("m16n8k16", 16, 8, 16, 2 * sms, threads);
  }
  return 0;
}
