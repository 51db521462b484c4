// The same kernel source on CPU and CUDA gives the same numbers.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "flowdg/backend/for_each.hpp"
#include "flowdg/backend/memory.hpp"
#include "flowdg/backend/stream.hpp"
#include "flowdg/backend/cuda_check.hpp"
#include "gpu_test_util.hpp"

using namespace flowdg;

namespace {
struct Kernel {
  View<double> out;
  FLOWDG_HD void operator()(index_t i) const {
    const double x = 1e-4 * static_cast<double>(i);
    out[i] = x * x * 0.5 + 3.0 * x - 1.0 / (1.0 + x);
  }
};
// Integer arithmetic then one multiplication: bit-identical on host and device (a device sin
// may differ from glibc's in the last place, which min/max would expose).
struct Scrambled {
  FLOWDG_HD double operator()(index_t i) const {
    return static_cast<double>((i * 7919) % 10007 - 5003) * 1.25e-3 + 1e-7 * static_cast<double>(i % 101);
  }
};
struct Identity {
  FLOWDG_HD index_t operator()(index_t i) const { return i; }
};
/// out[i] = in[scrambled i] + 1: every value comes from another thread, mostly another block, of
/// the previous kernel. The scrambled index is the prefetched part (it reads nothing written).
struct Gather {
  View<const index_t> from;
  View<const double> in;
  View<double> out;
  FLOWDG_HD index_t prefetch(index_t i) const { return from[i]; }
  FLOWDG_HD void operator()(index_t i, index_t source) const { out[i] = in[source] + 1.0; }
  FLOWDG_HD void operator()(index_t i) const { (*this)(i, prefetch(i)); }
};
struct Fill {
  View<double> x;
  FLOWDG_HD void operator()(index_t i) const { x[i] = static_cast<double>(i); }
};
struct TwiceAndOne {
  View<double> x;
  FLOWDG_HD void operator()(index_t i) const { x[i] = 2.0 * x[i] + 1.0; }
};
std::vector<double> run(Backend backend, index_t n) {
  Array<double> out(space_of(backend), std::vector<double>(n, std::nan("")));  // poisoned
  for_each(backend, n, Kernel{out.view()});
  return out.to_host();
}
}  // namespace

TEST(GpuBackend, ForEachAgreesWithCpu) {
  FLOWDG_REQUIRE_CUDA_DEVICE();
  for (index_t n : {index_t{1}, index_t{255}, index_t{257}, index_t{1000003}}) {
    const auto cpu = run(Backend::cpu, n);
    const auto gpu = run(Backend::cuda, n);
    for (index_t i = 0; i < n; ++i)
      ASSERT_NEAR(gpu[i], cpu[i], 1e-14 * (1.0 + std::abs(cpu[i]))) << "n=" << n << " i=" << i;
  }
}

// A chain of programmatic dependent launches (compute capability 9.0) in which each kernel reads
// what the one before wrote and overwrites what it read: a missing or misplaced wait shows as
// values below the chain's length. Plain and chained launches alternate with the prefetching and
// the plain for_each.
TEST(GpuBackend, ChainedLaunchesWaitForThePreviousKernel) {
  FLOWDG_REQUIRE_CUDA_DEVICE();
  const index_t n = 3000017;
  std::vector<index_t> from(n);
  for (index_t i = 0; i < n; ++i) from[i] = (i * 7919 + 12345) % n;
  Array<index_t> sources(Space::device, from);
  Array<double> a(Space::device, std::vector<double>(n, 0.0)), b(Space::device, std::vector<double>(n, 0.0));
  const bool chained = device_compute_capability() >= 90;
  const int kernels = 40;
  for (int k = 0; k < kernels; ++k) {
    Array<double>& in = k % 2 == 0 ? a : b;
    Array<double>& out = k % 2 == 0 ? b : a;
    const Gather gather{sources.view(), in.view(), out.view()};
    if (k % 4 == 3)
      for_each(Backend::cuda, n, gather, chained);
    else if (k % 3 == 0)
      for_each_prefetching<4>(Backend::cuda, n, gather, chained);
    else
      for_each_prefetching(Backend::cuda, n, gather, k % 5 != 0 && chained);
  }
  const std::vector<double> result = (kernels % 2 == 0 ? a : b).to_host();
  for (index_t i = 0; i < n; ++i) ASSERT_EQ(result[i], static_cast<double>(kernels)) << i;
}

// Launches under a StreamScope go on that stream: captured into a CUDA graph (a launch on the legacy
// default stream during a thread-local capture is an error), the graph holds exactly the kernels,
// and replaying it computes the same values. Scopes nest and restore the previous stream.
TEST(GpuBackend, LaunchesGoOnTheCurrentStream) {
  FLOWDG_REQUIRE_CUDA_DEVICE();
  const index_t n = 100003;
  Array<double> values(Space::device, std::vector<double>(n, 0.0));
  const View<double> x = values.view();
  Stream stream(Backend::cuda), inner(Backend::cuda);
  ASSERT_NE(stream.handle(), nullptr);
  EXPECT_EQ(current_stream(), nullptr);
  cudaGraph_t graph = nullptr;
  {
    const StreamScope scope(stream);
    EXPECT_EQ(current_stream(), stream.handle());
    {
      const StreamScope nested(inner);
      EXPECT_EQ(current_stream(), inner.handle());
    }
    EXPECT_EQ(current_stream(), stream.handle());
    const auto handle = static_cast<cudaStream_t>(stream.handle());
    FLOWDG_CUDA_CHECK(cudaStreamBeginCapture(handle, cudaStreamCaptureModeThreadLocal));
    for_each(Backend::cuda, n, Fill{x});
    for_each(Backend::cuda, n, TwiceAndOne{x}, device_compute_capability() >= 90);
    FLOWDG_CUDA_CHECK(cudaStreamEndCapture(handle, &graph));
    std::size_t nodes = 0;
    FLOWDG_CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
    EXPECT_EQ(nodes, 2u);
    cudaGraphExec_t exec = nullptr;
    FLOWDG_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    FLOWDG_CUDA_CHECK(cudaGraphLaunch(exec, handle));
    stream.synchronize();
    FLOWDG_CUDA_CHECK(cudaGraphExecDestroy(exec));
    FLOWDG_CUDA_CHECK(cudaGraphDestroy(graph));
  }
  EXPECT_EQ(current_stream(), nullptr);
  const std::vector<double> result = values.to_host();
  for (index_t i = 0; i < n; ++i) ASSERT_EQ(result[i], 2.0 * static_cast<double>(i) + 1.0) << i;
}

TEST(GpuBackend, ReductionsAgreeWithCpu) {
  FLOWDG_REQUIRE_CUDA_DEVICE();
  for (index_t n : {index_t{1}, index_t{1000}, index_t{262145}, index_t{5000000}}) {
    const Scrambled f;
    const double sum_cpu = reduce_sum<double>(Backend::cpu, n, f);
    const double sum_gpu = reduce_sum<double>(Backend::cuda, n, f);
    // The two backends add in different orders; each result is within (n - 1) eps sum |f_i| of
    // the exact sum (Higham, recursive summation), far less in practice: allow 1e-12 sum |f_i|.
    double sum_abs = 0;
    for (index_t i = 0; i < n; ++i) sum_abs += std::abs(f(i));
    EXPECT_NEAR(sum_gpu, sum_cpu, 1e-12 * sum_abs) << n;
    EXPECT_EQ(reduce_min<double>(Backend::cuda, n, f), reduce_min<double>(Backend::cpu, n, f)) << n;
    EXPECT_EQ(reduce_max<double>(Backend::cuda, n, f), reduce_max<double>(Backend::cpu, n, f)) << n;
    EXPECT_EQ(reduce_sum<index_t>(Backend::cuda, n, Identity{}), n * (n - 1) / 2);
  }
}

TEST(GpuBackend, DeviceArraysRoundTripAndOutOfMemoryIsClear) {
  FLOWDG_REQUIRE_CUDA_DEVICE();
  std::vector<double> values(12345);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i) * 0.25;
  Array<double> device(Space::device, values);
  Array<double> copy(Space::device, static_cast<index_t>(values.size()));
  copy.copy_from(device);
  EXPECT_EQ(copy.to_host(), values);
  try {
    Array<double> huge(Space::device, index_t{1} << 45);  // 256 TiB
    FAIL() << "allocation of 256 TiB succeeded";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("out of device memory"), std::string::npos) << message;
    EXPECT_NE(message.find("free"), std::string::npos) << message;
  }
}
