#pragma once
// `flowdg bench-sipg`: the assembly tables of issue 18 item 4 (the paper's Tables 1-2 and 4-5):
// per degree, precision and assembly way, the time of each kernel per million unknowns, the
// pattern / index time and the whole assembly, the median of several assemblies of one
// discretisation (the device synchronised around each phase); with --parts N, the same per METIS
// part of the agglomerates (issue 19 item 4: the paper's last table, one part per device).
#include <cstdio>
#include <string>
#include <vector>

#include "flowdg/backend/backend.hpp"
#include "flowdg/poly/poly_mesh.hpp"
#include "flowdg/poly/sipg.hpp"

namespace flowdg::poly {

struct SipgBenchOptions {
  std::string mesh;                  ///< a mesh spec (mesh/mesh_info.hpp: load_mesh) of triangles or tetrahedra
  index_t agglomerate = 0;           ///< elements to agglomerate into; 0: every fine simplex is an element
  std::string agglomeration = "metis";  ///< or "bisection"
  SubSimplices sub_simplices = SubSimplices::coarse;
  std::vector<int> degrees{1, 2, 3, 4};
  std::vector<std::string> precisions{"double", "single"};
  std::vector<AssemblyMethod> methods{AssemblyMethod::deterministic, AssemblyMethod::atomic, AssemblyMethod::coo};
  int repeat = 5;
  /// "variable": a(x), b(x), c(x), f(x) sampled at every quadrature point (the paper's general case);
  /// "constant": Poisson's a = I, b = 0, c = 0 (no coefficient arrays).
  std::string coefficients = "variable";
  Backend backend = Backend::cpu;
  /// More than 1: also assemble each of this many METIS parts of the agglomerates (poly_partition:
  /// the owned rows of one rank) one after the other on this device, the first method and
  /// precision only: the largest part's time is what as many devices would take, each assembling
  /// its part (the assembly needs no communication once the parts are set up).
  int parts = 1;
  /// The deterministic way's block reduction (SipgOptions::reduction): "entry" or "block" (A/B).
  SipgOptions::Reduction reduction = SipgOptions::Reduction::per_entry;
};

/// One part's assembly (SipgBenchOptions::parts).
struct SipgPartRow {
  int degree = 1, part = 0;
  index_t owned_elements = 0, held_elements = 0, owned_dofs = 0, nonzeros = 0;
  double setup = 0;  ///< its data to the device (sampling included)
  AssemblyTimes times;  ///< the median over the repeats
};

struct SipgBenchRow {
  int degree = 1;
  std::string precision;
  AssemblyMethod method = AssemblyMethod::deterministic;
  index_t elements = 0, dofs = 0, nonzeros = 0, coo_entries = 0;
  AssemblyTimes times;  ///< the median of each phase over the repeats
};

struct SipgBenchResult {
  std::string mesh, device;
  index_t fine_elements = 0, elements = 0, interior_subfaces = 0, boundary_subfaces = 0, sub_simplices = 0;
  double agglomerate_seconds = 0, build_seconds = 0;
  std::vector<SipgBenchRow> rows;
  int parts = 1;
  double partition_seconds = 0;
  std::vector<SipgPartRow> part_rows;
};

/// Runs the benchmark; progress lines to `log` (may be null). InputError: a bad mesh, degree,
/// precision or agglomeration request.
SipgBenchResult run_sipg_bench(const SipgBenchOptions& options, std::FILE* log);
/// The table: one line per row, times in ms per million unknowns and the totals in ms.
std::string sipg_bench_table(const SipgBenchResult& result);
std::string sipg_bench_json(const SipgBenchResult& result);

}  // namespace flowdg::poly
