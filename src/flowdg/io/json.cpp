#include "flowdg/io/json.hpp"

#include <cmath>
#include <cstdio>

namespace flowdg::json {

std::string quote(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
          out += buffer;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string number(double value) {
  if (!std::isfinite(value)) return "null";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

std::string number(long long value) { return std::to_string(value); }

Object& Object::add(const std::string& key, const std::string& raw_json) {
  members_.emplace_back(key, raw_json);
  return *this;
}

std::string Object::str(int indent) const {
  if (members_.empty()) return "{}";
  const std::string pad(static_cast<std::size_t>(indent + 2), ' ');
  std::string out = "{\n";
  for (std::size_t i = 0; i < members_.size(); ++i) {
    std::string value = members_[i].second;
    // Re-indent embedded multi-line values.
    std::string indented;
    for (const char c : value) {
      indented += c;
      if (c == '\n') indented += pad;
    }
    out += pad + quote(members_[i].first) + ": " + indented + (i + 1 < members_.size() ? ",\n" : "\n");
  }
  return out + std::string(static_cast<std::size_t>(indent), ' ') + "}";
}

std::string array(const std::vector<std::string>& raw_elements) {
  std::string out = "[";
  for (std::size_t i = 0; i < raw_elements.size(); ++i) out += (i ? ", " : "") + raw_elements[i];
  return out + "]";
}

std::string array(const std::vector<double>& values) {
  std::vector<std::string> raw;
  raw.reserve(values.size());
  for (double v : values) raw.push_back(number(v));
  return array(raw);
}

}  // namespace flowdg::json
