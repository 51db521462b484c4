// The backend conversion of a coordinate list to CSR (linalg/coo.hpp, issue 18 item 4, Approach 1)
// on the CPU backend: the same bits as the host csr_from_coo (duplicates summed in their input
// order) on random lists with many duplicates, in float and double; empty rows, an empty list and an
// empty matrix; entries out of range and lists of different lengths refused with a clear message.
// The CUDA backend's version is compared with the host in tests/gpu/linalg_coo_gpu_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "flowdg/backend/backend.hpp"
#include "flowdg/backend/memory.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/linalg/coo.hpp"
#include "flowdg/linalg/csr.hpp"

using namespace flowdg;
using namespace flowdg::linalg;

namespace {

constexpr Backend cpu = Backend::cpu;

template <class T>
View<const T> view_of(const std::vector<T>& values) {
  return {values.data(), static_cast<index_t>(values.size())};
}

/// The backend conversion of `coo`'s lists on the CPU.
template <class Real>
CsrMatrix<Real> convert(const CooMatrix<Real>& coo, CooToCsrTimes* times = nullptr) {
  return csr_from_coo<Real>(cpu, coo.rows, coo.cols, view_of(coo.row), view_of(coo.column), view_of(coo.value),
                            times);
}

/// A random list of `entries` entries in a rows x cols matrix: rows drawn from `used_rows` of them
/// only (the others stay empty), columns from a narrow band, so most (row, column) come many times;
/// values of both signs and magnitudes from 2^-20 to 2^20, so the order of a sum shows in its bits.
template <class Real>
CooMatrix<Real> random_list(index_t rows, index_t cols, index_t used_rows, index_t entries, unsigned seed) {
  std::mt19937 random(seed);
  CooMatrix<Real> coo(rows, cols);
  std::vector<index_t> used;
  for (index_t k = 0; k < used_rows; ++k) used.push_back(static_cast<index_t>(random() % rows));
  for (index_t k = 0; k < entries; ++k) {
    const index_t i = used[random() % used.size()];
    const index_t j = (i * 7 + static_cast<index_t>(random() % 9)) % cols;
    const double mantissa = static_cast<double>(random() >> 8) * (1.0 / 16777216.0) - 0.5;
    const int exponent = static_cast<int>(random() % 41) - 20;
    coo.add(i, j, static_cast<Real>(std::ldexp(mantissa, exponent)));
  }
  return coo;
}

/// Same structure and the same value bits.
template <class Real>
void expect_same_bits(const CsrMatrix<Real>& expected, const CsrMatrix<Real>& actual) {
  ASSERT_EQ(expected.rows, actual.rows);
  ASSERT_EQ(expected.cols, actual.cols);
  ASSERT_EQ(actual.space(), Space::host);
  EXPECT_EQ(expected.row_start.to_host(), actual.row_start.to_host());
  EXPECT_EQ(expected.column.to_host(), actual.column.to_host());
  const std::vector<Real> a = expected.value.to_host(), b = actual.value.to_host();
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(Real)), 0) << "the values differ in their bits";
}

/// The message of the Error that `convert` throws for `coo` (empty when none).
template <class Real>
std::string refusal(const CooMatrix<Real>& coo) {
  try {
    (void)convert(coo);
  } catch (const Error& error) {
    return error.what();
  }
  return {};
}

template <class Real>
class LinalgCoo : public ::testing::Test {};
using Reals = ::testing::Types<float, double>;
TYPED_TEST_SUITE(LinalgCoo, Reals);

}  // namespace

TYPED_TEST(LinalgCoo, EqualsTheHostConversionBitForBit) {
  using Real = TypeParam;
  struct Case {
    index_t rows, cols, used_rows, entries;
  };
  // Few distinct positions and many entries (hundreds of duplicates each), rows mostly empty, the
  // matrix wider than tall and taller than wide, a single row and a single column.
  for (const Case c : {Case{37, 23, 30, 20000}, Case{1000, 1000, 50, 30000}, Case{5, 2000, 5, 4000},
                       Case{3000, 4, 2500, 9000}, Case{1, 1, 1, 777}, Case{1, 50, 1, 600}, Case{60, 1, 60, 600}}) {
    SCOPED_TRACE(::testing::Message() << c.rows << " x " << c.cols << ", " << c.entries << " entries");
    const auto seed = 17u + static_cast<unsigned>(c.rows);
    const CooMatrix<Real> coo = random_list<Real>(c.rows, c.cols, c.used_rows, c.entries, seed);
    CooToCsrTimes times;
    const CsrMatrix<Real> actual = convert(coo, &times);
    expect_same_bits(csr_from_coo(coo), actual);
    EXPECT_LT(actual.nonzeros(), coo.entries());  // duplicates were merged
    EXPECT_GE(times.sort, 0.0);
    EXPECT_GE(times.reduce, 0.0);
    EXPECT_GE(times.total, times.sort + times.reduce - 1e-9);
    // The same list twice: the same bits.
    expect_same_bits(actual, convert(coo));
  }
}

TYPED_TEST(LinalgCoo, SumsDuplicatesInTheirInputOrder) {
  using Real = TypeParam;
  // (big + 1) - big is 0 in this order (1 is lost beside 2^30 in float and 2^60 in double) and 1 in
  // any order that adds 1 last; the entries of other positions are interleaved and in reverse order.
  const Real big = std::is_same_v<Real, float> ? Real(1 << 30) : static_cast<Real>(std::ldexp(1.0, 60));
  CooMatrix<Real> coo(3, 3);
  coo.add(2, 2, Real(5));
  coo.add(1, 0, big);
  coo.add(0, 1, Real(7));
  coo.add(1, 0, Real(1));
  coo.add(2, 0, Real(3));
  coo.add(1, 0, -big);
  coo.add(0, 1, Real(-7));
  const CsrMatrix<Real> actual = convert(coo);
  expect_same_bits(csr_from_coo(coo), actual);
  EXPECT_EQ(actual.row_start.to_host(), (std::vector<index_t>{0, 1, 2, 4}));
  EXPECT_EQ(actual.column.to_host(), (std::vector<index_t>{1, 0, 0, 2}));
  EXPECT_EQ(actual.value.to_host(), (std::vector<Real>{Real(0), Real(0), Real(3), Real(5)}));  // explicit zeros kept
}

TYPED_TEST(LinalgCoo, EmptyRowsAndEmptyLists) {
  using Real = TypeParam;
  {  // Only rows 2 and 6 of 9 have entries; the first and last rows are empty.
    CooMatrix<Real> coo(9, 4);
    coo.add(6, 3, Real(1.5));
    coo.add(2, 1, Real(2));
    coo.add(6, 0, Real(-1));
    coo.add(2, 1, Real(0.25));
    const CsrMatrix<Real> actual = convert(coo);
    expect_same_bits(csr_from_coo(coo), actual);
    EXPECT_EQ(actual.row_start.to_host(), (std::vector<index_t>{0, 0, 0, 1, 1, 1, 1, 3, 3, 3}));
  }
  {  // No entries at all: every row empty.
    const CooMatrix<Real> coo(5, 3);
    CooToCsrTimes times;
    const CsrMatrix<Real> actual = convert(coo, &times);
    expect_same_bits(csr_from_coo(coo), actual);
    EXPECT_EQ(actual.nonzeros(), 0);
    EXPECT_EQ(actual.row_start.to_host(), std::vector<index_t>(6, 0));
  }
  {  // A 0 x 0 matrix, and a 0 x 7 one.
    for (const index_t cols : {index_t{0}, index_t{7}}) {
      const CooMatrix<Real> coo(0, cols);
      const CsrMatrix<Real> actual = convert(coo);
      expect_same_bits(csr_from_coo(coo), actual);
      EXPECT_EQ(actual.row_start.to_host(), std::vector<index_t>{0});
    }
  }
}

TYPED_TEST(LinalgCoo, RefusesEntriesOutsideTheMatrix) {
  using Real = TypeParam;
  struct Bad {
    index_t row, column;
  };
  for (const Bad bad : {Bad{5, 0}, Bad{-1, 2}, Bad{0, 4}, Bad{3, -2}}) {
    CooMatrix<Real> coo(5, 4);
    coo.add(0, 0, Real(1));
    coo.add(4, 3, Real(1));
    coo.add(2, 2, Real(1));
    coo.add(bad.row, bad.column, Real(1));
    coo.add(9, 9, Real(1));  // also outside, but after: the first one is reported
    const std::string message = refusal(coo);
    const std::string expected =
        "COO matrix: entry 3 at (" + std::to_string(bad.row) + ", " + std::to_string(bad.column) +
        ") lies outside the 5 x 4 matrix";
    EXPECT_EQ(message, expected);
  }
  // Any entry of a matrix without rows or columns lies outside it.
  CooMatrix<Real> empty(0, 3);
  empty.add(0, 0, Real(1));
  EXPECT_EQ(refusal(empty), "COO matrix: entry 0 at (0, 0) lies outside the 0 x 3 matrix");
}

TYPED_TEST(LinalgCoo, RefusesListsOfDifferentLengthsAndNegativeSizes) {
  using Real = TypeParam;
  CooMatrix<Real> coo(4, 4);
  coo.add(1, 1, Real(1));
  coo.add(2, 2, Real(1));
  coo.column.pop_back();
  EXPECT_EQ(refusal(coo), "COO matrix: 2 rows, 1 columns and 2 values (the three lists must have one entry each)");
  coo.column.push_back(2);
  coo.value.push_back(Real(3));
  EXPECT_NE(refusal(coo).find("the three lists must have one entry each"), std::string::npos);
  const CooMatrix<Real> negative(-1, 3);
  EXPECT_EQ(refusal(negative), "COO matrix: negative size -1 x 3");
}

TEST(LinalgCooBackend, TheCudaBackendOfABuildWithoutItSaysSo) {
  if (cuda_compiled()) GTEST_SKIP() << "built with CUDA: tests/gpu/linalg_coo_gpu_test.cpp covers the CUDA backend";
  const std::vector<index_t> index{0};
  const std::vector<double> value{1.0};
  try {
    (void)csr_from_coo<double>(Backend::cuda, 1, 1, view_of(index), view_of(index), view_of(value));
    FAIL() << "the CUDA backend of a CPU-only build converted a list";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("compiled without CUDA"), std::string::npos) << error.what();
  }
}
