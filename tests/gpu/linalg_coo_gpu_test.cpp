// The coordinate list to CSR conversion on the CUDA backend (linalg/coo.hpp, issue 18 item 4,
// Approach 1): on lists of about 5M entries as a p = 1 assembly of a triangle mesh writes them (a
// slot per sub-triangle and per sub-face, duplicates included), once for 500k triangles agglomerated
// into ~4,000 polygons and once for triangles used as elements, in float and double, the result is
// the host csr_from_coo's bit for bit, on the default stream and on a stream of its own, and two runs
// give the same bits; the times are printed. Also: the first entry out of range is reported, an empty
// list gives empty rows, host lists are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "flowdg/backend/backend.hpp"
#include "flowdg/backend/memory.hpp"
#include "flowdg/backend/stream.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/linalg/coo.hpp"
#include "flowdg/linalg/csr.hpp"
#include "gpu_test_util.hpp"

using namespace flowdg;
using namespace flowdg::linalg;

namespace {

std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// A value of either sign and a magnitude from 2^-20 to 2^20 (the order of a sum shows in its bits).
double scrambled_value(std::uint64_t slot) {
  const std::uint64_t bits = splitmix(slot);
  const double mantissa = static_cast<double>(bits >> 11) * (1.0 / 9007199254740992.0) - 0.5;
  return std::ldexp(mantissa, static_cast<int>(bits % 41) - 20);
}

/// The coordinate list of a p = 1 (3 unknowns per element) assembly on an n x n grid of squares cut
/// into two triangles each: every triangle writes its 3 x 3 block, every face between two elements
/// its four 3 x 3 blocks, every boundary face one, in that order (the slots of the volume kernel's
/// threads, then the interior faces', then the boundary faces'). With `agglomerate` > 0 the elements
/// are the agglomerate x agglomerate blocks of squares (faces inside one are not faces); with 0 each
/// triangle is an element.
struct Assembly {
  index_t rows = 0;
  std::vector<index_t> row, column;
  std::vector<double> value;
};

Assembly p1_assembly(index_t n, index_t agglomerate) {
  const index_t per_side = agglomerate > 0 ? (n + agglomerate - 1) / agglomerate : 0;
  // Triangle `upper` (0 or 1) of square (x, y): its element.
  const auto element = [&](index_t x, index_t y, index_t upper) {
    if (agglomerate > 0) return (y / agglomerate) * per_side + x / agglomerate;
    return 2 * (y * n + x) + upper;
  };
  Assembly list;
  list.rows = 3 * (agglomerate > 0 ? per_side * per_side : 2 * n * n);
  std::uint64_t slot = 0;
  const auto block = [&](index_t a, index_t b) {
    for (index_t i = 0; i < 3; ++i)
      for (index_t j = 0; j < 3; ++j) {
        list.row.push_back(3 * a + i);
        list.column.push_back(3 * b + j);
        list.value.push_back(scrambled_value(slot++));
      }
  };
  for (index_t y = 0; y < n; ++y)
    for (index_t x = 0; x < n; ++x)
      for (index_t upper = 0; upper < 2; ++upper) {
        const index_t e = element(x, y, upper);
        block(e, e);
      }
  const auto face = [&](index_t a, index_t b) {
    if (a == b) return;
    block(a, a);
    block(a, b);
    block(b, a);
    block(b, b);
  };
  // The diagonal of each square, the vertical edges (the left of an upper triangle, the right of the
  // lower one beside it), the horizontal edges (the bottom of a lower triangle, the top of the upper
  // one below it).
  for (index_t y = 0; y < n; ++y)
    for (index_t x = 0; x < n; ++x) {
      face(element(x, y, 0), element(x, y, 1));
      if (x > 0) face(element(x, y, 1), element(x - 1, y, 0));
      if (y > 0) face(element(x, y, 0), element(x, y - 1, 1));
    }
  for (index_t k = 0; k < n; ++k) {
    block(element(0, k, 1), element(0, k, 1));
    block(element(n - 1, k, 0), element(n - 1, k, 0));
    block(element(k, 0, 0), element(k, 0, 0));
    block(element(k, n - 1, 1), element(k, n - 1, 1));
  }
  return list;
}

template <class Real>
struct HostCsr {
  std::vector<index_t> row_start, column;
  std::vector<Real> value;
  explicit HostCsr(const CsrMatrix<Real>& matrix)
      : row_start(matrix.row_start.to_host()), column(matrix.column.to_host()), value(matrix.value.to_host()) {}
};

template <class Real>
void expect_same_bits(const HostCsr<Real>& expected, const HostCsr<Real>& actual, const char* what) {
  EXPECT_EQ(expected.row_start, actual.row_start) << what;
  EXPECT_EQ(expected.column, actual.column) << what;
  ASSERT_EQ(expected.value.size(), actual.value.size()) << what;
  std::size_t differ = 0;
  for (std::size_t k = 0; k < expected.value.size(); ++k)
    if (std::memcmp(&expected.value[k], &actual.value[k], sizeof(Real)) != 0) ++differ;
  EXPECT_EQ(differ, 0u) << what << ": values of different bits";
}

template <class Real>
void check_assembly(const char* name, const Assembly& list) {
  const index_t entries = static_cast<index_t>(list.value.size());
  CooMatrix<Real> coo(list.rows, list.rows);
  coo.row = list.row;
  coo.column = list.column;
  coo.value.assign(list.value.begin(), list.value.end());  // float: rounded once, here
  const HostCsr<Real> host(csr_from_coo(coo));

  const Array<index_t> row(Space::device, coo.row), column(Space::device, coo.column);
  const Array<Real> value(Space::device, coo.value);
  CooToCsrTimes first, second, on_stream, on_cpu;
  const HostCsr<Real> run1(csr_from_coo<Real>(Backend::cuda, list.rows, list.rows, row.view(), column.view(),
                                              value.view(), &first));
  const HostCsr<Real> run2(csr_from_coo<Real>(Backend::cuda, list.rows, list.rows, row.view(), column.view(),
                                              value.view(), &second));
  std::vector<Real> on_stream_values;
  {
    Stream stream(Backend::cuda);
    const StreamScope scope(stream);
    const HostCsr<Real> run3(csr_from_coo<Real>(Backend::cuda, list.rows, list.rows, row.view(), column.view(),
                                                value.view(), &on_stream));
    expect_same_bits(host, run3, "on a stream of its own");
  }
  const HostCsr<Real> cpu(csr_from_coo<Real>(Backend::cpu, list.rows, list.rows,
                                             {coo.row.data(), entries}, {coo.column.data(), entries},
                                             {coo.value.data(), entries}, &on_cpu));
  expect_same_bits(host, run1, "first run");
  expect_same_bits(run1, run2, "second run against the first");
  expect_same_bits(host, cpu, "cpu backend");
  EXPECT_LT(static_cast<index_t>(host.value.size()), entries);  // duplicates were merged

  const char* real = sizeof(Real) == 4 ? "float" : "double";
  std::printf("coo -> csr %s %s: %lld entries, %lld rows, %lld nonzeros\n", name, real,
              static_cast<long long>(entries), static_cast<long long>(list.rows),
              static_cast<long long>(host.value.size()));
  const struct {
    const char* label;
    CooToCsrTimes t;
  } runs[] = {{"cuda, first run", first}, {"cuda, second run", second}, {"cuda, own stream", on_stream},
              {"cpu backend", on_cpu}};
  for (const auto& [label, t] : runs)
    std::printf("  %-17s sort %8.3f ms, reduce %8.3f ms, total %8.3f ms (%.1f M entries/s)\n", label,
                1e3 * t.sort, 1e3 * t.reduce, 1e3 * t.total, 1e-6 * static_cast<double>(entries) / t.total);
}

}  // namespace

// 500k triangles (a 500 x 500 grid of squares) agglomerated into 63 x 63 polygons: ~6.7M entries
// for ~180k nonzeros (tens to hundreds of duplicates each), as Approach 1 gives on the agglomerated mesh.
TEST(GpuLinalgCoo, AgglomeratedAssemblyEqualsTheHostBitForBit) {
  FLOWDG_REQUIRE_CUDA_DEVICE();
  const Assembly list = p1_assembly(500, 8);
  check_assembly<double>("500k triangles in 3969 polygons", list);
  check_assembly<float>("500k triangles in 3969 polygons", list);
}

// 80k triangles as elements (a 200 x 200 grid): ~5M entries, 240k rows, each (K, K) block written
// by the element and its three faces.
TEST(GpuLinalgCoo, TriangleAssemblyEqualsTheHostBitForBit) {
  FLOWDG_REQUIRE_CUDA_DEVICE();
  const Assembly list = p1_assembly(200, 0);
  check_assembly<double>("80k triangles as elements", list);
  check_assembly<float>("80k triangles as elements", list);
}

TEST(GpuLinalgCoo, EmptyListsAndRefusals) {
  FLOWDG_REQUIRE_CUDA_DEVICE();
  {  // No entries: every row empty, in device memory.
    const Array<index_t> none(Space::device, 0);
    const Array<double> no_values(Space::device, 0);
    const CsrMatrix<double> empty =
        csr_from_coo<double>(Backend::cuda, 6, 4, none.view(), none.view(), no_values.view());
    EXPECT_EQ(empty.space(), Space::device);
    EXPECT_EQ(empty.nonzeros(), 0);
    EXPECT_EQ(empty.row_start.to_host(), std::vector<index_t>(7, 0));
  }
  {  // Entries 5 and 900000 of a million lie outside: entry 5 is reported.
    const index_t n = 1000000;
    std::vector<index_t> rows(n), columns(n);
    for (index_t k = 0; k < n; ++k) {
      rows[k] = k % 100;
      columns[k] = (k * 7) % 50;
    }
    rows[900000] = 100;
    columns[5] = -3;
    const Array<index_t> row(Space::device, rows), column(Space::device, columns);
    const Array<double> value(Space::device, std::vector<double>(n, 1.0));
    try {
      (void)csr_from_coo<double>(Backend::cuda, 100, 50, row.view(), column.view(), value.view());
      FAIL() << "entries outside the matrix were accepted";
    } catch (const Error& error) {
      EXPECT_EQ(std::string(error.what()), "COO matrix: entry 5 at (5, -3) lies outside the 100 x 50 matrix");
    }
  }
  {  // Host lists on the CUDA backend.
    const std::vector<index_t> index{0, 1};
    const std::vector<double> values{1.0, 2.0};
    try {
      (void)csr_from_coo<double>(Backend::cuda, 2, 2, {index.data(), 2}, {index.data(), 2}, {values.data(), 2});
      FAIL() << "host lists were accepted by the CUDA backend";
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find("host memory"), std::string::npos) << error.what();
    }
  }
}
