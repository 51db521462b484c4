#pragma once
// HDF5 checkpoints of the modal DG solution, so that a run restarts bit for bit. One file holds
//   /solution/coefficients  double, 1-D, the solver's layout [(variable * n_basis + j) * n_elements
//                           + element], copied byte for byte (the layout is repeated in its
//                           "layout" attribute)
//   /run                    attributes: format_version, flowdg_version, time, step, order,
//                           n_elements, n_variables, n_basis_total (optional: absent means all
//                           triangles), scheme, physics, mesh_source, mesh_hash,
//                           case_toml (the case file as run, so a restart needs nothing else)
//   /solution/accumulators  optional, double, 1-D: running totals a restart continues
// physics "space_time_sipg" (issue 19): one scalar, n_basis_total unknowns of a polytopic mesh (the
// agglomeration's hash in mesh_hash), step = slabs done, time = the last slab's end.
// A write goes to PATH.tmp and is renamed over PATH, so a crash never damages the last good
// checkpoint. Any failure, and any file that is not a complete checkpoint, is an InputError
// naming the path.
#include <cstdint>
#include <string>
#include <vector>

#include "flowdg/core/hd.hpp"

namespace flowdg {

struct Mesh;

struct Checkpoint {
  std::string case_toml;
  std::string mesh_source;
  std::uint64_t mesh_hash = 0;
  index_t n_elements = 0;
  int order = 0;
  int n_variables = 0;
  double time = 0;
  long long step = 0;
  std::string scheme;
  std::string physics;
  /// Basis functions summed over the elements (the DG core's groups may mix shapes); 0: every
  /// element a triangle (files written before the attribute existed).
  index_t n_basis_total = 0;
  std::vector<double> coefficients;
  /// Optional running totals a restart continues (a space-time run's error sums), /solution/accumulators.
  std::vector<double> accumulators;
};

/// FNV-1a over the node coordinates' bits, the element types and the element node ids: any moved
/// node or reordered element changes it, so coefficients are only restarted on the mesh whose
/// element numbering they follow. Boundary tags are left out: they do not move coefficients.
std::uint64_t mesh_hash(const Mesh& mesh);

void write_checkpoint(const std::string& path, const Checkpoint& checkpoint);
Checkpoint read_checkpoint(const std::string& path);

/// InputError naming every field (physics, element count, mesh hash, order) on which the
/// checkpoint and this run differ, with both values.
void check_compatible(const Checkpoint& checkpoint, const Mesh& mesh, int order, const std::string& physics);
/// The same against a mesh known by its element count, hash and source (a distributed run's whole mesh).
void check_compatible(const Checkpoint& checkpoint, index_t n_elements, std::uint64_t hash, const std::string& source, int order,
                      const std::string& physics);

}  // namespace flowdg
