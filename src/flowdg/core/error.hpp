#pragma once
// Error types and checks. Messages are one clear line a user can act on.
//   InputError     -> bad user input (mesh file, case file, command line); exit code 2
//   NumericalError -> the computation broke down (non-physical state, NaN); exit code 3
//   Error          -> anything else (internal failure, device error); exit code 1
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace flowdg {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  virtual int exit_code() const noexcept { return 1; }
};

class InputError : public Error {
 public:
  using Error::Error;
  int exit_code() const noexcept override { return 2; }
};

class NumericalError : public Error {
 public:
  using Error::Error;
  int exit_code() const noexcept override { return 3; }
};

/// Concatenates anything streamable into one string: cat("element ", e, " has area ", a).
template <class... Args>
std::string cat(Args&&... args) {
  std::ostringstream out;
  out.precision(17);
  (out << ... << std::forward<Args>(args));
  return out.str();
}

}  // namespace flowdg

/// Throws flowdg::Error with the file and line when `condition` is false (internal invariants).
#define FLOWDG_ASSERT(condition, ...)                                                          \
  do {                                                                                         \
    if (!(condition))                                                                          \
      throw ::flowdg::Error(::flowdg::cat(__FILE__, ":", __LINE__, ": internal error: ",       \
                                          #condition, " failed. ", __VA_ARGS__));              \
  } while (0)
