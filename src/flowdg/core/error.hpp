#pragma once
// Error types and checks. Messages are one clear line a user can act on.
//   InputError     -> bad user input (mesh file, case file, command line); exit code 2
//   NumericalError -> the computation broke down (non-physical state, NaN); exit code 3
//   Error          -> anything else (internal failure, device error); exit code 1
#include <charconv>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
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

namespace detail {
/// One of cat's pieces: a floating-point value as the shortest text that reads back to the same value
/// (-0.3, not -0.29999999999999999; 1e-05, not 1.0000000000000001e-05), anything else as streamed.
template <class T>
void append_piece(std::ostringstream& out, T&& piece) {
  if constexpr (std::is_floating_point_v<std::remove_cvref_t<T>>) {
    char text[64];
    const std::to_chars_result result = std::to_chars(text, text + sizeof text, piece);
    out.write(text, result.ptr - text);
  } else {
    out << std::forward<T>(piece);
  }
}
}  // namespace detail

/// Concatenates anything streamable into one string: cat("element ", e, " has area ", a); numbers in
/// floating point exactly, in their shortest form (detail::append_piece).
template <class... Args>
std::string cat(Args&&... args) {
  std::ostringstream out;
  (detail::append_piece(out, std::forward<Args>(args)), ...);
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
