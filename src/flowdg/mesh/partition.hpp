#pragma once
// Partitioning a mesh into parts for distributed runs (issue 17): METIS's k-way partitioning of the
// element dual graph (elements joined through their interior faces, periodic joins included), each
// element weighted by its cost, the parts contiguous where the graph allows. METIS is an optional
// component (Debian's libmetis-dev): without it, partition_mesh refuses with a message saying what
// to install.
#include <cstdint>
#include <string>
#include <vector>

#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/halo.hpp"
#include "flowdg/mesh/mesh.hpp"

namespace flowdg {

struct PartitionOptions {
  int parts = 1;
  /// Per element (mesh order): its relative cost; empty: element_costs(mesh, order).
  std::vector<double> weights;
  int order = 1;           ///< the solver's order, for the default weights
  int seed = 1;            ///< METIS's random seed: the same seed, the same partition
  bool contiguous = true;  ///< ask METIS for connected parts (dropped if the dual graph is not connected)
};

struct Partition {
  std::vector<int> part;          ///< per element (mesh order): its part, 0..parts-1
  std::vector<double> load;       ///< per part: the sum of its elements' weights
  std::vector<index_t> elements;  ///< per part: its number of elements
  index_t cut_faces = 0;          ///< interior faces whose two elements are in different parts
  double imbalance = 1;           ///< the largest load over the mean load
  bool contiguous = true;         ///< whether every part is connected through interior faces
};

/// Whether this build has METIS.
bool metis_available();

/// METIS k-way partition of a graph (CSR: vertex v's neighbours are neighbours[start[v]..start[v+1]))
/// with positive vertex weights, connected parts where the graph allows; all in part 0 when parts =
/// 1. InputError: parts < 1 or above the vertex count, bad weights, no METIS. `what` names the graph.
std::vector<int> partition_graph(const std::vector<index_t>& start, const std::vector<index_t>& neighbours,
                                 const std::vector<double>& weights, int parts, int seed, bool contiguous, const std::string& what);

/// Each element's cost for the partitioner: its basis size times its quadrature points (volume rule
/// of the solver's order and the element's geometric order, plus its faces' points): the work of
/// the element and face kernels, so a curved or hexahedral element weighs what it costs.
std::vector<double> element_costs(const Mesh& mesh, int order);

/// METIS k-way partition (or all in part 0 when parts = 1). InputError: parts < 1 or more parts than
/// elements, weights of the wrong size or not positive, no METIS in this build.
Partition partition_mesh(const Mesh& mesh, const Connectivity& connectivity, const PartitionOptions& options);

/// The statistics of a given assignment (load, cut faces, imbalance, contiguity).
Partition partition_statistics(const Mesh& mesh, const Connectivity& connectivity, std::vector<int> part, int parts,
                               const std::vector<double>& weights);

/// The boundary name of the faces around a part's ghost layer (extract_part).
inline constexpr const char* ghost_boundary_name = "partition-ghost";
/// The boundary name under which a part holds both faces of a periodic join of the whole mesh until
/// join_periodic makes them one interior face again.
inline constexpr const char* periodic_boundary_name = "partition-periodic";


/// One part of a partitioned mesh as its rank holds it: its own elements first — those that other
/// parts hold as ghosts, then the others, each in the mesh's order — then its ghost layer (GhostLayers: other parts' elements, by their number in the whole
/// mesh), with the nodes they use renumbered in that order. Tagged facets: every held element's
/// faces on the whole mesh's boundary keep their tags (a ghost's update is then the same as its
/// owner's wherever its own neighbours are held), and the faces between a ghost and an element
/// that is not held (the layer's outside) are tagged ghost_boundary_name. build_connectivity on the
/// part then gives each partition face as an interior face between an owned and a ghost element,
/// oriented as the whole mesh's is.
struct MeshPart {
  Mesh mesh;
  index_t n_owned = 0;
  GhostLayers layers{};
  std::vector<index_t> global_element;  ///< per local element: its number in the whole mesh
  std::vector<int> owner;               ///< per local element: its part (the part's own for the first n_owned)
  /// The whole mesh's periodic joins with both elements held (local numbers; sides and orientation
  /// as the whole mesh has them): their two faces are tagged periodic_boundary_name in `mesh`.
  std::vector<Face> periodic_joins;
};

/// The part's connectivity with its periodic joins (MeshPart::periodic_joins) made interior faces
/// again, in place of the faces tagged periodic_boundary_name (build_connectivity's output).
void join_periodic(const MeshPart& held, Connectivity& connectivity);

/// Part k of `part` (one entry per element). Periodic joins count as face neighbours (and, for
/// vertex rings, as neighbours too: a ring holds the elements across a periodic boundary). InputError:
/// k out of range, a depth below 1, a mesh that already has a boundary named ghost_boundary_name or
/// periodic_boundary_name.
MeshPart extract_part(const Mesh& mesh, const Connectivity& connectivity, const std::vector<int>& part, int k,
                      const GhostLayers& layers = {});

/// The part's connectivity with every interior face oriented as the whole mesh's is: its minus side
/// the element of the lower number in the whole mesh (build_connectivity's rule), so that each face
/// flux is computed with the same arguments as on one rank and a distributed run gives the same
/// bits. build_connectivity on the part puts the owned element on the minus side of every partition
/// face (owned elements come first); this swaps the sides where the ghost's number is lower.
/// Periodic joins (join_periodic) keep the whole mesh's sides already and are left alone.
void orient_as_whole_mesh(const MeshPart& held, Connectivity& connectivity);


/// The halo plan of a part, from the part alone: the owned elements within the layer's depth of a
/// neighbour's ghosts (through the part's own faces or vertices) are the ones in that neighbour's
/// layer, since every element on such a path is held here. No communication needed.
HaloPlan make_halo_plan(const MeshPart& held);

/// A periodic pair of boundaries as a case joins them ([boundary.NAME] type = "periodic"): `name`
/// onto `partner` by `translation`; partitioned meshes record the pairs they were joined with.
struct PeriodicPair {
  std::string name, partner;
  Point3 translation;
};

/// A partitioned mesh on disk, so that each rank reads only its part: DIRECTORY/partition.toml (the
/// number of parts, the source mesh and its element count), and per part k DIRECTORY/part_k.msh (its
/// MeshPart's mesh, Gmsh MSH 2.2: gmsh opens it) and DIRECTORY/part_k.elements (text: "n_owned N",
/// then a line "global owner" per local element, in the .msh's element order, then, when the part
/// holds periodic joins, "periodic_joins N" and a line "element_m local_face_m element_p
/// local_face_p orientation" per join). partition.toml also records the ghost layers, the whole
/// mesh's hash (io/checkpoint.hpp: mesh_hash), so that a run on the parts checks restarts against
/// it, and the periodic pairs the connectivity was joined with (make_periodic, in their order: the
/// case's runs check their [boundary] tables against them). InputError: the directory cannot be
/// written, periodic joins in the connectivity that `periodic` does not describe.
void write_partitioned_mesh(const std::string& directory, const Mesh& mesh, const Connectivity& connectivity,
                            const std::vector<int>& part, int parts, const GhostLayers& layers = {},
                            const std::vector<PeriodicPair>& periodic = {});

/// A partitioned mesh's manifest (partition.toml).
struct PartitionedMeshInfo {
  int parts = 0;
  index_t elements = 0;          ///< elements of the whole mesh
  std::string source;            ///< the whole mesh's file
  std::uint64_t mesh_hash = 0;   ///< the whole mesh's hash (0: not recorded)
  GhostLayers layers{};
  std::vector<PeriodicPair> periodic;  ///< the pairs joined before partitioning (write_partitioned_mesh)
  /// The whole mesh's boundary names in tag order (each part's tags are renumbered to these, the
  /// ghost tag after them, so that tag numbers mean the same on every rank) and circles.
  std::vector<std::string> boundaries;
  std::vector<BoundaryCircle> circles;
};
PartitionedMeshInfo read_partitioned_mesh_info(const std::string& directory);

/// The number of parts of a partitioned mesh's directory (its partition.toml).
int partitioned_mesh_parts(const std::string& directory);

/// Part k of a partitioned mesh's directory. InputError: a missing or malformed file, k out of
/// range, an element list that does not match the part's mesh.
MeshPart read_mesh_part(const std::string& directory, int k);

}  // namespace flowdg
