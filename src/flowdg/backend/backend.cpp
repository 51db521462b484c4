// Backend queries, memory spaces and checked CUDA calls. Compiled by nvcc when CUDA is enabled.
#include "flowdg/backend/backend.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include <fmt/format.h>

#include "flowdg/backend/for_each.hpp"
#include "flowdg/backend/memory.hpp"
#include "flowdg/core/error.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif
#if defined(FLOWDG_HAVE_CUDA)
#include "flowdg/backend/cuda_check.hpp"
#endif

namespace flowdg {

namespace detail {

#if defined(FLOWDG_HAVE_CUDA)
void throw_cuda_error(cudaError_t code, const char* expression, const char* file, int line) {
  throw Error(cat("CUDA error at ", file, ":", line, ": ", cudaGetErrorName(code), " (",
                  cudaGetErrorString(code), ") in ", expression));
}
#endif

void throw_no_cuda_in_this_unit() {
  throw Error(
      "the cuda backend was requested, but this code was compiled without CUDA "
      "(rebuild with -DFLOWDG_CUDA=ON and nvcc available)");
}

int thread_index() noexcept {
#if defined(_OPENMP)
  return omp_get_thread_num();
#else
  return 0;
#endif
}

void* device_scratch(std::size_t bytes) {
#if defined(FLOWDG_HAVE_CUDA)
  static std::mutex mutex;
  static void* scratch = nullptr;
  static std::size_t capacity = 0;
  std::lock_guard lock(mutex);
  if (bytes > capacity) {
    if (scratch != nullptr) FLOWDG_CUDA_CHECK(cudaFree(scratch));
    scratch = nullptr;
    FLOWDG_CUDA_CHECK(cudaMalloc(&scratch, bytes));
    capacity = bytes;
  }
  return scratch;
#else
  (void)bytes;
  throw_no_cuda_in_this_unit();
#endif
}

}  // namespace detail

bool cuda_compiled() noexcept {
#if defined(FLOWDG_HAVE_CUDA)
  return true;
#else
  return false;
#endif
}

int cuda_device_count() noexcept {
#if defined(FLOWDG_HAVE_CUDA)
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      (void)cudaGetLastError();  // clear the sticky "no driver / no device" error
      return 0;
    }
    return n;
  }();
  return count;
#else
  return 0;
#endif
}

int device_compute_capability() noexcept {
#if defined(FLOWDG_HAVE_CUDA)
  static const int capability = [] {
    if (cuda_device_count() == 0) return 0;
    int device = 0, major = 0, minor = 0;
    if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
      (void)cudaGetLastError();
      return 0;
    }
    return 10 * major + minor;
  }();
  return capability;
#else
  return 0;
#endif
}

long long device_resident_threads() noexcept {
#if defined(FLOWDG_HAVE_CUDA)
  static const long long threads = [] {
    if (cuda_device_count() == 0) return 0LL;
    int device = 0, sms = 0, per_sm = 0;
    if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device) != cudaSuccess) {
      (void)cudaGetLastError();
      return 0LL;
    }
    return static_cast<long long>(sms) * per_sm;
  }();
  return threads;
#else
  return 0;
#endif
}

void select_cuda_device(int index) {
#if defined(FLOWDG_HAVE_CUDA)
  const int count = cuda_device_count();
  if (count == 0) return;
  const int device = ((index % count) + count) % count;
  if (cudaSetDevice(device) != cudaSuccess) {
    (void)cudaGetLastError();
    throw Error(cat("cannot select CUDA device ", device, " of ", count));
  }
#else
  (void)index;
#endif
}

Backend default_backend() noexcept { return cuda_device_count() > 0 ? Backend::cuda : Backend::cpu; }

Backend parse_backend(const std::string& name) {
  if (name == "auto") return default_backend();
  if (name == "cpu") return Backend::cpu;
  if (name == "cuda") {
    if (!cuda_compiled())
      throw InputError("--backend cuda: this flowdg was built without CUDA (configure with -DFLOWDG_CUDA=ON)");
    if (cuda_device_count() == 0)
      throw InputError("--backend cuda: no CUDA device is visible (nvidia driver missing or no GPU)");
    return Backend::cuda;
  }
  throw InputError(cat("unknown backend '", name, "' (expected cpu, cuda or auto)"));
}

std::string to_string(Backend backend) { return backend == Backend::cuda ? "cuda" : "cpu"; }

int cpu_threads() noexcept {
#if defined(_OPENMP)
  return omp_get_max_threads();
#else
  return 1;
#endif
}

namespace {
/// Bytes in GiB, rounded to `decimals`: "139.80 GiB".
std::string gib(std::size_t bytes, int decimals = 2) {
  return fmt::format("{:.{}f} GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0), decimals);
}
}  // namespace

std::string describe(Backend backend) {
  if (backend == Backend::cpu) return cat("cpu: ", cpu_threads(), " OpenMP thread(s)");
#if defined(FLOWDG_HAVE_CUDA)
#if defined(FLOWDG_CUDA_DEVICE_UNOPTIMIZED)
  constexpr const char* build_note =
      "; WARNING: its kernels were built unoptimised (FLOWDG_CUDA_DEVICE_OPTIMIZE=OFF, a compile check): rebuild with the "
      "default preset for speed";
#else
  constexpr const char* build_note = "";
#endif
  int device = 0;
  FLOWDG_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp properties{};
  FLOWDG_CUDA_CHECK(cudaGetDeviceProperties(&properties, device));
  return cat("cuda: ", properties.name, " (", properties.multiProcessorCount, " SMs, ", gib(properties.totalGlobalMem, 1), ", sm_",
             properties.major, properties.minor, ")", build_note);
#else
  return "cuda: not compiled";
#endif
}

// ---------------------------------------------------------------------------------------------
// Memory

namespace {
// Sizes of live allocations, so frees can be counted (allocations are rare: setup only).
struct Counters {
  std::mutex mutex;
  std::unordered_map<void*, std::size_t> sizes;
  std::size_t in_use = 0;
  std::size_t peak = 0;
};
Counters& counters(Space space) {
  static Counters host, device;
  return space == Space::device ? device : host;
}
void count_allocation(Space space, void* pointer, std::size_t bytes) {
  auto& c = counters(space);
  std::lock_guard lock(c.mutex);
  c.sizes[pointer] = bytes;
  c.in_use += bytes;
  c.peak = std::max(c.peak, c.in_use);
}
void count_free(Space space, void* pointer) {
  auto& c = counters(space);
  std::lock_guard lock(c.mutex);
  auto it = c.sizes.find(pointer);
  if (it == c.sizes.end()) return;
  c.in_use -= it->second;
  c.sizes.erase(it);
}
}  // namespace

void* allocate_bytes(Space space, std::size_t bytes) {
  if (bytes == 0) return nullptr;
  if (space == Space::host) {
    // 256-byte alignment, like cudaMalloc, so host and device arrays see the same layout.
    void* pointer = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
    if (pointer == nullptr)
      throw Error(cat("out of host memory: asked for ", bytes, " bytes (", gib(bytes), ")"));
    count_allocation(space, pointer, bytes);
    return pointer;
  }
#if defined(FLOWDG_HAVE_CUDA)
  void* pointer = nullptr;
  const cudaError_t status = cudaMalloc(&pointer, bytes);
  if (status == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    std::size_t free = 0, total = 0;
    (void)cudaMemGetInfo(&free, &total);
    throw Error(cat("out of device memory: asked for ", bytes, " bytes (", gib(bytes), "), ",
                    gib(free), " free of ", gib(total),
                    "; use a smaller mesh or order, or a low-storage time integrator"));
  }
  FLOWDG_CUDA_CHECK(status);
  count_allocation(space, pointer, bytes);
  return pointer;
#else
  detail::throw_no_cuda_in_this_unit();
#endif
}

void* allocate_pinned(std::size_t bytes) {
  if (bytes == 0) return nullptr;
#if defined(FLOWDG_HAVE_CUDA)
  if (cuda_device_count() > 0) {
    void* pointer = nullptr;
    if (cudaMallocHost(&pointer, bytes) == cudaSuccess) return pointer;
    (void)cudaGetLastError();
    throw Error(cat("cannot allocate ", bytes, " bytes (", gib(bytes), ") of page-locked host memory"));
  }
#endif
  void* pointer = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (pointer == nullptr) throw Error(cat("out of host memory: asked for ", bytes, " bytes (", gib(bytes), ")"));
  return pointer;
}

void free_pinned(void* pointer) noexcept {
  if (pointer == nullptr) return;
#if defined(FLOWDG_HAVE_CUDA)
  if (cuda_device_count() > 0) {
    (void)cudaFreeHost(pointer);
    return;
  }
#endif
  std::free(pointer);
}

void free_bytes(Space space, void* pointer) noexcept {
  if (pointer == nullptr) return;
  count_free(space, pointer);
  if (space == Space::host) {
    std::free(pointer);
  } else {
#if defined(FLOWDG_HAVE_CUDA)
    (void)cudaFree(pointer);
#endif
  }
}

void copy_bytes(void* destination, Space destination_space, const void* source, Space source_space,
                std::size_t bytes) {
  if (bytes == 0) return;
  if (destination_space == Space::host && source_space == Space::host) {
    std::memcpy(destination, source, bytes);
    return;
  }
#if defined(FLOWDG_HAVE_CUDA)
  const cudaMemcpyKind kind =
      destination_space == Space::host
          ? cudaMemcpyDeviceToHost
          : (source_space == Space::host ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToDevice);
  FLOWDG_CUDA_CHECK(cudaMemcpy(destination, source, bytes, kind));
#else
  detail::throw_no_cuda_in_this_unit();
#endif
}

std::size_t bytes_in_use(Space space) noexcept {
  auto& c = counters(space);
  std::lock_guard lock(c.mutex);
  return c.in_use;
}
std::size_t peak_bytes(Space space) noexcept {
  auto& c = counters(space);
  std::lock_guard lock(c.mutex);
  return c.peak;
}

void synchronize(Backend backend) {
#if defined(FLOWDG_HAVE_CUDA)
  if (backend == Backend::cuda) FLOWDG_CUDA_CHECK(cudaDeviceSynchronize());
#else
  (void)backend;
#endif
}

}  // namespace flowdg
