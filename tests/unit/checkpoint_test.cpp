// HDF5 checkpoints: every bit of the solution and every field comes back; a write replaces the
// old file atomically and leaves nothing else behind; the mesh hash sees a node move by one ulp
// and a swap of two elements; a checkpoint from another run is refused with both values named;
// missing, foreign, truncated and incomplete files are InputErrors that name the path.
#include "flowdg/io/checkpoint.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "flowdg/core/error.hpp"
#include "flowdg/mesh/generators.hpp"
#include "flowdg/mesh/mesh.hpp"

using namespace flowdg;
namespace fs = std::filesystem;

namespace {

/// A fresh directory per test, removed afterwards.
class CheckpointFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() /
                 cat("flowdg_checkpoint_", ::testing::UnitTest::GetInstance()->current_test_info()->name(),
                     "_", ::getpid());
    fs::remove_all(directory_);
    fs::create_directories(directory_);
  }
  void TearDown() override {
    fs::permissions(directory_, fs::perms::owner_all);
    fs::remove_all(directory_);
  }
  std::string file(const std::string& name) const { return (directory_ / name).string(); }
  std::vector<std::string> directory_entries() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(directory_))
      names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  fs::path directory_;
};

/// Longer than HDF5's 64 KiB limit on compact attributes, with quotes and non-ASCII text.
std::string case_text() {
  std::string text = "# Überschallwirbel \"Ringraum\"\n[mesh]\nfile = 'annulus.msh'\n";
  for (int line = 0; line < 2000; ++line)
    text += cat("# padding line ", line, " to outgrow one attribute block\n");
  return text;
}

/// Coefficients are random 64-bit patterns: NaN payloads, infinities, subnormals and -0 included,
/// so any conversion on the way through HDF5 would show.
Checkpoint sample_checkpoint(const Mesh& mesh, int order, std::uint64_t seed) {
  Checkpoint checkpoint;
  checkpoint.case_toml = case_text();
  checkpoint.mesh_source = mesh.source;
  checkpoint.mesh_hash = mesh_hash(mesh);
  checkpoint.n_elements = mesh.n_elements();
  checkpoint.order = order;
  checkpoint.n_variables = 4;
  checkpoint.time = 0.1 * 3;                                     // not the double nearest 0.3
  checkpoint.step = (1LL << 40) + static_cast<long long>(seed);  // beyond 32 bits
  checkpoint.scheme = "ssp_rk3";
  checkpoint.physics = "euler2d";
  std::mt19937_64 random(seed);
  checkpoint.coefficients.resize(
      static_cast<std::size_t>(4 * (order + 1) * (order + 2) / 2 * mesh.n_elements()));
  for (double& coefficient : checkpoint.coefficients) coefficient = std::bit_cast<double>(random());
  return checkpoint;
}

void expect_identical(const Checkpoint& read, const Checkpoint& written) {
  EXPECT_EQ(read.case_toml, written.case_toml);
  EXPECT_EQ(read.mesh_source, written.mesh_source);
  EXPECT_EQ(read.mesh_hash, written.mesh_hash);
  EXPECT_EQ(read.n_elements, written.n_elements);
  EXPECT_EQ(read.order, written.order);
  EXPECT_EQ(read.n_variables, written.n_variables);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(read.time), std::bit_cast<std::uint64_t>(written.time));
  EXPECT_EQ(read.step, written.step);
  EXPECT_EQ(read.scheme, written.scheme);
  EXPECT_EQ(read.physics, written.physics);
  ASSERT_EQ(read.coefficients.size(), written.coefficients.size());
  EXPECT_EQ(std::memcmp(read.coefficients.data(), written.coefficients.data(),
                        written.coefficients.size() * sizeof(double)),
            0);
}

/// Message of the InputError that reading `path` throws, or "" when it reads.
std::string read_error(const std::string& path) {
  try {
    read_checkpoint(path);
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

std::string write_error(const std::string& path, const Checkpoint& checkpoint) {
  try {
    write_checkpoint(path, checkpoint);
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

std::string compatibility_error(const Checkpoint& checkpoint, const Mesh& mesh, int order,
                                const std::string& physics) {
  try {
    check_compatible(checkpoint, mesh, order, physics);
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string hex(std::uint64_t value) {
  char text[19];
  std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(value));
  return text;
}

// Edits with the HDF5 C API, to make valid HDF5 files that flowdg would never write.
void delete_link(const std::string& path, const char* name) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  EXPECT_GE(H5Ldelete(file, name, H5P_DEFAULT), 0);
  EXPECT_GE(H5Fclose(file), 0);
}

/// Replaces attribute /run/name by `count` values (a scalar when count is 1).
void replace_run_attribute(const std::string& path, const char* name, hid_t file_type, hid_t memory_type,
                           const void* values, hsize_t count = 1) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  EXPECT_GE(H5Adelete_by_name(file, "run", name, H5P_DEFAULT), 0);
  const hid_t space = count == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &count, nullptr);
  const hid_t attribute =
      H5Acreate_by_name(file, "run", name, file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  EXPECT_GE(H5Awrite(attribute, memory_type, values), 0);
  EXPECT_GE(H5Aclose(attribute), 0);
  EXPECT_GE(H5Sclose(space), 0);
  EXPECT_GE(H5Fclose(file), 0);
}

void delete_run_attribute(const std::string& path, const char* name) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  EXPECT_GE(H5Adelete_by_name(file, "run", name, H5P_DEFAULT), 0);
  EXPECT_GE(H5Fclose(file), 0);
}

}  // namespace

TEST_F(CheckpointFiles, RoundTripKeepsEveryBitAndField) {
  const Mesh mesh = quarter_annulus();
  const Checkpoint written = sample_checkpoint(mesh, 3, 11);
  const std::string path = file("run.h5");
  write_checkpoint(path, written);
  expect_identical(read_checkpoint(path), written);
}

TEST_F(CheckpointFiles, WriteReplacesAnExistingCheckpointAndLeavesNothingElse) {
  const std::string path = file("run.h5");
  write_checkpoint(path, sample_checkpoint(quarter_annulus(), 3, 1));
  EXPECT_EQ(directory_entries(), std::vector<std::string>{"run.h5"});
  // The leftover of a write that crashed is overwritten and then renamed away.
  write_bytes(path + ".tmp", "half a checkpoint");
  const Checkpoint second = sample_checkpoint(rectangle_triangles(0, 1, 0, 1, 3, 2), 1, 2);
  write_checkpoint(path, second);
  expect_identical(read_checkpoint(path), second);
  EXPECT_EQ(directory_entries(), std::vector<std::string>{"run.h5"});
}

TEST_F(CheckpointFiles, FailedWriteLeavesNoTemporaryFile) {
  // A directory where the checkpoint should go: the temporary file is written, the rename fails.
  const std::string path = file("occupied");
  fs::create_directories(fs::path(path) / "inside");
  const std::string message = write_error(path, sample_checkpoint(quarter_annulus(), 1, 3));
  EXPECT_NE(message.find(cat("cannot write checkpoint '", path, "'")), std::string::npos) << message;
  EXPECT_NE(message.find("cannot rename"), std::string::npos) << message;
  EXPECT_EQ(directory_entries(), std::vector<std::string>{"occupied"});
}

TEST_F(CheckpointFiles, WriteRefusesCoefficientsThatDoNotFitTheSizes) {
  Checkpoint checkpoint = sample_checkpoint(quarter_annulus(), 2, 4);
  checkpoint.coefficients.pop_back();
  const std::string path = file("run.h5");
  EXPECT_EQ(write_error(path, checkpoint),
            cat("cannot write checkpoint '", path,
                "': it has 4319 coefficients, n_variables * n_basis * n_elements = 4320"));
  EXPECT_TRUE(directory_entries().empty());
}

TEST_F(CheckpointFiles, UnwritableLocationIsAnInputError) {
  const Checkpoint checkpoint = sample_checkpoint(quarter_annulus(), 1, 5);
  const std::string regular_file = file("plain");
  write_bytes(regular_file, "text");
  for (const std::string& path : {file("missing_directory/run.h5"), regular_file + "/run.h5"}) {
    const std::string message = write_error(path, checkpoint);
    EXPECT_EQ(message.rfind(cat("cannot write checkpoint '", path, "': cannot create '", path, ".tmp'"), 0),
              0)
        << message;
  }
  EXPECT_EQ(directory_entries(), std::vector<std::string>{"plain"});
}

TEST_F(CheckpointFiles, ReadOnlyDirectoryKeepsTheExistingCheckpoint) {
  const std::string path = file("run.h5");
  const Checkpoint first = sample_checkpoint(quarter_annulus(), 1, 6);
  write_checkpoint(path, first);
  fs::permissions(directory_, fs::perms::owner_read | fs::perms::owner_exec);
  if (::access(directory_.c_str(), W_OK) == 0)
    GTEST_SKIP() << "permissions are not enforced for this user (root)";
  const std::string message = write_error(path, sample_checkpoint(quarter_annulus(), 1, 7));
  EXPECT_EQ(message.rfind(cat("cannot write checkpoint '", path, "': cannot create"), 0), 0) << message;
  expect_identical(read_checkpoint(path), first);
}

TEST_F(CheckpointFiles, MissingForeignAndTruncatedFilesAreNamed) {
  const std::string missing = file("missing.h5");
  EXPECT_EQ(read_error(missing), cat("cannot read checkpoint '", missing, "': no such file"));

  const std::string directory = directory_.string();
  EXPECT_EQ(read_error(directory), cat("cannot read checkpoint '", directory, "': it is a directory"));

  const std::string text = file("case.toml");
  write_bytes(text, "[mesh]\nfile = 'annulus.msh'\n");
  EXPECT_EQ(
      read_error(text).rfind(cat("cannot read checkpoint '", text, "': cannot open it as an HDF5 file"), 0),
      0)
      << read_error(text);

  const std::string whole = file("whole.h5");
  write_checkpoint(whole, sample_checkpoint(quarter_annulus(), 2, 8));
  const std::string bytes = file_bytes(whole);
  ASSERT_GT(bytes.size(), 4096u);
  for (const std::size_t length : {std::size_t{0}, std::size_t{8}, std::size_t{100}, std::size_t{2048},
                                   bytes.size() / 2, bytes.size() - 1}) {
    const std::string truncated = file(cat("truncated_", length, ".h5"));
    write_bytes(truncated, bytes.substr(0, length));
    const std::string message = read_error(truncated);
    EXPECT_EQ(message.rfind(cat("cannot read checkpoint '", truncated, "': "), 0), 0)
        << length << ": " << message;
  }
  const std::string copy = file("copy.h5");
  write_bytes(copy, bytes);
  EXPECT_EQ(read_error(copy), "");
}

TEST_F(CheckpointFiles, IncompleteOrInconsistentFilesAreNamed) {
  const Checkpoint checkpoint = sample_checkpoint(quarter_annulus(), 2, 9);
  const auto edited = [&](const std::string& name) {
    const std::string path = file(name);
    write_checkpoint(path, checkpoint);
    return path;
  };
  const auto expect_error = [](const std::string& path, const std::string& problem) {
    EXPECT_EQ(read_error(path), cat("cannot read checkpoint '", path, "': ", problem));
  };

  const std::string without_coefficients = edited("without_coefficients.h5");
  delete_link(without_coefficients, "/solution/coefficients");
  expect_error(without_coefficients, "missing dataset /solution/coefficients");

  const std::string without_run = edited("without_run.h5");
  delete_link(without_run, "/run");
  expect_error(without_run, "missing group /run");

  for (const char* name : {"format_version", "case_toml", "mesh_source", "mesh_hash", "n_elements", "order",
                           "n_variables", "time", "step", "scheme", "physics"}) {
    const std::string path = edited(cat("without_", name, ".h5"));
    delete_run_attribute(path, name);
    expect_error(path, cat("missing attribute /run/", name));
  }

  const std::string wrong_order = edited("wrong_order.h5");
  const int order = 3;
  replace_run_attribute(wrong_order, "order", H5T_STD_I32LE, H5T_NATIVE_INT, &order);
  expect_error(wrong_order,
               "/solution/coefficients holds 4320 values, n_variables * n_basis * n_elements = 7200");

  const std::string future = edited("future.h5");
  const int version = 2;
  replace_run_attribute(future, "format_version", H5T_STD_I32LE, H5T_NATIVE_INT, &version);
  expect_error(future, "format version 2 is not supported (this flowdg reads version 1)");

  const std::string two_times = edited("two_times.h5");
  const double times[2] = {0.5, 1.5};
  replace_run_attribute(two_times, "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, times, 2);
  expect_error(two_times, "attribute /run/time is not a single value");

  const std::string real_step = edited("real_step.h5");
  const double step = 7.0;
  replace_run_attribute(real_step, "step", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &step);
  expect_error(real_step, "attribute /run/step is not a 64-bit integer");
}

TEST(CheckpointMeshHash, PinnedForAHandBuiltTriangle) {
  // FNV-1a of the little-endian words 3, the nine coordinates' bits, 1, the type 0 and the ids
  // 0 1 2, computed independently (Python struct.pack('<Q')): checkpoints stay restartable
  // across flowdg versions only while this value holds.
  Mesh mesh;
  mesh.nodes = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  const index_t node_ids[3] = {0, 1, 2};
  mesh.add_element(ElementType::triangle3, node_ids);
  EXPECT_EQ(mesh_hash(mesh), 0xb16e6d82cde2c384ull);
}

TEST(CheckpointMeshHash, SeesOneUlpAndElementOrder) {
  const Mesh mesh = quarter_annulus();
  const std::uint64_t hash = mesh_hash(mesh);
  EXPECT_EQ(mesh_hash(quarter_annulus()), hash);
  EXPECT_EQ(mesh_hash(rectangle_triangles(0, 1, 0, 1, 4, 4)),
            mesh_hash(rectangle_triangles(0, 1, 0, 1, 4, 4)));
  EXPECT_NE(mesh_hash(rectangle_triangles(0, 1, 0, 1, 4, 4)), hash);

  for (int coordinate = 0; coordinate < 3; ++coordinate) {
    Mesh moved = mesh;
    double& value = coordinate == 0   ? moved.nodes[7].x
                    : coordinate == 1 ? moved.nodes[7].y
                                      : moved.nodes[7].z;
    value = std::nextafter(value, std::numeric_limits<double>::infinity());
    EXPECT_NE(mesh_hash(moved), hash) << "coordinate " << coordinate;
  }

  Mesh swapped = mesh;
  ASSERT_EQ(swapped.element_n_nodes(0), 3);
  ASSERT_EQ(swapped.element_n_nodes(1), 3);
  std::swap_ranges(swapped.element_nodes.begin(), swapped.element_nodes.begin() + 3,
                   swapped.element_nodes.begin() + 3);
  EXPECT_NE(mesh_hash(swapped), hash);

  Mesh rotated = mesh;  // the same triangle numbered from another vertex orients its basis differently
  std::rotate(rotated.element_nodes.begin(), rotated.element_nodes.begin() + 1,
              rotated.element_nodes.begin() + 3);
  EXPECT_NE(mesh_hash(rotated), hash);
}

TEST(CheckpointCompatibility, NamesEachMismatchWithBothValues) {
  const Mesh mesh = quarter_annulus();
  const Checkpoint checkpoint = sample_checkpoint(mesh, 2, 10);
  const std::string prefix = "the checkpoint does not fit this run (checkpoint vs run): ";
  EXPECT_EQ(compatibility_error(checkpoint, mesh, 2, "euler2d"), "");
  EXPECT_EQ(compatibility_error(checkpoint, mesh, 3, "euler2d"), prefix + "order 2 vs 3");
  EXPECT_EQ(compatibility_error(checkpoint, mesh, 2, "navier_stokes2d"),
            prefix + "physics 'euler2d' vs 'navier_stokes2d'");

  Mesh moved = mesh;
  moved.nodes[7].x = std::nextafter(moved.nodes[7].x, 2.0);
  EXPECT_EQ(compatibility_error(checkpoint, moved, 2, "euler2d"),
            cat(prefix, "mesh hash ", hex(checkpoint.mesh_hash), " ('", mesh.source, "') vs ",
                hex(mesh_hash(moved)), " ('", moved.source, "')"));

  const Mesh coarser = quarter_annulus(1.0, 1.384, 4, 9);
  const std::string message = compatibility_error(checkpoint, coarser, 1, "euler2d");
  EXPECT_EQ(message.rfind(prefix + "element count 180 vs 72; mesh hash ", 0), 0) << message;
  EXPECT_NE(message.find("; order 2 vs 1"), std::string::npos) << message;
}
