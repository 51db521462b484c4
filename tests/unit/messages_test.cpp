// Numbers in messages (cat, core/error.hpp): floating-point values in the shortest text that reads back
// to the same value; integers and text as streamed.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "flowdg/core/error.hpp"

namespace flowdg {
namespace {

TEST(Messages, NumbersAreShortAndExact) {
  EXPECT_EQ(cat("got ", -0.3, ")"), "got -0.3)");
  EXPECT_EQ(cat(0.1), "0.1");
  EXPECT_EQ(cat(1e-05), "1e-05");
  EXPECT_EQ(cat(0.5f), "0.5");
  EXPECT_EQ(cat(0.1f), "0.1");  // float's shortest, not double's 0.10000000149011612
  EXPECT_EQ(cat(1.0), "1");
  EXPECT_EQ(cat(1e300), "1e+300");
  EXPECT_EQ(cat(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(cat(-std::numeric_limits<double>::infinity()), "-inf");
  // integers, text and characters as before
  EXPECT_EQ(cat("element ", 42, " face ", 3L, " of ", std::string("mesh"), ' ', 7u), "element 42 face 3 of mesh 7");
  // every double reads back exactly (what a checkpoint's time in a message or a PVD file needs)
  std::mt19937_64 random(7);
  for (int i = 0; i < 1000; ++i) {
    const double x = std::ldexp(static_cast<double>(random() >> 11), -static_cast<int>(random() % 120));
    const std::string text = cat(x);
    EXPECT_EQ(std::stod(text), x) << text;
    EXPECT_LE(text.size(), 24u) << text;
  }
  EXPECT_EQ(std::stod(cat(1.0 / 3.0)), 1.0 / 3.0);
  EXPECT_EQ(cat(1.0 / 3.0), "0.3333333333333333");
}

}  // namespace
}  // namespace flowdg
