#pragma once
// Distributed runs (issue 17): a case split over the ranks of a Communicator, each rank running the
// DG operator on its part of the mesh (mesh/partition.hpp: its elements and a ghost layer, the halo
// exchanged after every stage by the operator), and what the run loop needs on top: the whole
// mesh's identity for checkpoints, the checkpoint layout of the whole mesh (GlobalLayout: a
// checkpoint written on N ranks is the file one rank writes, so a run continues on any rank count),
// and the wall samples of every rank for the forces.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "flowdg/cases/case.hpp"
#include "flowdg/mesh/partition.hpp"
#include "flowdg/parallel/communicator.hpp"

namespace flowdg {

struct Parallel {
  std::shared_ptr<const Communicator> communicator;
  std::vector<index_t> global_element;  ///< per element of the part: its number in the whole mesh
  index_t n_owned = 0;                  ///< the part's first n_owned elements are the rank's own
  index_t global_elements = 0;          ///< elements of the whole mesh
  std::uint64_t mesh_hash = 0;          ///< the whole mesh's (io/checkpoint.hpp: mesh_hash)
  std::string mesh_source;              ///< the whole mesh's source
  GhostLayers layers{};
  std::string summary;                  ///< "4 ranks, METIS k-way: imbalance 1.02, 310 cut faces; ghost layers 1 face ring"
  /// A partitioned mesh's directory: the periodic pairs its parts were joined with (its manifest),
  /// which the case's periodic boundaries must be.
  std::vector<PeriodicPair> periodic_joined;
  int rank() const { return communicator->rank(); }
  int size() const { return communicator->size(); }
  bool root() const { return communicator->rank() == 0; }
};

/// Whether a case runs on one rank or is this run's root rank (the one that prints and writes the
/// run's own files).
inline bool is_root(const Case& problem) { return problem.parallel == nullptr || problem.parallel->root(); }

/// Splits a loaded case (the whole mesh on every rank) over the communicator's ranks: rank 0
/// partitions the mesh with METIS (element costs at the case's order) and broadcasts the
/// assignment; each rank keeps its part with the ghost layer the case's options need
/// (dg::required_ghost_layers), whose outer faces get an extrapolating boundary condition (their
/// values are overwritten every stage). One rank: the case is left as it is. InputError on every
/// rank: more ranks than elements, no METIS, a periodic mesh.
/// A case whose mesh came from a partitioned mesh's directory (load_case) is left as it is.
void distribute_case(Case& problem, std::shared_ptr<const Communicator> communicator, int seed = 1);

/// Makes a part the case's mesh (distribute_case; load_case for a partitioned mesh's directory): the
/// halo plan, the ghost faces' condition, the connectivity oriented as the whole mesh's, the whole
/// mesh's curved orders (collective), problem.parallel. `how`: the partition's description.
void adopt_part(Case& problem, MeshPart held, std::shared_ptr<const Communicator> communicator, index_t global_elements,
                std::uint64_t hash, const std::string& source, const std::string& how);

/// Checkpoints in the whole mesh's numbering: the layout one rank's operator has on the whole mesh
/// (element groups by (shape, geometry kind) in that order, each group's elements by ascending mesh
/// number, [(variable * n_basis + j) * group size + e]), whatever the rank count. Built once per
/// operator (collective: every rank's owned elements and their groups are gathered).
class GlobalLayout {
 public:
  GlobalLayout(const Case& problem, const dg::Operator& op);
  /// The whole state on the root rank (empty elsewhere) from every rank's coefficients()
  /// (collective); order: the coefficients' order (their basis sizes).
  std::vector<double> gather(const std::vector<double>& local, int order) const;
  /// The part's coefficients (coefficients()' layout at `order`, ghosts included) from the whole state.
  std::vector<double> scatter(const std::vector<double>& global, int order) const;

 private:
  struct Local {
    int key = 0;          ///< shape * 2 + geometry kind
    index_t index = 0;    ///< position in the whole mesh's group of its key
  };
  const Case* problem_;
  const dg::Operator* op_;
  std::vector<Local> local_;                   ///< per element of the part
  std::vector<index_t> count_;                 ///< per key: the whole mesh's elements
  std::vector<long long> all_;                 ///< root: every rank's owned elements, (global << 4) | key, rank after rank
  std::vector<index_t> index_of_;              ///< root: per whole-mesh element its index in its key's group
  std::size_t offset(int key, int order, int n_variables) const;  ///< a key's first value in the whole layout
};

/// Every rank's wall samples on the root rank, element numbers in the whole mesh (collective;
/// empty elsewhere).
dg::WallSamples gather_wall_samples(const Case& problem, const dg::WallSamples& samples);

}  // namespace flowdg
