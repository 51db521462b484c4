#include "flowdg/core/config.hpp"

#include <filesystem>
#include <sstream>
#include <toml++/toml.h>

#include "flowdg/core/error.hpp"

namespace flowdg {

struct Config::Document {
  toml::table root;
  std::string name;       // file path or the name given to text
  std::string directory;  // for relative paths
};

namespace {

const toml::table* find_table(const toml::table& root, const std::string& path) {
  if (path.empty()) return &root;
  return root.at_path(path).as_table();
}

std::string type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a number";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::array: return "an array";
    case toml::node_type::table: return "a table";
    default: return "a date/time";
  }
}

std::string join(std::initializer_list<std::string_view> words) {
  std::string out;
  for (auto word : words) out += (out.empty() ? "" : ", ") + std::string(word);
  return out;
}

}  // namespace

Config Config::from_file(const std::string& path) {
  if (!std::filesystem::exists(path)) throw InputError(cat("case file '", path, "' does not exist"));
  try {
    auto document = std::make_shared<Document>();
    document->root = toml::parse_file(path);
    document->name = path;
    document->directory = std::filesystem::path(path).parent_path().string();
    Config config;
    config.document_ = std::move(document);
    return config;
  } catch (const toml::parse_error& error) {
    throw InputError(cat(path, ":", error.source().begin.line, ":", error.source().begin.column,
                         ": TOML syntax error: ", error.description()));
  }
}

Config Config::from_string(std::string_view text, const std::string& name) {
  try {
    auto document = std::make_shared<Document>();
    document->root = toml::parse(text, name);
    document->name = name;
    Config config;
    config.document_ = std::move(document);
    return config;
  } catch (const toml::parse_error& error) {
    throw InputError(cat(name, ":", error.source().begin.line, ":", error.source().begin.column,
                         ": TOML syntax error: ", error.description()));
  }
}

void Config::set(const std::string& assignment) {
  const auto equals = assignment.find('=');
  if (equals == std::string::npos || equals == 0)
    throw InputError(cat("--set '", assignment, "': expected section.key=value"));
  const std::string key = assignment.substr(0, equals);
  std::string value = assignment.substr(equals + 1);
  toml::table parsed;
  try {
    parsed = toml::parse("value = " + value);
  } catch (const toml::parse_error&) {
    parsed = toml::table{{"value", value}};  // a bare word: take it as a string
  }
  // Walk/create the tables along the dotted key.
  toml::table* table = &document_->root;
  std::string_view rest = key;
  while (true) {
    const auto dot = rest.find('.');
    if (dot == std::string_view::npos) break;
    const std::string part(rest.substr(0, dot));
    rest.remove_prefix(dot + 1);
    auto* child = (*table)[part].as_table();
    if (child == nullptr) {
      if (table->contains(part)) throw InputError(cat("--set ", key, ": '", part, "' is not a table"));
      table->insert(part, toml::table{});
      child = (*table)[part].as_table();
    }
    table = child;
  }
  table->insert_or_assign(std::string(rest), *parsed.get("value"));
}

Config Config::table(std::string_view key) const {
  Config child;
  child.document_ = document_;
  child.path_ = path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  if (has(key) && find_table(document_->root, child.path_) == nullptr)
    throw InputError(cat(where(), " '", key, "' must be a table ([", child.path_, "])"));
  return child;
}

bool Config::has(std::string_view key) const {
  const toml::table* table = find_table(document_->root, path_);
  return table != nullptr && table->contains(key);
}

std::vector<std::string> Config::keys() const {
  std::vector<std::string> out;
  if (const toml::table* table = find_table(document_->root, path_))
    for (const auto& [key, node] : *table) out.emplace_back(key.str());
  return out;
}

void Config::allow_only(std::initializer_list<std::string_view> allowed) const {
  for (const std::string& key : keys()) {
    bool known = false;
    for (auto name : allowed) known = known || key == name;
    if (!known) throw InputError(cat(where(), ": unknown key '", key, "' (valid keys: ", join(allowed), ")"));
  }
}

namespace {
template <class T>
std::optional<T> typed(const Config& config, const toml::table* table, std::string_view key, const char* expected) {
  if (table == nullptr) return std::nullopt;
  const toml::node* node = table->get(key);
  if (node == nullptr) return std::nullopt;
  if constexpr (std::is_same_v<T, double>) {
    if (auto value = node->value_exact<double>()) return *value;
    if (auto value = node->value_exact<int64_t>()) return static_cast<double>(*value);
  } else {
    if (auto value = node->value_exact<T>()) return *value;
  }
  throw InputError(cat(config.where(), " ", key, ": expected ", expected, ", got ", type_name(*node)));
}
}  // namespace

std::optional<std::string> Config::get_string(std::string_view key) const {
  return typed<std::string>(*this, find_table(document_->root, path_), key, "a string");
}
std::optional<double> Config::get_double(std::string_view key) const {
  return typed<double>(*this, find_table(document_->root, path_), key, "a number");
}
std::optional<long long> Config::get_integer(std::string_view key) const {
  auto value = typed<int64_t>(*this, find_table(document_->root, path_), key, "an integer");
  if (!value) return std::nullopt;
  return static_cast<long long>(*value);
}
std::optional<bool> Config::get_bool(std::string_view key) const {
  return typed<bool>(*this, find_table(document_->root, path_), key, "true or false");
}
std::optional<std::vector<double>> Config::get_doubles(std::string_view key) const {
  const toml::table* table = find_table(document_->root, path_);
  if (table == nullptr || !table->contains(key)) return std::nullopt;
  const toml::array* array = table->get(key)->as_array();
  if (array == nullptr) throw InputError(cat(where(), " ", key, ": expected an array of numbers, got ", type_name(*table->get(key))));
  std::vector<double> out;
  for (const auto& element : *array) {
    if (auto value = element.value<double>()) {
      out.push_back(*value);
    } else {
      throw InputError(cat(where(), " ", key, ": expected an array of numbers, found ", type_name(element)));
    }
  }
  return out;
}

std::optional<std::vector<std::string>> Config::get_strings(std::string_view key) const {
  const toml::table* table = find_table(document_->root, path_);
  if (table == nullptr || !table->contains(key)) return std::nullopt;
  const toml::node* node = table->get(key);
  if (auto single = node->value<std::string>()) return std::vector<std::string>{*single};
  const toml::array* array = node->as_array();
  if (array == nullptr) throw InputError(cat(where(), " ", key, ": expected a string or an array of strings, got ", type_name(*node)));
  std::vector<std::string> out;
  for (const auto& element : *array) {
    if (auto value = element.value<std::string>()) {
      out.push_back(*value);
    } else {
      throw InputError(cat(where(), " ", key, ": expected an array of strings, found ", type_name(element)));
    }
  }
  return out;
}

std::string Config::string_or(std::string_view key, std::string fallback) const { return get_string(key).value_or(std::move(fallback)); }
double Config::double_or(std::string_view key, double fallback) const { return get_double(key).value_or(fallback); }
long long Config::integer_or(std::string_view key, long long fallback) const { return get_integer(key).value_or(fallback); }
bool Config::bool_or(std::string_view key, bool fallback) const { return get_bool(key).value_or(fallback); }
std::string Config::require_string(std::string_view key) const {
  auto value = get_string(key);
  if (!value) throw InputError(cat(where(), ": missing required key '", key, "'"));
  return *value;
}

std::string Config::where() const {
  return path_.empty() ? document_->name : cat(document_->name, " [", path_, "]");
}
std::string Config::directory() const { return document_->directory; }
std::string Config::to_toml() const {
  std::ostringstream out;
  out << document_->root;
  return out.str();
}

}  // namespace flowdg
