// `flowdg mesh info MESH`: loads, validates and summarises a mesh file or built-in mesh; with
// `--agglomerate N` it also agglomerates the fine triangles / tetrahedra into N polytopic elements
// (poly/agglomerate.hpp) and summarises the polytopic mesh (poly/poly_mesh.hpp), optionally writing
// it for ParaView (poly/poly_vtu.hpp).
// `flowdg mesh curve MESH --wall ... --order K --output OUT.msh`: curves a straight mesh by linear
// elasticity (mesh/curve.hpp) and writes the high-order mesh (Gmsh MSH 2.2).
// `flowdg mesh partition MESH N`: METIS k-way partition of the elements (mesh/partition.hpp): the
// balance, the cut faces, and optionally a VTU of the parts for ParaView.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/io/vtu.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/curve.hpp"
#include "flowdg/mesh/partition.hpp"
#include "flowdg/mesh/periodic.hpp"
#include "flowdg/mesh/gmsh_writer.hpp"
#include "flowdg/mesh/mesh_info.hpp"
#include "flowdg/poly/agglomerate.hpp"
#include "flowdg/poly/poly_mesh.hpp"
#include "flowdg/poly/poly_vtu.hpp"

namespace flowdg::cli {

namespace {

struct AgglomerateOptions {
  index_t elements = 0;
  std::string method = "metis", sub_simplices = "coarse", vtu;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// `mesh info --agglomerate N`: the polytopic mesh of the (validated) fine mesh, its statistics, the
// agglomeration's note, and the VTU files when asked for.
void print_agglomeration(const Mesh& fine, const AgglomerateOptions& options) {
  const int d = fine.dimension;
  const ElementType simplex = d == 3 ? ElementType::tetrahedron4 : ElementType::triangle3;
  for (index_t e = 0; e < fine.n_elements(); ++e)
    if ((d != 2 && d != 3) || fine.element_types[static_cast<std::size_t>(e)] != simplex)
      throw InputError(cat("--agglomerate needs a mesh of straight 3-node triangles (2D) or 4-node tetrahedra (3D); ",
                           fine.source, " has ", fine.element_label(e), " of type ",
                           type_name(fine.element_types[static_cast<std::size_t>(e)]),
                           " (quadrilaterals, hexahedra and curved elements cannot be agglomerated)"));
  const Connectivity connectivity = build_connectivity(fine);
  auto start = std::chrono::steady_clock::now();
  poly::Agglomeration agglomeration;
  if (options.method == "metis")
    agglomeration = poly::agglomerate_metis(fine, connectivity, options.elements);
  else
    agglomeration = std::move(poly::agglomerate_bisection(fine, connectivity, options.elements).front());
  const double agglomerate_time = seconds_since(start);

  poly::PolyMeshOptions build;
  build.quadrature = options.sub_simplices == "fine" ? poly::SubSimplices::fine : poly::SubSimplices::coarse;
  start = std::chrono::steady_clock::now();
  const poly::PolyMesh polytopic = poly::build_poly_mesh(fine, connectivity, agglomeration.agglomerate, build);
  const double build_time = seconds_since(start);

  std::printf("agglomeration: %s, %lld elements asked for (%.3g s); polytopic mesh built in %.3g s\n",
              options.method == "metis" ? "METIS k-way" : "recursive bisection",
              static_cast<long long>(options.elements), agglomerate_time, build_time);
  if (!agglomeration.note.empty()) std::printf("note: %s\n", agglomeration.note.c_str());
  std::fputs(poly::describe_statistics(polytopic).c_str(), stdout);
  if (!options.vtu.empty()) {
    const std::string outline = poly::write_poly_vtu(options.vtu, polytopic);
    std::printf("wrote %s (fine cells coloured by agglomerate) and %s (the elements' outlines)\n", options.vtu.c_str(),
                outline.c_str());
  }
  std::fflush(stdout);
}

}  // namespace

void add_mesh_commands(CLI::App& app) {
  auto* mesh = app.add_subcommand("mesh", "Mesh tools");
  mesh->require_subcommand(1);

  struct Options {
    std::string spec;
    bool json = false;
    AgglomerateOptions agglomerate;
  };
  // CLI11 keeps pointers to the option targets until parsing ends, after this function returns.
  auto options = std::make_shared<Options>();
  auto* info = mesh->add_subcommand(
      "info", std::string("Validate a mesh and print its sizes, boundary tags and quality; exit code 2 "
                          "if it is invalid.\n") + mesh_spec_help);
  info->add_option("MESH", options->spec, "Gmsh file or builtin:NAME?key=value&...")->required();
  auto* json = info->add_flag("--json", options->json, "Print the summary as JSON");
  auto* agglomerate =
      info->add_option("--agglomerate", options->agglomerate.elements,
                       "Agglomerate the fine mesh (straight 3-node triangles or 4-node tetrahedra) into N polytopic "
                       "elements and print their statistics: faces, sub-faces and sub-simplices per element")
          ->type_name("N")
          ->excludes(json);
  info->add_option("--agglomeration", options->agglomerate.method,
                   "How: metis (k-way on the dual graph) or bisection (recursive geometric bisection, nested)")
      ->default_val("metis")
      ->check(CLI::IsMember({"metis", "bisection"}))
      ->needs(agglomerate);
  info->add_option("--sub-simplices", options->agglomerate.sub_simplices,
                   "The quadrature's sub-simplices: fine (the fine simplices) or coarse (one per boundary sub-face "
                   "where the element is star-shaped)")
      ->default_val("coarse")
      ->check(CLI::IsMember({"fine", "coarse"}))
      ->needs(agglomerate);
  info->add_option("--vtu", options->agglomerate.vtu,
                   "Write the polytopic mesh for ParaView: FILE (fine cells with cell data agglomerate) and "
                   "FILE_outline.vtu (the elements' sub-faces)")
      ->type_name("FILE")
      ->needs(agglomerate);
  info->callback([options, agglomerate] {
    Mesh loaded = load_mesh(options->spec);
    const MeshInfo summary = mesh_info(loaded);
    const std::string text = options->json ? to_json(summary) : to_text(summary);
    std::fputs(text.c_str(), stdout);
    std::fflush(stdout);
    if (!summary.report.ok())
      throw InputError(cat("mesh ", summary.source, " is invalid: ", summary.report.errors.front()));
    if (agglomerate->count() > 0) print_agglomeration(loaded, options->agglomerate);
  });

  struct CurveOptions {
    std::string spec, output;
    std::vector<std::string> walls, sliding;
    std::vector<double> box;
    CurvingOptions curving;
  };
  auto curve = std::make_shared<CurveOptions>();
  auto* command = mesh->add_subcommand(
      "curve", "Curve a straight-sided mesh: raise it to geometric order K, put the walls' nodes on their true shapes and move "
               "the other high-order nodes by linear elasticity (Siebenborn & Schulz 2012); writes a Gmsh MSH 2.2 file and "
               "prints the quality (min det J / det J of the straight element). Exit code 2 if an element inverts.");
  command->add_option("MESH", curve->spec, "Gmsh file (or builtin:...) of straight-sided elements")->required();
  command->add_option("--wall", curve->walls,
                      "A wall and its true shape: NAME=sphere:cx,cy,cz,r | NAME=cylinder:cx,cy,cz,ax,ay,az,r | NAME=circle:cx,cy,r | "
                      "NAME=naca:0012,cx,cy,chord | NAME=cad:FILE[,surface tags] (STEP, IGES, BREP or .geo through Gmsh's API; "
                      "repeat for several walls)")
      ->required();
  command->add_option("--order", curve->curving.order, "Geometric order of the result (2..4)")->default_val(2);
  command->add_option("--poisson", curve->curving.poisson, "Poisson ratio of the elastic material (0.45 rubber-like; ~0 for thin sections)")
      ->default_val(0.45);
  command->add_option("--layers", curve->curving.layers, "Curve only the elements within this many layers of the walls (0: all)")
      ->default_val(0);
  command->add_option("--box", curve->box, "Curve only the elements whose centroid is in this box: x0,y0,z0,x1,y1,z1")->delimiter(',');
  command->add_option("--sliding", curve->sliding, "Boundary names of symmetry planes (normal to x, y or z): nodes slide in them");
  command->add_option("--output,-o", curve->output, "The curved mesh (Gmsh MSH 2.2)")->required();
  command->callback([curve] {
    const Mesh straight = load_mesh(curve->spec);
    std::vector<TrueSurface> walls;
    for (const std::string& text : curve->walls) walls.push_back(parse_true_surface(text));
    CurvingOptions curving = curve->curving;
    curving.sliding = curve->sliding;
    if (!curve->box.empty()) {
      if (curve->box.size() != 6) throw InputError("--box: six numbers x0,y0,z0,x1,y1,z1");
      const std::vector<double>& v = curve->box;
      curving.box = std::make_pair(Point3{v[0], v[1], v[2]}, Point3{v[3], v[4], v[5]});
    }
    CurvingReport report;
    const Mesh curved = curve_mesh(straight, walls, curving, &report);
    write_gmsh(curved, curve->output);
    std::printf("flowdg: curved %lld of %lld elements to order %d (%lld unknowns, %lld wall nodes moved up to %.3g); "
                "min det J / det J_straight %.4f (%s); wrote %s\n",
                static_cast<long long>(report.curved_elements), static_cast<long long>(curved.n_elements()), curving.order,
                static_cast<long long>(report.unknowns), static_cast<long long>(report.wall_nodes), report.largest_wall_move,
                report.min_scaled_jacobian, curved.element_label(report.worst_element).c_str(), curve->output.c_str());
  });

  struct PartitionCommand {
    std::string spec, vtu, output, rings = "face";
    PartitionOptions partition;
    int depth = 1;
    std::vector<std::string> periodic;
  };
  auto part = std::make_shared<PartitionCommand>();
  auto* partition = mesh->add_subcommand(
      "partition", "Partition a mesh's elements into N parts with METIS (k-way on the dual graph, each element weighted by its "
                   "cost at the given order): prints each part's elements and load, the imbalance and the cut faces; --vtu "
                   "writes the parts for ParaView.");
  partition->add_option("MESH", part->spec, "Gmsh file or builtin:NAME?key=value&...")->required();
  partition->add_option("N", part->partition.parts, "Number of parts")->required();
  partition->add_option("--order", part->partition.order, "The solver's order, for the element weights")->default_val(1);
  partition->add_option("--seed", part->partition.seed, "METIS's random seed")->default_val(1);
  partition->add_option("--vtu", part->vtu, "Write the mesh with cell fields partition and element (linear cells)");
  partition->add_option("--output,-o", part->output,
                        "Write the partitioned mesh to this directory: per part a Gmsh file of its elements and one layer of "
                        "ghost elements, and the list of their global numbers and owners");
  partition->add_option("--ghost-depth", part->depth,
                        "Rings of ghost elements per part (-o): 1 face ring runs Euler and Navier-Stokes; the limiter and "
                        "vertex-smoothed artificial viscosity need 2 vertex rings")
      ->default_val(1)
      ->check(CLI::PositiveNumber);
  partition->add_option("--ghost-rings", part->rings, "What joins a ring to the next: face or vertex")
      ->default_val("face")
      ->check(CLI::IsMember({"face", "vertex"}));
  partition->add_option("--periodic", part->periodic,
                        "Join a periodic pair before partitioning, as the case's [boundary.NAME] type = \"periodic\" does: "
                        "NAME:PARTNER:dx,dy[,dz] (the case's translation taking NAME onto PARTNER; repeat per pair)");
  partition->callback([part] {
    const Mesh loaded = load_mesh(part->spec);
    Connectivity connectivity = build_connectivity(loaded);
    // periodic pairs, joined as a case joins them: in tag order, each by its lower tag's table
    std::vector<PeriodicPair> periodic;
    {
      struct Join {
        int tag, partner;
        PeriodicPair pair;
      };
      std::vector<Join> joins;
      for (const std::string& text : part->periodic) {
        const auto first = text.find(':'), second = first == std::string::npos ? first : text.find(':', first + 1);
        if (second == std::string::npos)
          throw InputError(cat("--periodic ", text, ": expected NAME:PARTNER:dx,dy[,dz], e.g. left:right:20,0"));
        PeriodicPair pair{text.substr(0, first), text.substr(first + 1, second - first - 1), {}};
        std::vector<double> shift;
        try {
          std::size_t start = second + 1;
          while (start <= text.size()) {
            const auto comma = text.find(',', start);
            shift.push_back(std::stod(text.substr(start, comma - start)));
            if (comma == std::string::npos) break;
            start = comma + 1;
          }
        } catch (const std::exception&) {
          throw InputError(cat("--periodic ", text, ": the translation must be numbers dx,dy[,dz]"));
        }
        if (static_cast<int>(shift.size()) != loaded.dimension)
          throw InputError(cat("--periodic ", text, ": the translation of a ", loaded.dimension, "D mesh has ", loaded.dimension, " numbers"));
        pair.translation = Point3{shift[0], shift[1], loaded.dimension == 3 ? shift[2] : 0.0};
        int tag = loaded.require_tag(pair.name), partner = loaded.require_tag(pair.partner);
        if (partner < tag) {  // the case joins a pair from its lower tag: the translation the other way
          std::swap(tag, partner);
          std::swap(pair.name, pair.partner);
          pair.translation = Point3{-pair.translation.x, -pair.translation.y, -pair.translation.z};
        }
        for (const Join& other : joins)
          if (other.tag == tag || other.partner == tag || other.tag == partner || other.partner == partner)
            throw InputError(cat("--periodic ", text, ": '", loaded.boundary_names[static_cast<std::size_t>(tag)], "' or '",
                                 loaded.boundary_names[static_cast<std::size_t>(partner)], "' is already in a periodic pair"));
        joins.push_back({tag, partner, pair});
      }
      std::sort(joins.begin(), joins.end(), [](const Join& a, const Join& b) { return a.tag < b.tag; });
      for (const Join& join : joins) {
        make_periodic(loaded, connectivity, join.tag, join.partner, join.pair.translation);
        periodic.push_back(join.pair);
      }
    }
    const Partition result = partition_mesh(loaded, connectivity, part->partition);
    const int parts = part->partition.parts;
    std::printf("flowdg: %s in %d parts (METIS k-way, weights at p = %d): imbalance %.4f, %lld cut faces of %lld interior, %s\n",
                loaded.source.c_str(), parts, part->partition.order, result.imbalance, static_cast<long long>(result.cut_faces),
                static_cast<long long>(connectivity.n_interior_faces()),
                result.contiguous ? "every part connected" : "some parts in pieces");
    const double total = [&] {
      double sum = 0;
      for (const double l : result.load) sum += l;
      return sum;
    }();
    for (int p = 0; p < parts; ++p)
      std::printf("  part %d: %lld elements, load %.4f of the mean\n", p, static_cast<long long>(result.elements[static_cast<std::size_t>(p)]),
                  result.load[static_cast<std::size_t>(p)] / (total / parts));
    if (!part->output.empty()) {
      const GhostLayers layers{part->depth, part->rings == "vertex"};
      write_partitioned_mesh(part->output, loaded, connectivity, result.part, parts, layers, periodic);
      std::printf("flowdg: wrote %s/{partition.toml, part_0..%d.msh, .elements} (ghost layers: %s)\n", part->output.c_str(), parts - 1,
                  describe(layers).c_str());
    }
    if (!part->vtu.empty()) {
      std::vector<VtuCellBlock> blocks;
      std::vector<std::int64_t> part_of, element_of;
      for (const Shape shape : {Shape::triangle, Shape::quadrilateral, Shape::tetrahedron, Shape::hexahedron}) {
        VtuCellBlock block;
        block.shape = shape;
        block.order = 1;
        for (index_t e = 0; e < loaded.n_elements(); ++e) {
          if (shape_of(loaded.element_types[static_cast<std::size_t>(e)]) != shape) continue;
          const index_t* nodes = loaded.element_node_ids(e);
          for (int v = 0; v < n_vertices(shape); ++v) block.points.push_back(loaded.nodes[static_cast<std::size_t>(nodes[v])]);
          ++block.n_cells;
          part_of.push_back(result.part[static_cast<std::size_t>(e)]);
          element_of.push_back(e);
        }
        if (block.n_cells > 0) blocks.push_back(std::move(block));
      }
      write_vtu(part->vtu, blocks, {}, {VtuField{"partition", 1, part_of}, VtuField{"element", 1, element_of}}, 0.0,
                VtuCells::lagrange);
      std::printf("flowdg: wrote %s\n", part->vtu.c_str());
    }
  });
}

}  // namespace flowdg::cli
