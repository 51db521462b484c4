#pragma once
// Case files (TOML), read strictly: an unknown key, a wrong type or a missing required key is one
// clear line naming the file and the key, before any work is done.
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace flowdg {

class Config {
 public:
  /// Parses a file; a syntax error names the file, line and column.
  static Config from_file(const std::string& path);
  /// Parses text (for built-in cases and tests); `name` is used in messages.
  static Config from_string(std::string_view text, const std::string& name);

  /// Applies "section.key=value" (value in TOML syntax; a bare word is taken as a string).
  void set(const std::string& assignment);

  /// The sub-table at a dotted path ("solver", "boundary.inner"); empty if absent.
  Config table(std::string_view key) const;
  bool has(std::string_view key) const;
  /// Keys of this table, in file order.
  std::vector<std::string> keys() const;
  /// Throws InputError if this table has a key not in `allowed`.
  void allow_only(std::initializer_list<std::string_view> allowed) const;

  std::optional<std::string> get_string(std::string_view key) const;
  std::optional<double> get_double(std::string_view key) const;  ///< integers are accepted
  std::optional<long long> get_integer(std::string_view key) const;
  std::optional<bool> get_bool(std::string_view key) const;
  std::optional<std::vector<double>> get_doubles(std::string_view key) const;
  /// A string or an array of strings (a single string is a list of one).
  std::optional<std::vector<std::string>> get_strings(std::string_view key) const;

  std::string string_or(std::string_view key, std::string fallback) const;
  double double_or(std::string_view key, double fallback) const;
  long long integer_or(std::string_view key, long long fallback) const;
  bool bool_or(std::string_view key, bool fallback) const;
  std::string require_string(std::string_view key) const;

  /// "file.toml [section]" for messages.
  std::string where() const;
  /// Directory of the file (for relative paths); empty for text.
  std::string directory() const;
  /// The whole document re-serialised (stored with results).
  std::string to_toml() const;

  struct Document;

 private:
  std::shared_ptr<Document> document_;
  std::string path_;  // dotted path of this table within the document
};

}  // namespace flowdg
