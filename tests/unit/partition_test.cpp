// Mesh partitioning for distributed runs (mesh/partition.hpp, issue 17 item 1): METIS's k-way
// partition covers every element, balances the weighted load, keeps the parts connected, cuts no
// more faces than slabs would, honours the weights, repeats itself with the same seed; the
// statistics are exact on a hand-made assignment; bad input is refused; the CLI prints and writes.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "flowdg/core/error.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/generators.hpp"
#include "flowdg/mesh/gmsh_reader.hpp"
#include "flowdg/io/checkpoint.hpp"
#include "flowdg/mesh/partition.hpp"
#include "flowdg/mesh/periodic.hpp"

using namespace flowdg;

namespace {

#define FLOWDG_REQUIRE_METIS() \
  if (!metis_available()) GTEST_SKIP() << "built without METIS (libmetis-dev)"

/// Slabs along x: the element's centroid's x decides its part (a simple partition to compare with).
std::vector<int> slabs(const Mesh& mesh, int parts, double length) {
  std::vector<int> part(static_cast<std::size_t>(mesh.n_elements()));
  for (index_t e = 0; e < mesh.n_elements(); ++e) {
    double x = 0;
    for (int v = 0; v < 4; ++v) x += 0.25 * mesh.nodes[static_cast<std::size_t>(mesh.element_node_ids(e)[v])].x;
    part[static_cast<std::size_t>(e)] = std::min(parts - 1, static_cast<int>(x / length * parts));
  }
  return part;
}

}  // namespace

TEST(Partition, MetisCoversBalancesAndConnectsTheParts) {
  FLOWDG_REQUIRE_METIS();
  const Mesh mesh = box_tetrahedra(1, 1, 1, 10, 10, 10);
  const Connectivity connectivity = build_connectivity(mesh);
  const std::vector<double> weights(static_cast<std::size_t>(mesh.n_elements()), 1.0);
  for (int parts : {1, 2, 3, 4, 7}) {
    SCOPED_TRACE(::testing::Message() << parts << " parts");
    PartitionOptions options;
    options.parts = parts;
    const Partition result = partition_mesh(mesh, connectivity, options);
    ASSERT_EQ(result.part.size(), static_cast<std::size_t>(mesh.n_elements()));
    for (const int p : result.part) ASSERT_TRUE(p >= 0 && p < parts);
    index_t total = 0;
    for (const index_t n : result.elements) {
      EXPECT_GT(n, 0);
      total += n;
    }
    EXPECT_EQ(total, mesh.n_elements());
    EXPECT_LE(result.imbalance, 1.05);
    EXPECT_TRUE(result.contiguous);
    if (parts == 1) {
      EXPECT_EQ(result.cut_faces, 0);
    } else {
      const Partition slab = partition_statistics(mesh, connectivity, slabs(mesh, parts, 1.0), parts, weights);
      EXPECT_GT(result.cut_faces, 0);
      // Slabs are optimal for 2 parts (one plane); METIS comes within 5% there and beats them beyond.
      EXPECT_LE(result.cut_faces, parts == 2 ? 1.05 * slab.cut_faces : slab.cut_faces) << "slabs along x cut " << slab.cut_faces;
    }
    // The same seed, the same partition.
    EXPECT_EQ(partition_mesh(mesh, connectivity, options).part, result.part);
  }
}

// The statistics of a known assignment: the plane x = 0.5 of a 10^3 box of Kuhn-split cubes cuts
// 10 x 10 squares of 2 triangles each; a part in two pieces is not contiguous.
TEST(Partition, TheStatisticsAreExactOnAKnownAssignment) {
  const Mesh mesh = box_tetrahedra(1, 1, 1, 10, 10, 10);
  const Connectivity connectivity = build_connectivity(mesh);
  std::vector<double> weights(static_cast<std::size_t>(mesh.n_elements()), 1.0);
  const Partition halves = partition_statistics(mesh, connectivity, slabs(mesh, 2, 1.0), 2, weights);
  EXPECT_EQ(halves.cut_faces, 200);
  EXPECT_EQ(halves.elements[0], 3000);
  EXPECT_EQ(halves.elements[1], 3000);
  EXPECT_DOUBLE_EQ(halves.imbalance, 1.0);
  EXPECT_TRUE(halves.contiguous);
  // Part 0 = the outer fifths (x < 0.2, x > 0.8), part 1 = the middle: part 0 is in two pieces.
  std::vector<int> split = slabs(mesh, 5, 1.0);
  for (int& p : split) p = (p == 0 || p == 4) ? 0 : 1;
  const Partition pieces = partition_statistics(mesh, connectivity, split, 2, weights);
  EXPECT_FALSE(pieces.contiguous);
  EXPECT_EQ(pieces.cut_faces, 400);
  // Weights: part 0's elements weigh 3, so its load is 3 times part 1's: imbalance 1.5.
  for (index_t e = 0; e < mesh.n_elements(); ++e)
    if (halves.part[static_cast<std::size_t>(e)] == 0) weights[static_cast<std::size_t>(e)] = 3.0;
  EXPECT_DOUBLE_EQ(partition_statistics(mesh, connectivity, halves.part, 2, weights).imbalance, 1.5);
}

// Heavier elements (here: those with x < 0.5 weigh 4) get parts with fewer elements, and the
// weighted load stays balanced.
TEST(Partition, TheWeightsAreBalancedNotTheElementCounts) {
  FLOWDG_REQUIRE_METIS();
  const Mesh mesh = box_tetrahedra(1, 1, 1, 10, 10, 10);
  const Connectivity connectivity = build_connectivity(mesh);
  const std::vector<int> side = slabs(mesh, 2, 1.0);
  PartitionOptions options;
  options.parts = 4;
  options.weights.resize(static_cast<std::size_t>(mesh.n_elements()));
  for (index_t e = 0; e < mesh.n_elements(); ++e) options.weights[static_cast<std::size_t>(e)] = side[static_cast<std::size_t>(e)] == 0 ? 4.0 : 1.0;
  const Partition result = partition_mesh(mesh, connectivity, options);
  EXPECT_LE(result.imbalance, 1.05);
  const auto [fewest, most] = std::minmax_element(result.elements.begin(), result.elements.end());
  EXPECT_GT(static_cast<double>(*most) / static_cast<double>(*fewest), 2.0) << "equal counts: the weights were ignored";
}

// The default weights follow each element's work: a curved (10-node) tetrahedron costs more than a
// straight one at the same order, and every element costs more at a higher order.
TEST(Partition, ElementCostsFollowTheQuadratureWork) {
  const Mesh straight = read_gmsh(FLOWDG_TEST_DATA_DIR "/cube_tet_msh41.msh");
  const Mesh curved = read_gmsh(FLOWDG_TEST_DATA_DIR "/cube_tet_p2_msh41.msh");
  const std::vector<double> a = element_costs(straight, 2), b = element_costs(curved, 2), c = element_costs(straight, 3);
  EXPECT_GT(b.front(), a.front());
  EXPECT_GT(c.front(), a.front());
  for (const double w : a) EXPECT_EQ(w, a.front());  // one type, one cost
}

TEST(Partition, BadInputIsRefused) {
  const Mesh mesh = box_tetrahedra(1, 1, 1, 2, 2, 1);
  const Connectivity connectivity = build_connectivity(mesh);
  const auto refused = [&](PartitionOptions options, const std::string& fragment) {
    try {
      (void)partition_mesh(mesh, connectivity, options);
      ADD_FAILURE() << "accepted: " << fragment;
    } catch (const InputError& error) {
      EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
    }
  };
  PartitionOptions options;
  options.parts = 0;
  refused(options, "must be at least 1");
  options.parts = 25;
  refused(options, "25 parts for 24 elements");
  options.parts = 2;
  options.weights = {1.0, 2.0};
  refused(options, "2 weights for 24 elements");
  options.weights.assign(24, 1.0);
  options.weights[3] = -1;
  refused(options, "must be positive");
}

TEST(Partition, TheCommandPrintsThePartsAndWritesTheirVtu) {
  FLOWDG_REQUIRE_METIS();
  const auto vtu = std::filesystem::temp_directory_path() / ("flowdg-partition-" + std::to_string(::getpid()) + ".vtu");
  const std::string command = std::string(FLOWDG_CLI) + " mesh partition 'builtin:box?nx=4&ny=4&nz=4' 3 --order 2 --vtu " + vtu.string() + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string output;
  std::array<char, 4096> buffer;
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) output += buffer.data();
  const int status = pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << output;
  EXPECT_NE(output.find("in 3 parts"), std::string::npos) << output;
  EXPECT_NE(output.find("part 2: "), std::string::npos) << output;
  std::ifstream file(vtu);
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("Name=\"partition\""), std::string::npos);
  std::filesystem::remove(vtu);
  const std::string bad = std::string(FLOWDG_CLI) + " mesh partition 'builtin:box?nx=1&ny=1&nz=1' 9 > /dev/null 2>&1";
  const int code = std::system(bad.c_str());
  EXPECT_TRUE(WIFEXITED(code) && WEXITSTATUS(code) == 2);
}

// Each part as its rank holds it (extract_part): the owned elements of all parts are the mesh, each
// once; the ghosts are exactly the other parts' face neighbours; the part's own connectivity builds,
// with as many owned-owned faces as the whole mesh has inside the part, one owned-ghost interior
// face per cut face of the part, its owned boundary faces under their tags, and the layer's outside
// under the ghost tag (the ghosts' own boundary faces keep their tags); every local element sits
// where the global one does.
TEST(Partition, EachPartHoldsItsElementsAndOneLayerOfGhosts) {
  for (const bool curved : {false, true}) {
    SCOPED_TRACE(curved ? "curved 10-node tetrahedra" : "box of tetrahedra");
    const Mesh mesh = curved ? read_gmsh(FLOWDG_TEST_DATA_DIR "/cube_tet_p2_msh41.msh") : box_tetrahedra(1, 1, 1, 6, 6, 6);
    const Connectivity connectivity = build_connectivity(mesh);
    const int parts = 3;
    std::vector<int> assignment(static_cast<std::size_t>(mesh.n_elements()));
    if (metis_available()) {
      PartitionOptions options;
      options.parts = parts;
      assignment = partition_mesh(mesh, connectivity, options).part;
    } else {  // index slabs: the extraction itself does not need METIS
      for (index_t e = 0; e < mesh.n_elements(); ++e) assignment[static_cast<std::size_t>(e)] = static_cast<int>(e * parts / mesh.n_elements());
    }
    std::vector<int> seen(static_cast<std::size_t>(mesh.n_elements()), 0);
    for (int k = 0; k < parts; ++k) {
      const MeshPart held = extract_part(mesh, connectivity, assignment, k);
      const Connectivity local = build_connectivity(held.mesh);
      // Owned and ghost elements.
      std::vector<index_t> expected_ghosts;
      index_t inside = 0, cut = 0, boundary = 0;
      for (const Face& face : connectivity.faces) {
        const bool m = assignment[static_cast<std::size_t>(face.element_m)] == k;
        if (face.element_p < 0) {
          boundary += m;
          continue;
        }
        const bool p = assignment[static_cast<std::size_t>(face.element_p)] == k;
        if (m && p) ++inside;
        if (m != p) {
          ++cut;
          expected_ghosts.push_back(m ? face.element_p : face.element_m);
        }
      }
      std::sort(expected_ghosts.begin(), expected_ghosts.end());
      expected_ghosts.erase(std::unique(expected_ghosts.begin(), expected_ghosts.end()), expected_ghosts.end());
      const std::vector<index_t> ghosts(held.global_element.begin() + held.n_owned, held.global_element.end());
      EXPECT_EQ(ghosts, expected_ghosts);
      for (index_t i = 0; i < held.n_owned; ++i) {
        EXPECT_EQ(held.owner[static_cast<std::size_t>(i)], k);
        ++seen[static_cast<std::size_t>(held.global_element[static_cast<std::size_t>(i)])];
      }
      for (std::size_t i = static_cast<std::size_t>(held.n_owned); i < held.owner.size(); ++i) EXPECT_NE(held.owner[i], k);
      // The part's faces.
      index_t owned_owned = 0, owned_ghost = 0, owned_boundary = 0, ghost_boundary = 0;
      const int ghost_tag = held.mesh.require_tag(ghost_boundary_name);
      for (const Face& face : local.faces) {
        const bool m = face.element_m < held.n_owned;
        if (face.element_p < 0) {
          if (face.tag == ghost_tag) {
            EXPECT_FALSE(m) << "an owned element's face tagged ghost";
            ++ghost_boundary;
          } else {  // the whole mesh's boundary faces keep their tags, a ghost's too
            EXPECT_EQ(held.mesh.boundary_names[static_cast<std::size_t>(face.tag)], mesh.boundary_names[static_cast<std::size_t>(face.tag)]);
            owned_boundary += m;
          }
          continue;
        }
        const bool p = face.element_p < held.n_owned;
        if (m && p) ++owned_owned;
        if (m != p) ++owned_ghost;
      }
      EXPECT_EQ(owned_owned, inside);
      EXPECT_EQ(owned_ghost, cut);
      EXPECT_EQ(owned_boundary, boundary);
      EXPECT_GT(ghost_boundary, 0);
      // Geometry: every node of every local element where the whole mesh has it.
      for (index_t e = 0; e < held.mesh.n_elements(); ++e) {
        const index_t g = held.global_element[static_cast<std::size_t>(e)];
        ASSERT_EQ(held.mesh.element_types[static_cast<std::size_t>(e)], mesh.element_types[static_cast<std::size_t>(g)]);
        for (int i = 0; i < mesh.element_n_nodes(g); ++i) {
          const Point3 a = held.mesh.nodes[static_cast<std::size_t>(held.mesh.element_node_ids(e)[i])];
          const Point3 b = mesh.nodes[static_cast<std::size_t>(mesh.element_node_ids(g)[i])];
          EXPECT_EQ(a.x, b.x);
          EXPECT_EQ(a.y, b.y);
          EXPECT_EQ(a.z, b.z);
        }
      }
    }
    for (const int count : seen) EXPECT_EQ(count, 1);
  }
}

// A periodic mesh: the elements across a periodic join are face neighbours, so they are ghosts;
// joins with both elements held come back as interior faces (join_periodic) with the whole mesh's
// sides and orientation, the others face the ghost tag; every join of an owned element is held.
// The files of a partitioned mesh cannot carry the joins yet: write_partitioned_mesh refuses.
TEST(Partition, PeriodicJoinsAreKeptInEachPart) {
  Mesh mesh = box_tetrahedra(1, 1, 1, 3, 3, 3);
  Connectivity connectivity = build_connectivity(mesh);
  make_periodic(mesh, connectivity, mesh.require_tag("xmin"), mesh.require_tag("xmax"), {1, 0, 0});
  std::vector<int> assignment(static_cast<std::size_t>(mesh.n_elements()), 0);
  for (index_t e = mesh.n_elements() / 2; e < mesh.n_elements(); ++e) assignment[static_cast<std::size_t>(e)] = 1;
  for (const GhostLayers layers : {GhostLayers{1, false}, GhostLayers{2, true}})
    for (int k = 0; k < 2; ++k) {
      SCOPED_TRACE(describe(layers) + ", part " + std::to_string(k));
      const MeshPart held = extract_part(mesh, connectivity, assignment, k, layers);
      std::vector<index_t> local(static_cast<std::size_t>(mesh.n_elements()), -1);
      for (std::size_t i = 0; i < held.global_element.size(); ++i) local[static_cast<std::size_t>(held.global_element[i])] = static_cast<index_t>(i);
      // Every face of the whole mesh with both elements held, as (global m, global p, local faces, orientation).
      std::vector<std::array<index_t, 5>> expected, got;
      for (const Face& face : connectivity.faces) {
        if (face.element_p < 0 || local[static_cast<std::size_t>(face.element_m)] < 0 || local[static_cast<std::size_t>(face.element_p)] < 0) continue;
        if (assignment[static_cast<std::size_t>(face.element_m)] == k || assignment[static_cast<std::size_t>(face.element_p)] == k) {
          std::array<index_t, 2> ends{face.element_m, face.element_p};
          std::sort(ends.begin(), ends.end());
          expected.push_back({ends[0], ends[1], 0, 0, 0});
        }
      }
      Connectivity part = build_connectivity(held.mesh);
      join_periodic(held, part);
      orient_as_whole_mesh(held, part);
      EXPECT_LT(held.mesh.find_tag(periodic_boundary_name) < 0 ? 0 : part.tag_offsets[held.mesh.find_tag(periodic_boundary_name) + 1] -
                                                                        part.tag_offsets[held.mesh.find_tag(periodic_boundary_name)],
                1);
      index_t joins = 0;
      for (const Face& face : part.faces) {
        if (face.element_p < 0) continue;
        const index_t m = held.global_element[static_cast<std::size_t>(face.element_m)], p = held.global_element[static_cast<std::size_t>(face.element_p)];
        if (face.element_m >= held.n_owned && face.element_p >= held.n_owned) continue;  // ghost-ghost
        got.push_back({std::min(m, p), std::max(m, p), 0, 0, 0});
        // The whole mesh's face between the two: same sides, local faces and orientation.
        const index_t f = connectivity.element_faces[static_cast<std::size_t>(m) * connectivity.max_faces + face.local_face_m];
        ASSERT_GE(f, 0);
        const Face& whole = connectivity.faces[static_cast<std::size_t>(f)];
        EXPECT_EQ(whole.element_m, m);
        EXPECT_EQ(whole.element_p, p);
        EXPECT_EQ(whole.local_face_p, face.local_face_p);
        EXPECT_EQ(whole.orientation, face.orientation);
        std::array<index_t, 4> a{-1, -1, -1, -1}, b{-1, -1, -1, -1};
        face_vertex_ids(held.mesh, face.element_m, face.local_face_m, a.data());
        face_vertex_ids(held.mesh, face.element_p, face.local_face_p, b.data());
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        joins += a != b;
      }
      std::sort(expected.begin(), expected.end());
      std::sort(got.begin(), got.end());
      EXPECT_EQ(got, expected);
      EXPECT_GT(joins, 0) << "no periodic join held";
    }
  const auto directory = std::filesystem::temp_directory_path() / ("flowdg-periodic-parts-" + std::to_string(::getpid()));
  try {
    write_partitioned_mesh(directory.string(), mesh, connectivity, assignment, 2);
    ADD_FAILURE() << "a periodic mesh was written as parts";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("periodic"), std::string::npos) << error.what();
  }
  std::filesystem::remove_all(directory);
}

// The partitioned mesh on disk: each part read back alone equals extract_part's (element types and
// order, node positions, global numbers, owners, ghost rings), the manifest (parts, elements, the
// whole mesh's hash, the rings), and the directory's part count;
// bad directories and part numbers are refused.
TEST(Partition, APartitionedMeshReadsBackOnePartAtATime) {
  const Mesh mesh = read_gmsh(FLOWDG_TEST_DATA_DIR "/cube_tet_p2_msh41.msh");
  const Connectivity connectivity = build_connectivity(mesh);
  const int parts = 2;
  std::vector<int> assignment(static_cast<std::size_t>(mesh.n_elements()));
  for (index_t e = 0; e < mesh.n_elements(); ++e) assignment[static_cast<std::size_t>(e)] = static_cast<int>(e * parts / mesh.n_elements());
  const auto directory = std::filesystem::temp_directory_path() / ("flowdg-parts-" + std::to_string(::getpid()));
  std::filesystem::remove_all(directory);
  const GhostLayers layers{2, true};
  write_partitioned_mesh(directory.string(), mesh, connectivity, assignment, parts, layers);
  EXPECT_EQ(partitioned_mesh_parts(directory.string()), parts);
  const PartitionedMeshInfo info = read_partitioned_mesh_info(directory.string());
  EXPECT_EQ(info.elements, mesh.n_elements());
  EXPECT_EQ(info.mesh_hash, mesh_hash(mesh));
  EXPECT_EQ(info.layers, layers);
  for (int k = 0; k < parts; ++k) {
    const MeshPart expected = extract_part(mesh, connectivity, assignment, k, layers);
    const MeshPart read = read_mesh_part(directory.string(), k);
    EXPECT_EQ(read.n_owned, expected.n_owned);
    EXPECT_EQ(read.global_element, expected.global_element);
    EXPECT_EQ(read.owner, expected.owner);
    EXPECT_EQ(read.layers, layers);
    ASSERT_EQ(read.mesh.n_elements(), expected.mesh.n_elements());
    EXPECT_EQ(read.mesh.element_types, expected.mesh.element_types);
    for (index_t e = 0; e < read.mesh.n_elements(); ++e)
      for (int i = 0; i < read.mesh.element_n_nodes(e); ++i) {
        const Point3 a = read.mesh.nodes[static_cast<std::size_t>(read.mesh.element_node_ids(e)[i])];
        const Point3 b = expected.mesh.nodes[static_cast<std::size_t>(expected.mesh.element_node_ids(e)[i])];
        EXPECT_NEAR(a.x, b.x, 1e-14);
        EXPECT_NEAR(a.y, b.y, 1e-14);
        EXPECT_NEAR(a.z, b.z, 1e-14);
      }
    const Connectivity local = build_connectivity(read.mesh);
    EXPECT_EQ(local.n_faces(), build_connectivity(expected.mesh).n_faces());
  }
  for (const auto& [k, fragment] : {std::pair{2, std::string("has 2 parts: no part 2")}, std::pair{-1, std::string("no part -1")}}) {
    try {
      (void)read_mesh_part(directory.string(), k);
      ADD_FAILURE() << "part " << k << " read";
    } catch (const InputError& error) {
      EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
    }
  }
  try {
    (void)read_mesh_part(std::filesystem::temp_directory_path().string(), 0);
    ADD_FAILURE() << "a directory without partition.toml was read";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("not a partitioned mesh"), std::string::npos) << error.what();
  }
  std::filesystem::remove_all(directory);
}

// The halo plans of all parts fit together: what part k sends to part r is, element for element in
// the same order, what part r receives from k (by global number), and every ghost of every part is
// received from its owner exactly once; neighbours are mutual.
TEST(Partition, TheHaloPlansOfThePartsMatchElementForElement) {
  for (const GhostLayers layers : {GhostLayers{1, false}, GhostLayers{2, false}, GhostLayers{2, true}}) {
  SCOPED_TRACE(describe(layers));
  const Mesh mesh = box_tetrahedra(1, 1, 1, 6, 6, 6);
  const Connectivity connectivity = build_connectivity(mesh);
  const int parts = 4;
  std::vector<int> assignment(static_cast<std::size_t>(mesh.n_elements()));
  if (metis_available()) {
    PartitionOptions options;
    options.parts = parts;
    assignment = partition_mesh(mesh, connectivity, options).part;
  } else {
    for (index_t e = 0; e < mesh.n_elements(); ++e) assignment[static_cast<std::size_t>(e)] = static_cast<int>(e * parts / mesh.n_elements());
  }
  std::vector<MeshPart> held;
  std::vector<HaloPlan> plans;
  for (int k = 0; k < parts; ++k) {
    held.push_back(extract_part(mesh, connectivity, assignment, k, layers));
    plans.push_back(make_halo_plan(held.back()));
  }
  const auto globals = [&](int k, const std::vector<index_t>& locals) {
    std::vector<index_t> out;
    for (const index_t l : locals) out.push_back(held[static_cast<std::size_t>(k)].global_element[static_cast<std::size_t>(l)]);
    return out;
  };
  for (int k = 0; k < parts; ++k) {
    index_t received = 0;
    for (const HaloPlan::Neighbour& n : plans[static_cast<std::size_t>(k)].neighbours) {
      ASSERT_NE(n.part, k);
      EXPECT_FALSE(n.send.empty());
      received += static_cast<index_t>(n.receive.size());
      for (const index_t l : n.send) EXPECT_LT(l, held[static_cast<std::size_t>(k)].n_owned);
      for (const index_t l : n.receive) EXPECT_EQ(held[static_cast<std::size_t>(k)].owner[static_cast<std::size_t>(l)], n.part);
      const auto& other = plans[static_cast<std::size_t>(n.part)].neighbours;
      const auto back = std::find_if(other.begin(), other.end(), [&](const HaloPlan::Neighbour& m) { return m.part == k; });
      ASSERT_NE(back, other.end()) << "part " << n.part << " does not list part " << k;
      EXPECT_EQ(globals(k, n.send), globals(n.part, back->receive)) << k << " -> " << n.part;
    }
    EXPECT_EQ(received, held[static_cast<std::size_t>(k)].mesh.n_elements() - held[static_cast<std::size_t>(k)].n_owned);
    // The owned elements that some neighbour holds come first (a stage updates them first and
    // sends them while it updates the rest), each kind in the whole mesh's order.
    const MeshPart& part = held[static_cast<std::size_t>(k)];
    std::vector<char> sent(static_cast<std::size_t>(part.n_owned), 0);
    for (const HaloPlan::Neighbour& n : plans[static_cast<std::size_t>(k)].neighbours)
      for (const index_t l : n.send) sent[static_cast<std::size_t>(l)] = 1;
    const index_t n_sent = static_cast<index_t>(std::count(sent.begin(), sent.end(), 1));
    EXPECT_GT(n_sent, 0);
    EXPECT_LT(n_sent, part.n_owned) << "part " << k << " has no element that no neighbour holds";
    for (index_t i = 0; i < part.n_owned; ++i) {
      EXPECT_EQ(sent[static_cast<std::size_t>(i)] != 0, i < n_sent) << "part " << k << ", element " << i;
      if (i > 0 && i != n_sent) {
        EXPECT_LT(part.global_element[static_cast<std::size_t>(i - 1)], part.global_element[static_cast<std::size_t>(i)]);
      }
    }
  }
  }
}

// Deeper ghost layers: the ghosts of a part are exactly the other parts' elements within `depth`
// rings of it, by a brute-force distance over the whole mesh (faces: shared facets; vertices: a
// shared corner), and the extra rings' boundary faces keep their tags.
TEST(Partition, GhostRingsAreTheElementsWithinTheirDepth) {
  const Mesh mesh = box_tetrahedra(1, 1, 1, 5, 5, 5);
  const Connectivity connectivity = build_connectivity(mesh);
  const index_t K = mesh.n_elements();
  std::vector<int> assignment(static_cast<std::size_t>(K));
  for (index_t e = 0; e < K; ++e) assignment[static_cast<std::size_t>(e)] = static_cast<int>(e * 3 / K);
  const auto neighbours = [&](index_t a, index_t b, bool by_vertex) {
    if (!by_vertex) {
      for (const Face& face : connectivity.faces)
        if ((face.element_m == a && face.element_p == b) || (face.element_m == b && face.element_p == a)) return true;
      return false;
    }
    for (int i = 0; i < n_vertices(mesh.element_shape(a)); ++i)
      for (int j = 0; j < n_vertices(mesh.element_shape(b)); ++j)
        if (mesh.element_node_ids(a)[i] == mesh.element_node_ids(b)[j]) return true;
    return false;
  };
  for (const GhostLayers layers : {GhostLayers{2, false}, GhostLayers{1, true}, GhostLayers{2, true}}) {
    SCOPED_TRACE(describe(layers));
    const int k = 1;
    std::vector<int> distance(static_cast<std::size_t>(K), -1);
    for (index_t e = 0; e < K; ++e)
      if (assignment[static_cast<std::size_t>(e)] == k) distance[static_cast<std::size_t>(e)] = 0;
    for (int r = 1; r <= layers.depth; ++r)
      for (index_t e = 0; e < K; ++e) {
        if (distance[static_cast<std::size_t>(e)] >= 0) continue;
        for (index_t f = 0; f < K; ++f)
          if (distance[static_cast<std::size_t>(f)] == r - 1 && neighbours(e, f, layers.by_vertex)) {
            distance[static_cast<std::size_t>(e)] = r;
            break;
          }
      }
    std::vector<index_t> expected;
    for (index_t e = 0; e < K; ++e)
      if (distance[static_cast<std::size_t>(e)] > 0) expected.push_back(e);
    const MeshPart held = extract_part(mesh, connectivity, assignment, k, layers);
    EXPECT_EQ(std::vector<index_t>(held.global_element.begin() + held.n_owned, held.global_element.end()), expected);
    EXPECT_EQ(held.layers, layers);
    // Tags: the part's boundary faces on the whole mesh's boundary keep theirs, the rest are the ghost tag.
    const Connectivity local = build_connectivity(held.mesh);
    const int ghost_tag = held.mesh.require_tag(ghost_boundary_name);
    index_t whole_boundary = 0, expected_boundary = 0;
    for (const Face& face : local.faces)
      if (face.element_p < 0 && face.tag != ghost_tag) ++whole_boundary;
    for (const Face& face : connectivity.faces)
      if (face.element_p < 0 && distance[static_cast<std::size_t>(face.element_m)] >= 0) ++expected_boundary;
    EXPECT_EQ(whole_boundary, expected_boundary);
  }
  try {
    (void)extract_part(mesh, connectivity, assignment, 0, GhostLayers{0, false});
    ADD_FAILURE() << "an empty ghost layer was accepted";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("at least one ring"), std::string::npos) << error.what();
  }
}
