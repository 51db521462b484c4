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

/// The shipped Couette example, its mesh path made absolute (the text is read without its folder).
inline std::string couette_example() {
  std::string text = example_case("couette.toml");
  const std::string relative = "\"meshes/couette_D.msh\"";
  text.replace(text.find(relative), relative.size(), cat("\"", FLOWDG_SOURCE_DIR, "/examples/meshes/couette_D.msh\""));
  return text;
}

}  // namespace flowdg::testing
