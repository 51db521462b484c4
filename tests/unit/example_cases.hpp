#pragma once
// The shipped example case files, read as text, so tests run the cases users run (with overrides).
#include <fstream>
#include <iterator>
#include <string>

#include "flowdg/core/error.hpp"

namespace flowdg::testing {

inline std::string example_case(const std::string& file) {
  const std::string path = std::string(FLOWDG_SOURCE_DIR) + "/examples/" + file;
  std::ifstream in(path);
  if (!in) throw Error("cannot read " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace flowdg::testing
