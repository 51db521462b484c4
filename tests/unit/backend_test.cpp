// CPU backend: arrays, views, for_each and reductions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "flowdg/backend/for_each.hpp"
#include "flowdg/backend/memory.hpp"
#include "flowdg/backend/module_loading.hpp"

using namespace flowdg;

TEST(Backend, ForEachWritesEveryIndexOnce) {
  const index_t n = 100003;
  Array<int> counts(Space::host, std::vector<int>(n, 0));
  auto view = counts.view();
  for_each(Backend::cpu, n, [=](index_t i) { view[i] += static_cast<int>(i % 7) + 1; });
  const auto host = counts.to_host();
  for (index_t i = 0; i < n; ++i) ASSERT_EQ(host[i], static_cast<int>(i % 7) + 1) << i;
}

namespace {
struct Prefetching {
  View<int> out;
  FLOWDG_HD int prefetch(index_t i) const { return static_cast<int>(i % 5) + 1; }
  FLOWDG_HD void operator()(index_t i, int prefetched) const { out[i] += prefetched; }
};
}  // namespace

TEST(Backend, ForEachPrefetchingHandsEachIndexItsPrefetchedPart) {
  const index_t n = 50021;
  Array<int> counts(Space::host, std::vector<int>(n, 0));
  for_each_prefetching(Backend::cpu, n, Prefetching{counts.view()});
  const auto host = counts.to_host();
  for (index_t i = 0; i < n; ++i) ASSERT_EQ(host[i], static_cast<int>(i % 5) + 1) << i;
}

TEST(Backend, ReductionsMatchSerialLoop) {
  const index_t n = 54321;
  auto f = [](index_t i) { return std::sin(0.001 * static_cast<double>(i)) * (1.0 + 1e-3 * static_cast<double>(i % 13)); };
  double sum = 0, mn = 1e300, mx = -1e300;
  for (index_t i = 0; i < n; ++i) {
    sum += f(i);
    mn = std::min(mn, f(i));
    mx = std::max(mx, f(i));
  }
  EXPECT_NEAR(reduce_sum<double>(Backend::cpu, n, f), sum, 1e-12 * std::abs(sum) + 1e-12);
  EXPECT_EQ(reduce_min<double>(Backend::cpu, n, f), mn);
  EXPECT_EQ(reduce_max<double>(Backend::cpu, n, f), mx);
  EXPECT_EQ(reduce_sum<double>(Backend::cpu, 0, f), 0.0);
  EXPECT_EQ(reduce_sum<index_t>(Backend::cpu, n, [](index_t i) { return i; }), n * (n - 1) / 2);
}

TEST(Backend, ReductionIsDeterministic) {
  const index_t n = 1 << 20;
  auto f = [](index_t i) { return 1.0 / (1.0 + static_cast<double>(i)); };
  const double first = reduce_sum<double>(Backend::cpu, n, f);
  for (int repeat = 0; repeat < 5; ++repeat) EXPECT_EQ(reduce_sum<double>(Backend::cpu, n, f), first);
}

TEST(Backend, ArrayCountsMemoryAndMoves) {
  const auto before = bytes_in_use(Space::host);
  {
    Array<double> a(Space::host, 1000);
    EXPECT_EQ(bytes_in_use(Space::host), before + 8000);
    Array<double> b = std::move(a);
    EXPECT_EQ(a.size(), 0);
    EXPECT_EQ(b.size(), 1000);
    EXPECT_EQ(bytes_in_use(Space::host), before + 8000);
  }
  EXPECT_EQ(bytes_in_use(Space::host), before);
  EXPECT_GE(peak_bytes(Space::host), before + 8000);
}

// The message names the request in bytes and in GiB, the latter rounded to two decimals (not
// printed to 17 digits).
TEST(Backend, AnImpossibleHostAllocationSaysHowMuchItAskedFor) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer stops at such a request instead of returning null";
#endif
  const std::size_t bytes = (std::size_t{1} << 50) + (std::size_t{1} << 38);  // 1 PiB + 256 GiB
  const auto before = bytes_in_use(Space::host);
  try {
    allocate_bytes(Space::host, bytes);
    FAIL() << "1 PiB of host memory was allocated";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("out of host memory: asked for 1126174784749568 bytes (1048832.00 GiB)"), std::string::npos) << message;
  }
  EXPECT_EQ(bytes_in_use(Space::host), before);
}

TEST(Backend, ParseBackendRejectsUnknownNames) {
  EXPECT_EQ(parse_backend("cpu"), Backend::cpu);
  EXPECT_THROW(parse_backend("gpu0"), InputError);
  if (cuda_device_count() == 0) {
    EXPECT_THROW(parse_backend("cuda"), InputError);
  }
}

TEST(Backend, EagerModuleLoadingIsAskedForUnlessTheUserExportedAChoice) {
  const char* before = std::getenv("CUDA_MODULE_LOADING");
  const std::string saved = before != nullptr ? before : "";
  unsetenv("CUDA_MODULE_LOADING");
  prefer_eager_module_loading();
  const char* chosen = std::getenv("CUDA_MODULE_LOADING");
#if defined(FLOWDG_HAVE_CUDA)
  ASSERT_NE(chosen, nullptr);
  EXPECT_STREQ(chosen, "EAGER");
#else
  EXPECT_EQ(chosen, nullptr);  // nothing to load without CUDA: the environment is left alone
#endif
  setenv("CUDA_MODULE_LOADING", "LAZY", 1);
  prefer_eager_module_loading();
  EXPECT_STREQ(std::getenv("CUDA_MODULE_LOADING"), "LAZY");  // an exported choice wins
  if (before != nullptr)
    setenv("CUDA_MODULE_LOADING", saved.c_str(), 1);
  else
    unsetenv("CUDA_MODULE_LOADING");
}
