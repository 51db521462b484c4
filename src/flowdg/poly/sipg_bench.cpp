#include "flowdg/poly/sipg_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "flowdg/core/error.hpp"
#include "flowdg/io/json.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/mesh_info.hpp"
#include "flowdg/poly/agglomerate.hpp"
#include "flowdg/poly/poly_partition.hpp"

namespace flowdg::poly {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

Coefficients bench_coefficients(const std::string& kind, int d, std::size_t tags) {
  Coefficients co;
  co.dimension = d;
  co.neumann_tag.assign(tags, false);
  const auto pointwise = [](auto f) {
    return [f](std::span<const Point3> x, double* out) {
      for (std::size_t q = 0; q < x.size(); ++q) out[q] = f(x[q]);
    };
  };
  co.source = pointwise([](Point3 p) { return std::sin(3 * p.x) * std::cos(2 * p.y) + p.z; });
  co.dirichlet = pointwise([](Point3 p) { return p.x * p.y; });
  if (kind == "constant") {
    co.constant_diffusion = std::array<double, 9>{1, 0, 0, 0, 1, 0, 0, 0, 1};
    co.constant_advection = std::array<double, 3>{0, 0, 0};
    co.constant_reaction = 0.0;
    return co;
  }
  if (kind != "variable") throw InputError(cat("--coefficients ", kind, ": constant or variable"));
  co.diffusion = [d](std::span<const Point3> x, double* out) {
    for (std::size_t q = 0; q < x.size(); ++q) {
      double* a = out + d * d * q;
      for (int r = 0; r < d * d; ++r) a[r] = 0;
      for (int r = 0; r < d; ++r) a[r * d + r] = 1 + 0.5 * std::sin(x[q].x + r);
    }
  };
  co.advection = [d](std::span<const Point3> x, double* out) {
    for (std::size_t q = 0; q < x.size(); ++q)
      for (int r = 0; r < d; ++r) out[d * q + r] = (r == 0 ? 1.0 : -0.5) + 0.3 * x[q].y;
  };
  co.reaction = pointwise([](Point3 p) { return 1 + p.y * p.y; });
  return co;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

SipgBenchResult run_sipg_bench(const SipgBenchOptions& options, std::FILE* log) {
  if (options.repeat < 1) throw InputError("--repeat must be at least 1");
  for (const std::string& precision : options.precisions)
    if (precision != "double" && precision != "single")
      throw InputError(cat("--precision ", precision, ": double or single"));
  SipgBenchResult result;
  result.mesh = options.mesh;
  result.device = describe(options.backend);
  Mesh mesh = load_mesh(options.mesh);
  const Connectivity connectivity = build_connectivity(mesh);
  result.fine_elements = mesh.n_elements();
  auto start = std::chrono::steady_clock::now();
  std::vector<index_t> assignment(mesh.n_elements());
  if (options.agglomerate == 0) {
    std::iota(assignment.begin(), assignment.end(), index_t(0));
  } else if (options.agglomeration == "metis") {
    assignment = agglomerate_metis(mesh, connectivity, options.agglomerate).agglomerate;
  } else if (options.agglomeration == "bisection") {
    assignment = agglomerate_bisection(mesh, connectivity, options.agglomerate).front().agglomerate;
  } else {
    throw InputError(cat("--agglomeration ", options.agglomeration, ": metis or bisection"));
  }
  result.agglomerate_seconds = seconds_since(start);
  start = std::chrono::steady_clock::now();
  PolyMeshOptions build;
  build.quadrature = options.sub_simplices;
  const PolyMesh poly = build_poly_mesh(mesh, connectivity, assignment, build);
  result.build_seconds = seconds_since(start);
  result.elements = poly.n_elements();
  result.interior_subfaces = poly.n_interior_subfaces();
  result.boundary_subfaces = poly.n_boundary_subfaces();
  result.sub_simplices = poly.quadrature.n_simplices();
  if (log)
    std::fprintf(log, "bench-sipg: %s: %lld fine simplices, %lld elements, %lld sub-simplices (%s), %lld interior and %lld boundary sub-faces\n",
                 options.mesh.c_str(), static_cast<long long>(result.fine_elements), static_cast<long long>(result.elements),
                 static_cast<long long>(result.sub_simplices), sub_simplices_name(options.sub_simplices),
                 static_cast<long long>(result.interior_subfaces), static_cast<long long>(result.boundary_subfaces));
  const Coefficients coefficients = bench_coefficients(options.coefficients, poly.dimension, poly.boundary_names.size());

  for (int p : options.degrees) {
    SipgOptions sipg_options;
    sipg_options.degree = p;
    sipg_options.reduction = options.reduction;
    const SipgDiscretisation sipg(poly, coefficients, sipg_options, options.backend);
    for (const std::string& precision : options.precisions)
      for (AssemblyMethod method : options.methods) {
        SipgBenchRow row;
        row.degree = p;
        row.precision = precision;
        row.method = method;
        row.elements = poly.n_elements();
        row.dofs = sipg.dofs();
        std::vector<AssemblyTimes> runs;
        for (int r = 0; r <= options.repeat; ++r) {  // the first is a warm-up
          AssemblyTimes times;
          if (precision == "double") {
            const auto system = sipg.assemble<double>(method);
            times = system.times;
          } else {
            const auto system = sipg.assemble<float>(method);
            times = system.times;
          }
          row.nonzeros = times.nonzeros;
          row.coo_entries = times.coo_entries;
          if (r > 0) runs.push_back(times);
        }
        const auto pick = [&](double AssemblyTimes::*member) {
          std::vector<double> v;
          for (const AssemblyTimes& t : runs) v.push_back(t.*member);
          return median(v);
        };
        row.times.setup = sipg.setup_seconds();
        for (auto member : {&AssemblyTimes::pattern, &AssemblyTimes::element, &AssemblyTimes::interior, &AssemblyTimes::boundary,
                            &AssemblyTimes::indices, &AssemblyTimes::rhs, &AssemblyTimes::total})
          row.times.*member = pick(member);
        row.times.nonzeros = row.nonzeros;
        row.times.coo_entries = row.coo_entries;
        if (log)
          std::fprintf(log, "  p = %d %s %s: %lld unknowns, %lld nonzeros, total %.3f ms\n", p, precision.c_str(),
                       assembly_method_name(method), static_cast<long long>(row.dofs), static_cast<long long>(row.nonzeros),
                       1e3 * row.times.total);
        result.rows.push_back(row);
      }
  }
  if (options.parts > 1) {
    result.parts = options.parts;
    const index_t n = poly.n_elements();
    start = std::chrono::steady_clock::now();
    const std::vector<int> rank_of = partition_agglomerates(mesh, connectivity, assignment, n, options.parts);
    std::vector<PolyPart> parts;
    std::vector<Connectivity> part_connectivity;
    std::vector<PolyMesh> part_mesh;
    for (int k = 0; k < options.parts; ++k) {
      parts.push_back(extract_poly_part(mesh, connectivity, assignment, n, rank_of, k));
      part_connectivity.push_back(build_connectivity(parts.back().fine));
      part_mesh.push_back(build_poly_mesh(parts.back().fine, part_connectivity.back(), parts.back().agglomerate, build));
    }
    result.partition_seconds = seconds_since(start);
    const std::string precision = options.precisions.front();
    const AssemblyMethod method = options.methods.front() == AssemblyMethod::coo ? AssemblyMethod::deterministic : options.methods.front();
    for (int p : options.degrees)
      for (int k = 0; k < options.parts; ++k) {
        SipgOptions sipg_options;
        sipg_options.reduction = options.reduction;
        sipg_options.degree = p;
        sipg_options.owned_elements = parts[static_cast<std::size_t>(k)].n_owned;
        const Coefficients local = bench_coefficients(options.coefficients, poly.dimension, part_mesh[static_cast<std::size_t>(k)].boundary_names.size());
        const SipgDiscretisation sipg(part_mesh[static_cast<std::size_t>(k)], local, sipg_options, options.backend);
        SipgPartRow row;
        row.degree = p;
        row.part = k;
        row.owned_elements = parts[static_cast<std::size_t>(k)].n_owned;
        row.held_elements = part_mesh[static_cast<std::size_t>(k)].n_elements();
        row.owned_dofs = sipg.owned_dofs();
        row.setup = sipg.setup_seconds();
        std::vector<AssemblyTimes> runs;
        for (int r = 0; r <= options.repeat; ++r) {
          const AssemblyTimes times = precision == "double" ? sipg.assemble<double>(method).times : sipg.assemble<float>(method).times;
          row.nonzeros = times.nonzeros;
          if (r > 0) runs.push_back(times);
        }
        for (auto member : {&AssemblyTimes::pattern, &AssemblyTimes::element, &AssemblyTimes::interior, &AssemblyTimes::boundary,
                            &AssemblyTimes::indices, &AssemblyTimes::rhs, &AssemblyTimes::total}) {
          std::vector<double> v;
          for (const AssemblyTimes& t : runs) v.push_back(t.*member);
          row.times.*member = median(v);
        }
        if (log)
          std::fprintf(log, "  p = %d part %d/%d: %lld owned elements (%lld held), %lld unknowns, total %.3f ms\n", p, k, options.parts,
                       static_cast<long long>(row.owned_elements), static_cast<long long>(row.held_elements),
                       static_cast<long long>(row.owned_dofs), 1e3 * row.times.total);
        result.part_rows.push_back(row);
      }
  }
  return result;
}

std::string sipg_bench_table(const SipgBenchResult& result) {
  std::string out = cat("SIPG assembly on ", result.device, ": ", result.mesh, ", ", result.elements, " elements (",
                        result.fine_elements, " fine simplices), ", result.sub_simplices, " sub-simplices, ",
                        result.interior_subfaces, " interior and ", result.boundary_subfaces, " boundary sub-faces\n");
  out += "ms per million unknowns for the kernels; ms for pattern, indices, total (median of the repeats)\n";
  char line[400];
  std::snprintf(line, sizeof line, "%2s %-6s %-13s %10s %11s %9s %9s %9s %9s %9s %9s %9s %9s\n", "p", "prec", "method", "unknowns",
                "nonzeros", "element", "interior", "boundary", "kernels", "pattern", "indices", "rhs", "total");
  out += line;
  for (const SipgBenchRow& row : result.rows) {
    const double per = 1e3 / (static_cast<double>(row.dofs) / 1e6);
    const AssemblyTimes& t = row.times;
    std::snprintf(line, sizeof line, "%2d %-6s %-13s %10lld %11lld %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f\n", row.degree,
                  row.precision.c_str(), assembly_method_name(row.method), static_cast<long long>(row.dofs),
                  static_cast<long long>(row.nonzeros), per * t.element, per * t.interior, per * t.boundary,
                  per * (t.element + t.interior + t.boundary), 1e3 * t.pattern, 1e3 * t.indices, 1e3 * t.rhs, 1e3 * t.total);
    out += line;
  }
  if (!result.part_rows.empty()) {
    out += cat("\nper part (", result.parts, " METIS parts of the agglomerates, assembled one after the other on this device; ms; "
               "index = pattern + indices, quadrature = element + interior + boundary + rhs; the largest part is what ",
               result.parts, " devices would take)\n");
    std::snprintf(line, sizeof line, "%2s %5s %9s %9s %10s %11s %9s %11s %9s %9s\n", "p", "part", "owned", "held", "unknowns",
                  "nonzeros", "index", "quadrature", "total", "setup");
    out += line;
    for (const SipgPartRow& row : result.part_rows) {
      const AssemblyTimes& t = row.times;
      std::snprintf(line, sizeof line, "%2d %5d %9lld %9lld %10lld %11lld %9.3f %11.3f %9.3f %9.1f\n", row.degree, row.part,
                    static_cast<long long>(row.owned_elements), static_cast<long long>(row.held_elements),
                    static_cast<long long>(row.owned_dofs), static_cast<long long>(row.nonzeros), 1e3 * (t.pattern + t.indices),
                    1e3 * (t.element + t.interior + t.boundary + t.rhs), 1e3 * t.total, 1e3 * row.setup);
      out += line;
    }
  }
  return out;
}

std::string sipg_bench_json(const SipgBenchResult& result) {
  std::vector<std::string> rows;
  for (const SipgBenchRow& row : result.rows) {
    json::Object o;
    o.add_integer("degree", row.degree)
        .add_string("precision", row.precision)
        .add_string("method", assembly_method_name(row.method))
        .add_integer("unknowns", row.dofs)
        .add_integer("nonzeros", row.nonzeros)
        .add_integer("coo_entries", row.coo_entries)
        .add_number("setup_s", row.times.setup)
        .add_number("pattern_s", row.times.pattern)
        .add_number("element_s", row.times.element)
        .add_number("interior_s", row.times.interior)
        .add_number("boundary_s", row.times.boundary)
        .add_number("indices_s", row.times.indices)
        .add_number("rhs_s", row.times.rhs)
        .add_number("total_s", row.times.total);
    rows.push_back(o.str(2));
  }
  json::Object top;
  top.add_string("mesh", result.mesh)
      .add_string("device", result.device)
      .add_integer("fine_elements", result.fine_elements)
      .add_integer("elements", result.elements)
      .add_integer("sub_simplices", result.sub_simplices)
      .add_integer("interior_subfaces", result.interior_subfaces)
      .add_integer("boundary_subfaces", result.boundary_subfaces)
      .add_number("agglomerate_s", result.agglomerate_seconds)
      .add_number("build_s", result.build_seconds)
      .add("rows", json::array(rows));
  std::vector<std::string> part_rows;
  for (const SipgPartRow& row : result.part_rows) {
    json::Object o;
    o.add_integer("degree", row.degree).add_integer("part", row.part).add_integer("owned_elements", row.owned_elements)
        .add_integer("held_elements", row.held_elements).add_integer("unknowns", row.owned_dofs).add_integer("nonzeros", row.nonzeros)
        .add_number("setup_s", row.setup).add_number("pattern_s", row.times.pattern).add_number("element_s", row.times.element)
        .add_number("interior_s", row.times.interior).add_number("boundary_s", row.times.boundary)
        .add_number("indices_s", row.times.indices).add_number("rhs_s", row.times.rhs).add_number("total_s", row.times.total);
    part_rows.push_back(o.str(2));
  }
  top.add_integer("parts", result.parts).add_number("partition_s", result.partition_seconds).add("part_rows", json::array(part_rows));
  return top.str() + "\n";
}

}  // namespace flowdg::poly
