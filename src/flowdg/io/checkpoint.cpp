#include "flowdg/io/checkpoint.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <iomanip>
#include <limits>
#include <sstream>
#include <system_error>
#include <utility>

#include "flowdg/core/error.hpp"
#include "flowdg/element/basis.hpp"
#include "flowdg/mesh/mesh.hpp"
#include "flowdg/physics/euler.hpp"

namespace flowdg {
namespace {

constexpr int format_version = 1;
// The project's version, as in project(VERSION) of the top-level CMakeLists.txt and --version.
constexpr const char* flowdg_version = "0.1.0";
constexpr const char* coefficient_layout = "[(variable * n_basis + j) * n_elements + element]";

std::string hex(std::uint64_t value) {
  std::ostringstream out;
  out << "0x" << std::hex << std::setw(16) << std::setfill('0') << value;
  return out.str();
}

/// Failures are reported as InputErrors by the caller; HDF5's default handler would also print
/// its whole error stack to stderr.
void silence_hdf5() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

/// The innermost entry of HDF5's error stack, which says what actually went wrong (for example
/// "truncated file: eof = ..."). Read before the next HDF5 call clears the stack.
std::string hdf5_reason() {
  std::string reason;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned depth, const H5E_error2_t* error, void* data) -> herr_t {
        if (depth == 0 && error->desc != nullptr) *static_cast<std::string*>(data) = error->desc;
        return 0;
      },
      &reason);
  // Some descriptions carry a ctime() stamp and its newline: messages are one line.
  return reason.substr(0, reason.find('\n'));
}

/// Clears this thread's HDF5 error stack when a read or write ends, however it ends. The stack
/// holds references to HDF5's error classes; a thread-safe libhdf5 keeps one stack per thread and
/// frees it at the thread's end without releasing them, so a failure on the checkpoint writer's
/// thread left on its stack makes the process print "HDF5: infinite loop closing library" at exit.
class ErrorStackCleaner {
 public:
  ErrorStackCleaner() = default;
  ErrorStackCleaner(const ErrorStackCleaner&) = delete;
  ErrorStackCleaner& operator=(const ErrorStackCleaner&) = delete;
  ~ErrorStackCleaner() { H5Eclear2(H5E_DEFAULT); }
};

/// Owns an HDF5 identifier and closes it with the matching H5?close on every path.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close_function)(hid_t)) : id_(id), close_function_(close_function) {}
  Handle(Handle&& other) noexcept
      : id_(std::exchange(other.id_, H5I_INVALID_HID)), close_function_(other.close_function_) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle& operator=(Handle&&) = delete;
  ~Handle() {
    if (id_ >= 0) close_function_(id_);
  }
  hid_t id() const { return id_; }
  /// Closes now and returns the status, for a file whose final flush may fail (disk full).
  herr_t close() { return close_function_(std::exchange(id_, H5I_INVALID_HID)); }

 private:
  hid_t id_;
  herr_t (*close_function_)(hid_t);
};

/// Turns failures into InputErrors that start with "cannot read/write checkpoint 'PATH': ".
class FileErrors {
 public:
  explicit FileErrors(std::string prefix) : prefix_(std::move(prefix)) {}
  [[noreturn]] void fail(const std::string& problem) const { throw InputError(prefix_ + problem); }
  [[noreturn]] void fail_hdf5(const std::string& step) const {
    const std::string reason = hdf5_reason();
    fail(reason.empty() ? cat("cannot ", step) : cat("cannot ", step, " (", reason, ")"));
  }
  void check(herr_t status, const std::string& step) const {
    if (status < 0) fail_hdf5(step);
  }
  Handle own(hid_t id, herr_t (*close_function)(hid_t), const std::string& step) const {
    if (id < 0) fail_hdf5(step);
    return Handle(id, close_function);
  }

 private:
  std::string prefix_;
};

/// How a number is stored: little-endian in the file whatever the host.
struct NumberType {
  hid_t file;
  hid_t memory;
  const char* description;
};
NumberType number_type(int) { return {H5T_STD_I32LE, H5T_NATIVE_INT, "a 32-bit integer"}; }
NumberType number_type(std::int64_t) { return {H5T_STD_I64LE, H5T_NATIVE_INT64, "a 64-bit integer"}; }
NumberType number_type(std::uint64_t) {
  return {H5T_STD_U64LE, H5T_NATIVE_UINT64, "a 64-bit unsigned integer"};
}
NumberType number_type(double) { return {H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, "a 64-bit float"}; }

/// Variable-length so that a string of any length (the case file) fits an attribute.
Handle string_type(const FileErrors& errors) {
  Handle type = errors.own(H5Tcopy(H5T_C_S1), H5Tclose, "make the string type");
  errors.check(H5Tset_size(type.id(), H5T_VARIABLE), "make the string type");
  errors.check(H5Tset_cset(type.id(), H5T_CSET_UTF8), "make the string type");
  return type;
}

/// Scalar attributes on one HDF5 object.
class AttributeWriter {
 public:
  AttributeWriter(const FileErrors& errors, hid_t object) : errors_(errors), object_(object) {}
  template <class T>
  void number(const char* name, T value) const {
    const NumberType type = number_type(value);
    write(name, type.file, type.memory, &value);
  }
  void text(const char* name, const std::string& value) const {
    const Handle type = string_type(errors_);
    const char* characters = value.c_str();
    write(name, type.id(), type.id(), &characters);
  }

 private:
  void write(const char* name, hid_t file_type, hid_t memory_type, const void* value) const {
    const Handle space = errors_.own(H5Screate(H5S_SCALAR), H5Sclose, "make a scalar dataspace");
    const Handle attribute =
        errors_.own(H5Acreate2(object_, name, file_type, space.id(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                    cat("create attribute '", name, "'"));
    errors_.check(H5Awrite(attribute.id(), memory_type, value), cat("write attribute '", name, "'"));
  }
  const FileErrors& errors_;
  hid_t object_;
};

/// Scalar attributes of one HDF5 object, each required to exist with the type it is written with.
class AttributeReader {
 public:
  AttributeReader(const FileErrors& errors, hid_t object, std::string object_name)
      : errors_(errors), object_(object), object_name_(std::move(object_name)) {}
  template <class T>
  T number(const char* name) const {
    T value{};
    const NumberType type = number_type(value);
    const Handle attribute = open(name);
    const Handle stored_type =
        errors_.own(H5Aget_type(attribute.id()), H5Tclose, cat("read the type of ", where(name)));
    if (H5Tequal(stored_type.id(), type.file) <= 0)
      errors_.fail(cat(where(name), " is not ", type.description));
    errors_.check(H5Aread(attribute.id(), type.memory, &value), cat("read ", where(name)));
    return value;
  }
  std::string text(const char* name) const {
    const Handle attribute = open(name);
    const Handle stored_type =
        errors_.own(H5Aget_type(attribute.id()), H5Tclose, cat("read the type of ", where(name)));
    if (H5Tget_class(stored_type.id()) != H5T_STRING || H5Tis_variable_str(stored_type.id()) <= 0)
      errors_.fail(cat(where(name), " is not a variable-length string"));
    const Handle type = string_type(errors_);
    char* characters = nullptr;
    errors_.check(H5Aread(attribute.id(), type.id(), &characters), cat("read ", where(name)));
    std::string value = characters != nullptr ? characters : "";
    H5free_memory(characters);
    return value;
  }

 private:
  std::string where(const char* name) const { return cat("attribute ", object_name_, "/", name); }

 public:
  bool has(const char* name) const {
    const htri_t exists = H5Aexists(object_, name);
    if (exists < 0) errors_.fail_hdf5(cat("look for ", where(name)));
    return exists > 0;
  }

 private:
  Handle open(const char* name) const {
    const htri_t exists = H5Aexists(object_, name);
    if (exists < 0) errors_.fail_hdf5(cat("look for ", where(name)));
    if (exists == 0) errors_.fail(cat("missing ", where(name)));
    Handle attribute = errors_.own(H5Aopen(object_, name, H5P_DEFAULT), H5Aclose, cat("open ", where(name)));
    // A scalar is read into one value: an array attribute would overrun it.
    const Handle space =
        errors_.own(H5Aget_space(attribute.id()), H5Sclose, cat("read the shape of ", where(name)));
    if (H5Sget_simple_extent_npoints(space.id()) != 1)
      errors_.fail(cat(where(name), " is not a single value"));
    return attribute;
  }
  const FileErrors& errors_;
  hid_t object_;
  std::string object_name_;
};

/// Opens parent/name (a group or a dataset), saying which one is missing if it is.
Handle open_link(const FileErrors& errors, hid_t parent, const char* name, const std::string& full_name,
                 hid_t (*open_function)(hid_t, const char*, hid_t), herr_t (*close_function)(hid_t)) {
  const htri_t exists = H5Lexists(parent, name, H5P_DEFAULT);
  if (exists < 0) errors.fail_hdf5(cat("look for ", full_name));
  if (exists == 0) errors.fail(cat("missing ", full_name));
  return errors.own(open_function(parent, name, H5P_DEFAULT), close_function, cat("open ", full_name));
}

/// The number of coefficients a solution of these sizes holds; an InputError when the sizes are
/// not those of a solution this flowdg can run.
std::size_t coefficient_count(const Checkpoint& checkpoint, const FileErrors& errors) {
  const std::string& physics = checkpoint.physics;
  if (physics == "space_time_sipg") {
    if (checkpoint.n_variables != 1) errors.fail(cat("n_variables is ", checkpoint.n_variables, ", space_time_sipg has 1"));
    if (checkpoint.n_elements <= 0 || checkpoint.n_basis_total < checkpoint.n_elements)
      errors.fail(cat("n_basis_total ", checkpoint.n_basis_total, " does not fit ", checkpoint.n_elements, " elements"));
    return static_cast<std::size_t>(checkpoint.n_basis_total);
  }
  const int variables = physics == "euler2d" || physics == "navier_stokes2d"   ? 4
                        : physics == "euler3d" || physics == "navier_stokes3d" ? 5
                                                                               : 0;
  if (variables == 0)
    errors.fail(cat("unknown physics '", physics, "' (known: euler2d, euler3d, navier_stokes2d, navier_stokes3d)"));
  if (checkpoint.n_variables != variables)
    errors.fail(cat("n_variables is ", checkpoint.n_variables, ", ", checkpoint.physics, " has ", variables));
  if (checkpoint.order < 0 || checkpoint.order > max_basis_order)
    errors.fail(cat("order ", checkpoint.order, " is outside 0..", max_basis_order));
  // Without n_basis_total every element is a triangle (the files of the 2D triangle solver).
  const index_t smallest = n_basis(Shape::triangle, checkpoint.order), largest = n_basis(Shape::hexahedron, checkpoint.order);
  if (checkpoint.n_elements <= 0 || checkpoint.n_elements > std::numeric_limits<index_t>::max() / (variables * largest))
    errors.fail(cat("n_elements ", checkpoint.n_elements, " is not a valid element count"));
  const index_t basis = checkpoint.n_basis_total > 0 ? checkpoint.n_basis_total : smallest * checkpoint.n_elements;
  if (basis < smallest * checkpoint.n_elements ||  // triangles have the fewest basis functions
      basis > largest * checkpoint.n_elements)
    errors.fail(cat("n_basis_total ", basis, " does not fit ", checkpoint.n_elements, " elements of order ", checkpoint.order));
  return static_cast<std::size_t>(index_t{variables} * basis);
}

void write_file(const std::string& path, const Checkpoint& checkpoint, const FileErrors& errors) {
  Handle file = errors.own(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose,
                           cat("create '", path, "'"));
  {
    const Handle run_group = errors.own(H5Gcreate2(file.id(), "run", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                                        H5Gclose, "create the group /run");
    const AttributeWriter run(errors, run_group.id());
    run.number("format_version", format_version);
    run.text("flowdg_version", flowdg_version);
    run.number("time", checkpoint.time);
    run.number<std::int64_t>("step", checkpoint.step);
    run.number("order", checkpoint.order);
    run.number<std::int64_t>("n_elements", checkpoint.n_elements);
    run.number("n_variables", checkpoint.n_variables);
    if (checkpoint.n_basis_total > 0) run.number<std::int64_t>("n_basis_total", checkpoint.n_basis_total);
    run.text("scheme", checkpoint.scheme);
    run.text("physics", checkpoint.physics);
    run.text("mesh_source", checkpoint.mesh_source);
    run.number("mesh_hash", checkpoint.mesh_hash);
    run.text("case_toml", checkpoint.case_toml);

    const Handle solution =
        errors.own(H5Gcreate2(file.id(), "solution", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
                   "create the group /solution");
    const hsize_t size = checkpoint.coefficients.size();
    const Handle space =
        errors.own(H5Screate_simple(1, &size, nullptr), H5Sclose, "make the coefficients' dataspace");
    const Handle dataset = errors.own(H5Dcreate2(solution.id(), "coefficients", H5T_IEEE_F64LE, space.id(),
                                                 H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                                      H5Dclose, "create /solution/coefficients");
    errors.check(H5Dwrite(dataset.id(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                          checkpoint.coefficients.data()),
                 "write /solution/coefficients");
    AttributeWriter(errors, dataset.id()).text("layout", coefficient_layout);
    if (!checkpoint.accumulators.empty()) {
      const hsize_t n = checkpoint.accumulators.size();
      const Handle a_space = errors.own(H5Screate_simple(1, &n, nullptr), H5Sclose, "make the accumulators' dataspace");
      const Handle a_set = errors.own(H5Dcreate2(solution.id(), "accumulators", H5T_IEEE_F64LE, a_space.id(), H5P_DEFAULT,
                                                 H5P_DEFAULT, H5P_DEFAULT),
                                      H5Dclose, "create /solution/accumulators");
      errors.check(H5Dwrite(a_set.id(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, checkpoint.accumulators.data()),
                   "write /solution/accumulators");
    }
  }
  errors.check(file.close(), cat("close '", path, "'"));
}

/// Forces a file's (or a directory's) contents to disk: without it a power loss after the rename
/// could leave the new name pointing at blocks that were never written.
void sync_to_disk(const std::string& path, const FileErrors& errors) {
  const int descriptor = ::open(path.c_str(), O_RDONLY);
  const bool synced = descriptor >= 0 && ::fsync(descriptor) == 0;
  const int error_number = errno;
  if (descriptor >= 0) ::close(descriptor);
  if (!synced) errors.fail(cat("cannot sync '", path, "' to disk: ", std::strerror(error_number)));
}

}  // namespace

std::uint64_t mesh_hash(const Mesh& mesh) {
  // FNV-1a, fed each 64-bit word from its least significant byte up, so that every host,
  // whatever its byte order, computes the same hash.
  std::uint64_t hash = 14695981039346656037ull;
  const auto add = [&hash](std::uint64_t word) {
    for (int byte = 0; byte < 8; ++byte) {
      hash ^= (word >> (8 * byte)) & 0xffu;
      hash *= 1099511628211ull;
    }
  };
  // The counts keep the node and element sections apart.
  add(mesh.nodes.size());
  for (const Point3& node : mesh.nodes)
    for (const double coordinate : {node.x, node.y, node.z}) add(std::bit_cast<std::uint64_t>(coordinate));
  add(static_cast<std::uint64_t>(mesh.n_elements()));
  for (index_t element = 0; element < mesh.n_elements(); ++element) {
    add(static_cast<std::uint64_t>(mesh.element_types[element]));
    const index_t* node_ids = mesh.element_node_ids(element);
    for (int node = 0; node < mesh.element_n_nodes(element); ++node)
      add(static_cast<std::uint64_t>(node_ids[node]));
  }
  return hash;
}

/// Every HDF5 call of the process goes through this lock (the background checkpoint writer's and
/// the main thread's reads): a libhdf5 built without thread safety (HDF5's default; Debian's
/// 1.10 serial build happens to enable it) corrupts its global state under concurrent calls, and a
/// thread-safe one serialises every call on its own global lock anyway, so this costs nothing.
static std::mutex& hdf5_mutex() {
  static std::mutex mutex;
  return mutex;
}

void write_checkpoint(const std::string& path, const Checkpoint& checkpoint) {
  const std::lock_guard lock(hdf5_mutex());
  const ErrorStackCleaner clean_on_return;  // declared before every Handle: runs after they close
  silence_hdf5();
  const FileErrors errors(cat("cannot write checkpoint '", path, "': "));
  const std::size_t count = coefficient_count(checkpoint, errors);
  if (checkpoint.coefficients.size() != count)
    errors.fail(cat("it has ", checkpoint.coefficients.size(),
                    " coefficients, n_variables * n_basis * n_elements = ", count));

  const std::string temporary = path + ".tmp";
  try {
    write_file(temporary, checkpoint, errors);
    sync_to_disk(temporary, errors);
    std::error_code error;
    std::filesystem::rename(temporary, path, error);
    if (error) errors.fail(cat("cannot rename '", temporary, "' to it: ", error.message()));
    const std::filesystem::path directory = std::filesystem::path(path).parent_path();
    sync_to_disk(directory.empty() ? "." : directory.string(), errors);
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw;
  }
}

Checkpoint read_checkpoint(const std::string& path) {
  const std::lock_guard lock(hdf5_mutex());
  const ErrorStackCleaner clean_on_return;  // declared before every Handle: runs after they close
  silence_hdf5();
  const FileErrors errors(cat("cannot read checkpoint '", path, "': "));
  std::error_code error;
  if (!std::filesystem::exists(path, error)) errors.fail("no such file");
  if (std::filesystem::is_directory(path, error)) errors.fail("it is a directory");
  const Handle file =
      errors.own(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, "open it as an HDF5 file");

  const Handle run_group = open_link(errors, file.id(), "run", "group /run", H5Gopen2, H5Gclose);
  const AttributeReader run(errors, run_group.id(), "/run");
  const int version = run.number<int>("format_version");
  if (version != format_version)
    errors.fail(cat("format version ", version, " is not supported (this flowdg reads version ",
                    format_version, ")"));
  Checkpoint checkpoint;
  checkpoint.case_toml = run.text("case_toml");
  checkpoint.mesh_source = run.text("mesh_source");
  checkpoint.mesh_hash = run.number<std::uint64_t>("mesh_hash");
  checkpoint.n_elements = run.number<std::int64_t>("n_elements");
  checkpoint.order = run.number<int>("order");
  checkpoint.n_variables = run.number<int>("n_variables");
  checkpoint.time = run.number<double>("time");
  checkpoint.step = run.number<std::int64_t>("step");
  checkpoint.scheme = run.text("scheme");
  checkpoint.physics = run.text("physics");
  if (run.has("n_basis_total")) checkpoint.n_basis_total = run.number<std::int64_t>("n_basis_total");
  const std::size_t count = coefficient_count(checkpoint, errors);

  const Handle solution = open_link(errors, file.id(), "solution", "group /solution", H5Gopen2, H5Gclose);
  const Handle dataset =
      open_link(errors, solution.id(), "coefficients", "dataset /solution/coefficients", H5Dopen2, H5Dclose);
  const Handle type =
      errors.own(H5Dget_type(dataset.id()), H5Tclose, "read the type of /solution/coefficients");
  if (H5Tequal(type.id(), H5T_IEEE_F64LE) <= 0)
    errors.fail("/solution/coefficients is not 64-bit floating point");
  const Handle space =
      errors.own(H5Dget_space(dataset.id()), H5Sclose, "read the shape of /solution/coefficients");
  hsize_t size = 0;
  if (H5Sget_simple_extent_ndims(space.id()) != 1 ||
      H5Sget_simple_extent_dims(space.id(), &size, nullptr) != 1)
    errors.fail("/solution/coefficients is not a 1-D array");
  if (size != count)
    errors.fail(
        cat("/solution/coefficients holds ", size, " values, n_variables * n_basis * n_elements = ", count));
  checkpoint.coefficients.resize(count);
  errors.check(
      H5Dread(dataset.id(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, checkpoint.coefficients.data()),
      "read /solution/coefficients");
  if (H5Lexists(solution.id(), "accumulators", H5P_DEFAULT) > 0) {
    const Handle a_set = open_link(errors, solution.id(), "accumulators", "dataset /solution/accumulators", H5Dopen2, H5Dclose);
    const Handle a_space = errors.own(H5Dget_space(a_set.id()), H5Sclose, "read the shape of /solution/accumulators");
    hsize_t n = 0;
    if (H5Sget_simple_extent_ndims(a_space.id()) != 1 || H5Sget_simple_extent_dims(a_space.id(), &n, nullptr) != 1 || n > 1024)
      errors.fail("/solution/accumulators is not a short 1-D array");
    checkpoint.accumulators.resize(n);
    errors.check(H5Dread(a_set.id(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, checkpoint.accumulators.data()),
                 "read /solution/accumulators");
  }
  return checkpoint;
}

void check_compatible(const Checkpoint& checkpoint, const Mesh& mesh, int order, const std::string& physics) {
  check_compatible(checkpoint, mesh.n_elements(), mesh_hash(mesh), mesh.source, order, physics);
}

void check_compatible(const Checkpoint& checkpoint, index_t n_elements, std::uint64_t hash, const std::string& source, int order,
                      const std::string& physics) {
  std::string differences;
  const auto differ = [&differences](const std::string& difference) {
    differences += (differences.empty() ? "" : "; ") + difference;
  };
  if (checkpoint.physics != physics) differ(cat("physics '", checkpoint.physics, "' vs '", physics, "'"));
  if (checkpoint.n_elements != n_elements) differ(cat("element count ", checkpoint.n_elements, " vs ", n_elements));
  if (checkpoint.mesh_hash != hash)
    differ(cat("mesh hash ", hex(checkpoint.mesh_hash), " ('", checkpoint.mesh_source, "') vs ", hex(hash), " ('", source, "')"));
  if (checkpoint.order != order) differ(cat("order ", checkpoint.order, " vs ", order));
  if (!differences.empty())
    throw InputError(cat("the checkpoint does not fit this run (checkpoint vs run): ", differences));
}

}  // namespace flowdg
