#pragma once
// A small JSON builder for summaries and benchmark results (ordered keys, numbers to 17 digits,
// NaN/inf written as null).
#include <string>
#include <utility>
#include <vector>

namespace flowdg::json {

std::string quote(const std::string& text);
std::string number(double value);
std::string number(long long value);

class Object {
 public:
  Object& add(const std::string& key, const std::string& raw_json);
  Object& add_string(const std::string& key, const std::string& text) { return add(key, quote(text)); }
  Object& add_number(const std::string& key, double value) { return add(key, number(value)); }
  Object& add_integer(const std::string& key, long long value) { return add(key, number(value)); }
  Object& add_bool(const std::string& key, bool value) { return add(key, value ? "true" : "false"); }
  /// Pretty-printed with two-space indentation (nested objects are embedded as given).
  std::string str(int indent = 0) const;

 private:
  std::vector<std::pair<std::string, std::string>> members_;
};

std::string array(const std::vector<std::string>& raw_elements);
std::string array(const std::vector<double>& values);

}  // namespace flowdg::json
