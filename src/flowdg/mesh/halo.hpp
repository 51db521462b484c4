#pragma once
// What a distributed run's operator needs to know of its part of the mesh (mesh/partition.hpp makes
// the parts): how deep the ghost layer is, and what it exchanges with its neighbours every stage.
// Kept apart from partition.hpp so that the kernels' headers do not depend on the partitioner.
#include <string>
#include <vector>

#include "flowdg/core/hd.hpp"

namespace flowdg {

/// How deep a part's ghost layer is: `depth` rings of other parts' elements around its own, each
/// ring the elements that share a face (by_vertex false) or a vertex (by_vertex true) with the ones
/// inside it. A distributed stage computes every held element and then overwrites the ghosts with
/// their owners' values (the halo exchange), so the owned elements are exact when everything a
/// stage reads about them lies within the layer: one face ring for the DG operator's face coupling
/// (Euler; BR2, whose face terms use only the two sides' states), two vertex rings where a stage
/// also reads neighbours' updated values or vertex stencils (the limiter; vertex-smoothed
/// artificial viscosity, whose vertex values take every element around the vertex).
struct GhostLayers {
  int depth = 1;
  bool by_vertex = false;
  friend bool operator==(const GhostLayers&, const GhostLayers&) = default;
};

/// "1 face ring", "2 vertex rings" (messages).
std::string describe(const GhostLayers& layers);

/// What a part exchanges with each neighbouring part every stage: its owned elements that are
/// ghosts there (send) and its ghosts owned there (receive), both in ascending global number, which
/// is the order both sides hold them in (extract_part sorts the ghost layer so), so that a send
/// list's i-th element is the receiving part's i-th ghost from it. Local element indices.
struct HaloPlan {
  struct Neighbour {
    int part = -1;
    std::vector<index_t> send;     ///< owned local elements, ascending global number
    std::vector<index_t> receive;  ///< ghost local elements owned by `part`, ascending global number
  };
  std::vector<Neighbour> neighbours;  ///< by ascending part number
};

}  // namespace flowdg
