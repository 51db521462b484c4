// Gmsh MSH reader. The whole file is held in memory and parsed by one cursor, so every error can
// say where it happened: the line in an ASCII file, the byte offset in a binary one. Counts read
// from the file are checked against the bytes left before anything is sized by them, and every
// loop consumes input, so a broken file ends in an InputError rather than a crash or a hang.
#include "flowdg/mesh/gmsh_reader.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>

#include "flowdg/core/error.hpp"

namespace flowdg {
namespace {

static_assert(std::endian::native == std::endian::little,
              "binary MSH data is read by copying little-endian bytes");

struct GmshType {
  int number;
  int dimension;
  int n_nodes;
  int n_vertices;
  const char* name;
};

// Types from Gmsh's GmshDefines.h. The reader must know every type's node count to step over it
// (binary element records have no terminator); only some become mesh elements.
constexpr GmshType gmsh_types[] = {
    {1, 1, 2, 2, "2-node line"},          {2, 2, 3, 3, "3-node triangle"},
    {3, 2, 4, 4, "4-node quadrilateral"}, {4, 3, 4, 4, "4-node tetrahedron"},
    {5, 3, 8, 8, "8-node hexahedron"},    {6, 3, 6, 6, "6-node prism"},
    {7, 3, 5, 5, "5-node pyramid"},       {8, 1, 3, 2, "3-node line"},
    {9, 2, 6, 3, "6-node triangle"},      {10, 2, 9, 4, "9-node quadrilateral"},
    {11, 3, 10, 4, "10-node tetrahedron"}, {12, 3, 27, 8, "27-node hexahedron"},
    {13, 3, 18, 6, "18-node prism"},      {14, 3, 14, 5, "14-node pyramid"},
    {15, 0, 1, 1, "point"},               {16, 2, 8, 4, "8-node quadrilateral"},
    {17, 3, 20, 8, "20-node hexahedron"}, {18, 3, 15, 6, "15-node prism"},
    {19, 3, 13, 5, "13-node pyramid"},    {20, 2, 9, 3, "9-node triangle"},
    {21, 2, 10, 3, "10-node triangle"},   {22, 2, 12, 3, "12-node triangle"},
    {23, 2, 15, 3, "15-node triangle"},   {24, 2, 15, 3, "15-node incomplete triangle"},
    {25, 2, 21, 3, "21-node triangle"},   {26, 1, 4, 2, "4-node line"},
    {27, 1, 5, 2, "5-node line"},         {28, 1, 6, 2, "6-node line"},
    {29, 3, 20, 4, "20-node tetrahedron"}, {30, 3, 35, 4, "35-node tetrahedron"},
    {31, 3, 56, 4, "56-node tetrahedron"}, {36, 2, 16, 4, "16-node quadrilateral"},
    {37, 2, 25, 4, "25-node quadrilateral"}, {38, 2, 36, 4, "36-node quadrilateral"},
    {92, 3, 64, 8, "64-node hexahedron"}, {93, 3, 125, 8, "125-node hexahedron"},
};

const GmshType* find_gmsh_type(std::int64_t number) {
  for (const auto& type : gmsh_types)
    if (type.number == number) return &type;
  return nullptr;
}

// Gmsh's number of each ElementType (their node orders agree: mesh/lagrange.hpp).
constexpr std::pair<int, ElementType> gmsh_element_types[] = {
    {2, ElementType::triangle3},       {9, ElementType::triangle6},         {21, ElementType::triangle10},
    {23, ElementType::triangle15},     {3, ElementType::quadrilateral4},    {16, ElementType::quadrilateral8},
    {10, ElementType::quadrilateral9}, {36, ElementType::quadrilateral16},  {37, ElementType::quadrilateral25},
    {4, ElementType::tetrahedron4},    {11, ElementType::tetrahedron10},    {29, ElementType::tetrahedron20},
    {30, ElementType::tetrahedron35},  {5, ElementType::hexahedron8},       {12, ElementType::hexahedron27},
};
static_assert(std::size(gmsh_element_types) == element_type_count, "every ElementType has its Gmsh number");

std::optional<ElementType> element_type(int gmsh_type) {
  for (const auto& [number, type] : gmsh_element_types)
    if (number == gmsh_type) return type;
  return std::nullopt;
}

/// "2 (triangle3), 9 (triangle6), ...": for the message about an unsupported type.
std::string supported_types() {
  std::string list;
  for (const auto& [number, type] : gmsh_element_types) list += cat(list.empty() ? "" : ", ", number, " (", type_name(type), ")");
  return list;
}

/// Maps Gmsh node tags to node indices. Gmsh numbers nodes 1..n in file order, which needs no
/// table; the hash map is built only when a file's tags leave that sequence.
class NodeTags {
 public:
  /// False when `tag` already has an index.
  bool add(std::int64_t tag, index_t index) {
    if (sequential_) {
      if (count_ == 0) first_ = tag;
      if (tag >= first_ && tag - first_ == count_ && index == count_) {
        ++count_;
        return true;
      }
      for (index_t i = 0; i < count_; ++i) sparse_.emplace(first_ + i, i);
      sequential_ = false;
    }
    return sparse_.emplace(tag, index).second;
  }
  /// Index of `tag`, or -1 when it was never added.
  index_t find(std::int64_t tag) const {
    if (sequential_) return tag >= first_ && tag - first_ < count_ ? tag - first_ : -1;
    const auto found = sparse_.find(tag);
    return found == sparse_.end() ? -1 : found->second;
  }

 private:
  bool sequential_ = true;
  std::int64_t first_ = 0;
  index_t count_ = 0;
  std::unordered_map<std::int64_t, index_t> sparse_;
};

/// Elements of one dimension as read: which dimension the mesh has is known only at the end.
struct ElementGroup {
  std::vector<int> gmsh_types;
  std::vector<std::int64_t> physical_tags;  ///< <= 0: in no physical group
  std::vector<std::int64_t> file_tags;      ///< the elements' own tags
  std::vector<index_t> offsets{0};
  std::vector<index_t> nodes;
  const GmshType* unsupported = nullptr;  ///< first type that cannot be a mesh element
  std::size_t unsupported_position = 0;
};

/// A token cut to a printable, bounded piece of one line, for messages.
std::string shown(std::string_view token) {
  constexpr std::size_t limit = 32;
  std::string result;
  for (const char c : token.substr(0, limit)) result += (c >= 32 && c < 127) ? c : '?';
  if (token.size() > limit) result += "...";
  return result;
}

class Reader {
 public:
  Reader(std::string_view bytes, std::string name) : bytes_(bytes), name_(std::move(name)) {}

  Mesh read() {
    if (bytes_.empty()) fail("the file is empty");
    read_mesh_format();
    for (skip_space(); position_ < bytes_.size(); skip_space()) {
      const std::string_view header = word();
      if (header == "$PhysicalNames") read_physical_names();
      else if (header == "$Entities") read_entities();
      else if (header == "$Nodes") read_nodes();
      else if (header == "$Elements") read_elements();
      else if (header.size() > 1 && header[0] == '$' && !header.starts_with("$End"))
        skip_section(header.substr(1));
      else fail(cat("expected a section header such as $Nodes, found '", shown(header), "'"));
    }
    return build_mesh();
  }

 private:
  // ---- errors ----------------------------------------------------------------------------------
  [[noreturn]] void fail_at(std::size_t position, const std::string& message) const {
    if (binary_) throw InputError(cat(name_, ", byte ", position, ": ", message));
    const auto line = 1 + std::count(bytes_.begin(), bytes_.begin() + static_cast<std::ptrdiff_t>(position), '\n');
    throw InputError(cat(name_, ", line ", line, ": ", message));
  }
  /// Fails at the start of the item read last.
  [[noreturn]] void fail(const std::string& message) const { fail_at(item_start_, message); }

  // ---- text ------------------------------------------------------------------------------------
  static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }
  void skip_space() {
    while (position_ < bytes_.size() && is_space(bytes_[position_])) ++position_;
  }
  std::string_view word() {
    skip_space();
    item_start_ = position_;
    if (position_ == bytes_.size()) fail("unexpected end of file");
    while (position_ < bytes_.size() && !is_space(bytes_[position_])) ++position_;
    return bytes_.substr(item_start_, position_ - item_start_);
  }
  std::int64_t text_integer(std::string_view what) {
    const std::string_view token = word();
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (error != std::errc() || end != token.data() + token.size())
      fail(cat("expected ", what, " (an integer), found '", shown(token), "'"));
    return value;
  }
  double text_real(std::string_view what) {
    const std::string_view token = word();
    double value = 0;
    const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (error != std::errc() || end != token.data() + token.size())
      fail(cat("expected ", what, " (a number), found '", shown(token), "'"));
    return value;
  }
  /// Binary data starts right after the newline that ends a text line, whatever its bytes are.
  void end_line() {
    while (position_ < bytes_.size() && (bytes_[position_] == ' ' || bytes_[position_] == '\r')) ++position_;
    item_start_ = position_;
    if (position_ == bytes_.size() || bytes_[position_] != '\n') fail("expected the end of the line before binary data");
    ++position_;
  }
  void expect_end(std::string_view section) {
    const std::string_view token = word();
    if (token.size() != section.size() + 4 || !token.starts_with("$End") || !token.ends_with(section))
      fail(cat("expected $End", section, ", found '", shown(token), "'"));
  }

  // ---- fields: text or binary according to the section being read -------------------------------
  template <class T>
  T binary_value(std::string_view what) {
    item_start_ = position_;
    if (bytes_.size() - position_ < sizeof(T)) fail(cat("the file ends inside ", what));
    T value;
    std::memcpy(&value, bytes_.data() + position_, sizeof(T));
    position_ += sizeof(T);
    return value;
  }
  /// A C int in binary data.
  std::int64_t int_field(std::string_view what) {
    return binary_fields_ ? binary_value<std::int32_t>(what) : text_integer(what);
  }
  /// A size_t in binary data (MSH 4.1 counts and tags).
  std::int64_t size_field(std::string_view what) {
    if (!binary_fields_) return text_integer(what);
    const auto value = binary_value<std::uint64_t>(what);
    if (value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      fail(cat(what, " ", value, " is out of range"));
    return static_cast<std::int64_t>(value);
  }
  /// Node and element tags: size_t in MSH 4.1 binary, int in MSH 2.2 binary.
  std::int64_t tag_field(std::string_view what) { return version_ == 4 ? size_field(what) : int_field(what); }
  double real_field(std::string_view what) {
    const double value = binary_fields_ ? binary_value<double>(what) : text_real(what);
    if (!std::isfinite(value)) fail(cat(what, " is not a finite number"));
    return value;
  }
  /// Least size of a data record of `numbers` numbers: 2 bytes each in text ("1 "), at least 4
  /// in binary.
  std::int64_t record_bytes(std::int64_t numbers) const { return numbers * (binary_ ? 4 : 2); }
  /// Checks a count just read against the bytes left, so that no allocation sized by a count can
  /// exceed a small multiple of the file size.
  std::int64_t checked_count(std::int64_t count, std::string_view what, std::int64_t least_bytes_each) const {
    const auto left = static_cast<std::int64_t>(bytes_.size() - position_);
    if (count < 0) fail(cat(what, " is negative (", count, ")"));
    if (count > left / least_bytes_each)
      fail(cat(what, " ", count, " is more than the remaining ", left, " bytes of the file can hold"));
    return count;
  }
  /// A count of records of `numbers` numbers each.
  std::int64_t count_field(std::string_view what, std::int64_t numbers) {
    return checked_count(size_field(what), what, record_bytes(numbers));
  }
  std::int64_t dimension_field(std::string_view what) {
    const std::int64_t dimension = int_field(what);
    if (dimension < 0 || dimension > 3) fail(cat(what, " must be 0, 1, 2 or 3, found ", dimension));
    return dimension;
  }
  /// Starts the data of a section: binary files hold it in binary (MSH 2.2: after a text count).
  void begin_data() {
    if (!binary_) return;
    end_line();
    binary_fields_ = true;
  }
  void end_section(std::string_view section) {
    binary_fields_ = false;
    expect_end(section);
  }

  // ---- sections --------------------------------------------------------------------------------
  void read_mesh_format() {
    if (word() != "$MeshFormat") fail("not a Gmsh MSH file: it does not start with $MeshFormat");
    const std::string_view version = word();
    if (version == "4.1") version_ = 4;
    else if (version == "2.2") version_ = 2;
    else fail(cat("unsupported MSH version '", shown(version), "' (supported: 4.1 and 2.2)"));
    const std::int64_t file_type = text_integer("the file type");
    if (file_type != 0 && file_type != 1) fail(cat("file type must be 0 (ASCII) or 1 (binary), found ", file_type));
    if (text_integer("the data size") != 8) fail("data size must be 8 (64-bit doubles and size_t)");
    binary_ = file_type == 1;
    if (binary_) {
      end_line();
      const auto one = binary_value<std::int32_t>("the endianness marker");
      if (one == 0x01000000) fail("big-endian binary MSH files are not supported");
      if (one != 1) fail(cat("bad endianness marker ", one, " (expected the binary integer 1)"));
    }
    expect_end("MeshFormat");
  }

  void read_physical_names() {
    const std::int64_t count = checked_count(text_integer("the number of physical names"), "the number of physical names", 6);
    for (std::int64_t i = 0; i < count; ++i) {
      const std::int64_t dimension = text_integer("a physical group dimension");
      if (dimension < 0 || dimension > 3) fail(cat("physical group dimension must be 0 to 3, found ", dimension));
      const std::int64_t tag = text_integer("a physical tag");
      while (position_ < bytes_.size() && (bytes_[position_] == ' ' || bytes_[position_] == '\t')) ++position_;
      item_start_ = position_;
      const std::size_t close = position_ < bytes_.size() && bytes_[position_] == '"' ? bytes_.find('"', position_ + 1) : std::string_view::npos;
      if (close == std::string_view::npos || bytes_.substr(position_, close - position_).find('\n') != std::string_view::npos)
        fail("expected a physical name in double quotes");
      physical_names_[{dimension, tag}] = std::string(bytes_.substr(position_ + 1, close - position_ - 1));
      position_ = close + 1;
    }
    expect_end("PhysicalNames");
  }

  void read_entities() {
    if (version_ != 4) fail("$Entities is not part of MSH 2.2");
    if (seen_nodes_ || seen_elements_) fail("$Entities must come before $Nodes and $Elements");
    begin_data();
    std::int64_t counts[4];
    for (auto& count : counts) count = count_field("the number of entities", 5);
    for (int dimension = 0; dimension < 4; ++dimension) {
      for (std::int64_t i = 0; i < counts[dimension]; ++i) {
        const std::int64_t tag = int_field("an entity tag");
        // Points give their position, other entities their bounding box: neither is needed.
        for (int k = 0; k < (dimension == 0 ? 3 : 6); ++k) real_field("an entity coordinate");
        const std::int64_t n_physical = count_field("the number of physical tags", 1);
        std::int64_t physical = 0;
        for (std::int64_t k = 0; k < n_physical; ++k) {
          const std::int64_t value = int_field("a physical tag");
          if (physical <= 0) physical = value;
        }
        entity_physical_[dimension][tag] = physical;
        if (dimension == 0) continue;
        const std::int64_t n_bounding = count_field("the number of bounding entities", 1);
        for (std::int64_t k = 0; k < n_bounding; ++k) int_field("a bounding entity tag");
      }
    }
    end_section("Entities");
  }

  void read_nodes() {
    if (seen_nodes_) fail("a second $Nodes section");
    seen_nodes_ = true;
    if (version_ == 4) {
      begin_data();
      const std::int64_t n_blocks = count_field("the number of node blocks", 4);
      const std::int64_t n_nodes = count_field("the number of nodes", 4);
      const std::size_t n_nodes_position = item_start_;
      size_field("the smallest node tag");
      size_field("the largest node tag");
      nodes_.reserve(static_cast<std::size_t>(n_nodes));
      for (std::int64_t block = 0; block < n_blocks; ++block) {
        const std::int64_t entity_dimension = dimension_field("the entity dimension");
        int_field("the entity tag");
        const std::int64_t parametric = int_field("the parametric flag");
        if (parametric != 0 && parametric != 1) fail(cat("parametric flag must be 0 or 1, found ", parametric));
        const std::int64_t count = count_field("the number of nodes in the block", 4);
        const auto first = static_cast<index_t>(nodes_.size());
        if (count > n_nodes - first)
          fail(cat("node block holds ", count, " nodes but only ", n_nodes - first, " of the declared ", n_nodes, " remain"));
        for (std::int64_t i = 0; i < count; ++i) add_node_tag(tag_field("a node tag"), first + i);
        for (std::int64_t i = 0; i < count; ++i) {
          read_node_coordinates();
          for (std::int64_t k = 0; k < parametric * entity_dimension; ++k) real_field("a parametric coordinate");
        }
      }
      if (static_cast<std::int64_t>(nodes_.size()) != n_nodes)
        fail_at(n_nodes_position, cat("the node blocks hold ", nodes_.size(), " nodes but the header declared ", n_nodes));
    } else {
      const std::int64_t n_nodes = checked_count(text_integer("the number of nodes"), "the number of nodes", record_bytes(4));
      begin_data();
      nodes_.reserve(static_cast<std::size_t>(n_nodes));
      for (std::int64_t i = 0; i < n_nodes; ++i) {
        add_node_tag(tag_field("a node tag"), i);
        read_node_coordinates();
      }
    }
    end_section("Nodes");
  }

  void add_node_tag(std::int64_t tag, index_t index) {
    if (tag <= 0) fail(cat("node tag must be positive, found ", tag));
    if (!node_tags_.add(tag, index)) fail(cat("node tag ", tag, " is defined twice"));
  }

  void read_node_coordinates() {
    const std::size_t start = position_;
    Point3 point;
    point.x = real_field("a node coordinate");
    point.y = real_field("a node coordinate");
    point.z = real_field("a node coordinate");
    largest_xy_ = std::max({largest_xy_, std::abs(point.x), std::abs(point.y)});
    if (std::abs(point.z) > largest_z_) {
      largest_z_ = std::abs(point.z);
      largest_z_position_ = start;
    }
    nodes_.push_back(point);
  }

  void read_elements() {
    if (seen_elements_) fail("a second $Elements section");
    if (!seen_nodes_) fail("$Elements must come after $Nodes");
    seen_elements_ = true;
    elements_position_ = item_start_;
    if (version_ == 4) {
      begin_data();
      const std::int64_t n_blocks = count_field("the number of element blocks", 4);
      const std::int64_t n_elements = count_field("the number of elements", 2);
      const std::size_t n_elements_position = item_start_;
      size_field("the smallest element tag");
      size_field("the largest element tag");
      std::int64_t read = 0;
      for (std::int64_t block = 0; block < n_blocks; ++block) {
        const std::int64_t dimension = dimension_field("the entity dimension");
        const std::int64_t entity = int_field("the entity tag");
        const GmshType& type = element_type_field();
        const std::size_t type_position = item_start_;
        if (type.dimension != dimension)
          fail(cat("element type ", type.number, " is ", type.dimension, "D but its block is ", dimension, "D"));
        const std::int64_t count = count_field("the number of elements in the block", 1 + type.n_nodes);
        if (count > n_elements - read)
          fail(cat("element block holds ", count, " elements but only ", n_elements - read, " of the declared ", n_elements, " remain"));
        const auto found = entity_physical_[dimension].find(entity);
        const std::int64_t physical = found == entity_physical_[dimension].end() ? 0 : found->second;
        for (std::int64_t i = 0; i < count; ++i) read_element(type, type_position, tag_field("an element tag"), 0, physical);
        read += count;
      }
      if (read != n_elements)
        fail_at(n_elements_position, cat("the element blocks hold ", read, " elements but the header declared ", n_elements));
    } else if (!binary_) {
      const std::int64_t n_elements = checked_count(text_integer("the number of elements"), "the number of elements", record_bytes(2));
      for (std::int64_t i = 0; i < n_elements; ++i) {
        const std::int64_t tag = text_integer("an element tag");
        const GmshType& type = element_type_field();
        const std::size_t type_position = item_start_;
        const std::int64_t n_tags = checked_count(text_integer("the number of element tags"), "the number of element tags", record_bytes(1));
        read_element(type, type_position, tag, n_tags, 0);
      }
    } else {
      const std::int64_t n_elements = checked_count(text_integer("the number of elements"), "the number of elements", record_bytes(2));
      begin_data();
      for (std::int64_t read = 0; read < n_elements;) {
        const GmshType& type = element_type_field();
        const std::size_t type_position = item_start_;
        const std::int64_t count = int_field("the number of elements that follow");
        if (count < 1 || count > n_elements - read)
          fail(cat("element header announces ", count, " elements but ", n_elements - read, " of the declared ", n_elements, " remain"));
        const std::int64_t n_tags = checked_count(int_field("the number of element tags"), "the number of element tags", record_bytes(1));
        for (std::int64_t i = 0; i < count; ++i) read_element(type, type_position, tag_field("an element tag"), n_tags, 0);
        read += count;
      }
    }
    end_section("Elements");
  }

  const GmshType& element_type_field() {
    const std::int64_t number = int_field("an element type");
    const GmshType* type = find_gmsh_type(number);
    if (!type) fail(cat("unknown element type ", number));
    return *type;
  }

  /// Reads the rest of element `tag`: its `n_tags` integer tags (in MSH 2.2 the first is its
  /// physical group, else `physical` is) and its nodes.
  void read_element(const GmshType& type, std::size_t type_position, std::int64_t tag, std::int64_t n_tags,
                    std::int64_t physical) {
    for (std::int64_t k = 0; k < n_tags; ++k) {
      const std::int64_t value = int_field("an element tag");
      if (k == 0) physical = value;
    }
    ElementGroup& group = groups_[type.dimension];
    for (int k = 0; k < type.n_nodes; ++k) {
      const std::int64_t node = tag_field("a node tag");
      const index_t index = node_tags_.find(node);
      if (index < 0) fail(cat("element ", tag, " uses node ", node, ", which $Nodes does not define"));
      group.nodes.push_back(index);
    }
    group.offsets.push_back(static_cast<index_t>(group.nodes.size()));
    group.gmsh_types.push_back(type.number);
    group.physical_tags.push_back(physical);
    group.file_tags.push_back(tag);
    if (!group.unsupported && type.dimension >= 2 && !element_type(type.number)) {
      group.unsupported = &type;
      group.unsupported_position = type_position;
    }
  }

  void skip_section(std::string_view section) {
    const std::string end = cat("$End", section);
    const std::size_t found = bytes_.find(end, position_);
    if (found == std::string_view::npos) fail(cat("section $", shown(section), " has no ", shown(end)));
    position_ = found + end.size();
  }

  // ---- the mesh --------------------------------------------------------------------------------
  Mesh build_mesh() {
    const std::size_t end = bytes_.size();
    if (!seen_nodes_) fail_at(end, "the file has no $Nodes section");
    if (!seen_elements_) fail_at(end, "the file has no $Elements section");
    int dimension = 3;
    while (dimension > 0 && groups_[dimension].gmsh_types.empty()) --dimension;
    if (dimension < 2) fail_at(elements_position_, "the file has no 2D or 3D elements");
    ElementGroup& cells = groups_[dimension];
    if (cells.unsupported)
      fail_at(cells.unsupported_position,
              cat("element type ", cells.unsupported->number, " (", cells.unsupported->name,
                  ") is not supported; supported are ", supported_types()));
    // Planar meshes written by Gmsh and meshio have z = 0 exactly; allow only rounding-level noise.
    if (dimension == 2 && largest_z_ > 1e-12 * largest_xy_)
      fail_at(largest_z_position_, cat("a node has z = ", largest_z_, " but the mesh is two-dimensional"));

    Mesh mesh;
    mesh.dimension = dimension;
    mesh.source = name_;
    mesh.nodes = std::move(nodes_);
    mesh.element_types.reserve(cells.gmsh_types.size());
    for (const int type : cells.gmsh_types) mesh.element_types.push_back(*element_type(type));
    mesh.element_offsets = std::move(cells.offsets);
    mesh.element_nodes = std::move(cells.nodes);
    mesh.element_file_tags = std::move(cells.file_tags);

    // Tag ids follow the physical tag numbers, so every format variant of a mesh numbers them alike.
    const ElementGroup& facets = groups_[dimension - 1];
    std::map<std::int64_t, int> tag_of_physical;
    for (const std::int64_t physical : facets.physical_tags)
      if (physical > 0) tag_of_physical.emplace(physical, 0);
    for (auto& [physical, tag] : tag_of_physical) {
      const auto named = physical_names_.find({dimension - 1, physical});
      tag = mesh.tag_id(named == physical_names_.end() ? cat("tag", physical) : named->second);
    }
    for (std::size_t f = 0; f < facets.gmsh_types.size(); ++f) {
      if (facets.physical_tags[f] <= 0) continue;
      TaggedFacet facet;
      facet.n_vertices = find_gmsh_type(facets.gmsh_types[f])->n_vertices;
      facet.tag = tag_of_physical.at(facets.physical_tags[f]);
      std::copy_n(facets.nodes.begin() + facets.offsets[f], facet.n_vertices, facet.vertices.begin());
      mesh.tagged_facets.push_back(facet);
    }
    return mesh;
  }

  std::string_view bytes_;
  std::string name_;
  std::size_t position_ = 0;
  std::size_t item_start_ = 0;
  int version_ = 0;
  bool binary_ = false;         ///< the file is binary
  bool binary_fields_ = false;  ///< the section being read has reached its binary data
  bool seen_nodes_ = false;
  bool seen_elements_ = false;
  std::size_t elements_position_ = 0;
  std::map<std::pair<std::int64_t, std::int64_t>, std::string> physical_names_;  ///< (dimension, tag)
  std::unordered_map<std::int64_t, std::int64_t> entity_physical_[4];          ///< per dimension
  NodeTags node_tags_;
  std::vector<Point3> nodes_;
  double largest_xy_ = 0, largest_z_ = 0;
  std::size_t largest_z_position_ = 0;
  ElementGroup groups_[4];  ///< by dimension
};

}  // namespace

Mesh read_gmsh_from_memory(std::string_view bytes, const std::string& name) {
  return Reader(bytes, name).read();
}

Mesh read_gmsh(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) throw InputError(cat("mesh file ", path, " is a directory"));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(cat("cannot open mesh file ", path));
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw InputError(cat("cannot read mesh file ", path));
  return read_gmsh_from_memory(bytes, path);
}

int gmsh_type_number(ElementType type) {
  for (const auto& [number, known] : gmsh_element_types)
    if (known == type) return number;
  throw Error(cat("no Gmsh number for element type ", type_name(type)));
}

}  // namespace flowdg
