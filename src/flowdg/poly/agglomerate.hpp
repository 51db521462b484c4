#pragma once
// Agglomerating a fine simplicial mesh into polytopic elements (issue 18 item 1): METIS's k-way
// partition of the dual graph (mesh/partition.hpp) with unit weights, and a geometric recursive
// bisection that gives nested hierarchies (as the R-tree agglomeration of Feder, Cangiani &
// Heltai's R3MG). Every result has connected agglomerates: a disconnected one (through fine faces)
// is split into its connected pieces, and the result's note says so.
#include <string>
#include <vector>

#include "flowdg/core/hd.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/mesh.hpp"

namespace flowdg::poly {

/// An assignment of fine elements to agglomerates.
struct Agglomeration {
  std::vector<index_t> agglomerate;  ///< per fine element (mesh order): its agglomerate, 0..n_agglomerates-1
  index_t n_agglomerates = 0;
  index_t n_split = 0;  ///< agglomerates added by splitting disconnected ones into their pieces
  index_t n_empty = 0;  ///< requested agglomerates that received no fine element (dropped)
  std::string note;     ///< empty, or one sentence on what was split or dropped
};

/// The same assignment with every agglomerate connected through the interior faces of
/// `connectivity` and the ids compacted: unused ids are dropped (later ids move down, keeping their
/// order), then each disconnected agglomerate keeps its id for the piece holding its lowest fine
/// element and its other pieces get new ids after all others. InputError: an assignment of the
/// wrong size or with a negative id.
Agglomeration make_connected(const Mesh& mesh, const Connectivity& connectivity, std::vector<index_t> agglomerate);

/// `n` agglomerates by METIS (k-way on the dual graph, unit weights, contiguous parts requested;
/// `seed` is METIS's seed), then make_connected. METIS's k-way partitioning leaves parts empty when
/// asked for very many parts of a few elements each (500,000 triangles into 60,000 parts; 800 into
/// 400; always when the parts would average fewer than 8 fine elements, which is then not tried): then METIS makes n / 8 parts (n / 64, ... until it succeeds) and each is bisected as in
/// agglomerate_bisection into its share of the n agglomerates (proportional to its size), and the
/// note says so. InputError: n < 1, n above the number of fine elements, a build without METIS
/// (install libmetis-dev and reconfigure).
Agglomeration agglomerate_metis(const Mesh& mesh, const Connectivity& connectivity, index_t n, int seed = 1);

/// A nested hierarchy by recursive bisection of the fine elements' centroids: a set of fine
/// elements to be made into m agglomerates is cut across the longest side of its centroids'
/// bounding box at the ceil(m/2) / m quantile (the median for even m; ties broken by element
/// number), the lower part to make ceil(m/2) agglomerates and the upper part floor(m/2), until
/// m = 1. A straight cut may leave a few elements of one side joined to the rest of it only
/// through the other side: after each cut, each side keeps its largest connected piece and hands
/// its other pieces that touch the other side over to it (while it keeps at least as many fine
/// elements as agglomerates to make), which leaves the node's union, and so the nesting, as it was,
/// and both sides connected when the node is. Returns the levels of that tree, finest first:
/// levels[0] has the `n` leaves, levels[l] the tree's nodes at depth D - l (D = ceil(log2 n); a
/// leaf shallower than a level stands for itself in it), the last level the whole mesh. Each level
/// is then made connected (make_connected) on its own; every agglomerate of a level stays a union
/// of agglomerates of the level before it, since those are connected and lie in one of its
/// agglomerates. Agglomerates are numbered in the tree's depth-first order, so neighbours in
/// number are near in space.
/// InputError: n < 1 or n above the number of fine elements.
std::vector<Agglomeration> agglomerate_bisection(const Mesh& mesh, const Connectivity& connectivity, index_t n);

}  // namespace flowdg::poly
