#pragma once
// Polytopic meshes on several ranks (issue 19 item 4; Dong, Georgoulis & Kappas 2021, section 4.2):
// the agglomerates are partitioned by METIS (each weighted by its fine simplices, the quadrature
// cost), and each rank holds the fine elements of its own agglomerates, of their face neighbours
// (ghost agglomerates, whole: their bases, covers and penalties are those of the whole mesh), and
// one ring of fine elements around those (so that a ghost's every face keeps its neighbour and its
// sub-simplices are the whole mesh's; each of these "filler" fine elements is an agglomerate of its
// own, never assembled). A SipgDiscretisation of the part with SipgOptions::owned_elements = n_owned
// assembles exactly the rows of the owned agglomerates (the paper's modified interface kernel: on an
// interface with a ghost side the thread computes only the owned side's two blocks), in local column
// numbering: owned
// agglomerates first (in global order), then the ghosts (in global order).
#include <string>
#include <vector>

#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/halo.hpp"
#include "flowdg/mesh/mesh.hpp"

namespace flowdg::poly {

/// The agglomerates' adjacency (through fine interior faces), CSR over agglomerates 0..n-1, each
/// neighbour once, ascending.
void agglomerate_graph(const Mesh& fine, const Connectivity& connectivity, const std::vector<index_t>& agglomerate, index_t n,
                       std::vector<index_t>& start, std::vector<index_t>& neighbours);

/// Per agglomerate, its rank: METIS on agglomerate_graph weighted by the fine elements of each.
std::vector<int> partition_agglomerates(const Mesh& fine, const Connectivity& connectivity, const std::vector<index_t>& agglomerate,
                                        index_t n, int parts, int seed = 1);

/// What rank k holds.
struct PolyPart {
  Mesh fine;                           ///< the held fine elements (boundary tags kept; the outer ring's outside tagged partition-ghost)
  std::vector<index_t> agglomerate;    ///< per local fine element: its local agglomerate
  index_t n_owned = 0;                 ///< local agglomerates [0, n_owned) are this rank's
  index_t n_ghost = 0;                 ///< [n_owned, n_owned + n_ghost) the neighbours' (ghosts); the rest fillers
  std::vector<index_t> global;         ///< per owned or ghost agglomerate: its number in the whole mesh
  std::vector<int> owner;              ///< per owned or ghost agglomerate: its rank
  std::vector<index_t> fine_global;    ///< per local fine element: its number in the whole fine mesh
  /// Per neighbouring rank (ascending): the owned agglomerates it holds as ghosts (send) and this
  /// rank's ghosts it owns (receive), both in ascending global number, so that the i-th sent is the
  /// neighbour's i-th received (linalg/distributed.hpp: unknowns_plan turns it into unknowns').
  HaloPlan halo;
};

/// Rank k's part. InputError: k out of range or owning nothing.
PolyPart extract_poly_part(const Mesh& fine, const Connectivity& connectivity, const std::vector<index_t>& agglomerate, index_t n,
                           const std::vector<int>& rank_of, int k);

}  // namespace flowdg::poly
