#include "flowdg/cases/case.hpp"
#include "flowdg/cases/multigrid.hpp"

#include "flowdg/cases/distributed.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "flowdg/core/error.hpp"
#include "flowdg/dg/setup.hpp"
#include "flowdg/dg/tuned_triangle_operator.hpp"
#include "flowdg/mesh/curve.hpp"
#include "flowdg/mesh/generators.hpp"
#include "flowdg/mesh/gmsh_writer.hpp"
#include "flowdg/mesh/mesh_info.hpp"
#include "flowdg/mesh/periodic.hpp"
#include "flowdg/mesh/validate.hpp"
#include "flowdg/time/runge_kutta.hpp"

namespace flowdg {

namespace {

/// A point or vector of the mesh's dimension from a TOML array ([x, y] or [x, y, z]).
Point3 read_point(const Config& table, std::string_view key, int dim, Point3 fallback) {
  const auto values = table.get_doubles(key);
  if (!values) return fallback;
  if (static_cast<int>(values->size()) != dim)
    throw InputError(cat(table.where(), " ", key, ": expected ", dim == 3 ? "[x, y, z]" : "[x, y]", " for this ", dim, "D mesh"));
  return {(*values)[0], (*values)[1], dim == 3 ? (*values)[2] : 0.0};
}

/// Density, velocity (u, v[, w]) and pressure of a state table, on top of `fallback`.
void read_state(const Config& table, int dim, physics::FlowSpec& flow) {
  if (dim == 2 && table.has("w")) throw InputError(cat(table.where(), " w: a 2D case has no z-velocity"));
  flow.density = table.double_or("rho", flow.density);
  flow.velocity = {table.double_or("u", flow.velocity.x), table.double_or("v", flow.velocity.y),
                   table.double_or("w", flow.velocity.z)};
  flow.pressure = table.double_or("p", flow.pressure);
  if (!(flow.density > 0 && flow.pressure > 0)) throw InputError(cat(table.where(), ": density and pressure must be positive"));
}

/// [physics]: the equations (euler, navier-stokes) and the free stream's numbers.
void read_physics(const Config& config, Case& problem) {
  const Config table = config.table("physics");
  table.allow_only({"equations", "mach", "angle_of_attack", "lift_axis", "reynolds", "reference_length", "prandtl",
                    "free_stream_temperature", "viscosity"});
  const std::string equations = table.string_or("equations", "euler");
  if (equations != "euler" && equations != "navier-stokes")
    throw InputError(cat(table.where(), " equations: '", equations, "' (valid: euler, navier-stokes)"));
  dg::ViscousOptions& viscous = problem.options.viscous;
  viscous.enabled = equations == "navier-stokes";
  if (!viscous.enabled)
    for (const char* key : {"reynolds", "reference_length", "prandtl", "free_stream_temperature", "viscosity"})
      if (table.has(key))
        throw InputError(cat(table.where(), " ", key, ": a Navier-Stokes setting, but equations = \"euler\" (set equations = ",
                             "\"navier-stokes\")"));
  physics::NavierStokesScales& scales = viscous.scales;
  scales.gamma = problem.options.gamma;
  if (const auto mach = table.get_double("mach")) {
    if (!(*mach > 0)) throw InputError(cat(table.where(), " mach: must be positive"));
    scales.mach = *mach;
    problem.free_stream_mach = *mach;
  } else if (viscous.enabled) {
    throw InputError(cat(table.where(), " mach: required for the Navier-Stokes equations (the free stream's Mach number)"));
  }
  problem.angle_of_attack = table.double_or("angle_of_attack", 0.0);
  const std::string axis = table.string_or("lift_axis", "y");
  if (axis != "y" && axis != "z") throw InputError(cat(table.where(), " lift_axis: '", axis, "' (valid: y, z)"));
  problem.lift_axis = axis == "z" ? 2 : 1;
  if (!viscous.enabled) return;
  const auto reynolds = table.get_double("reynolds");
  if (!reynolds) throw InputError(cat(table.where(), " reynolds: required for the Navier-Stokes equations (on reference_length)"));
  if (!(*reynolds > 0)) throw InputError(cat(table.where(), " reynolds: must be positive"));
  scales.reynolds = *reynolds;
  scales.reference_length = table.double_or("reference_length", 1.0);
  scales.prandtl = table.double_or("prandtl", 0.72);
  scales.free_stream_temperature = table.double_or("free_stream_temperature", 288.15);
  if (!(scales.reference_length > 0 && scales.prandtl > 0 && scales.free_stream_temperature > 0))
    throw InputError(cat(table.where(), ": reference_length, prandtl and free_stream_temperature must be positive"));
  const std::string law = table.string_or("viscosity", "sutherland");
  if (law == "sutherland") {
    scales.law = physics::ViscosityLaw::sutherland;
  } else if (law == "constant") {
    scales.law = physics::ViscosityLaw::constant;
  } else {
    throw InputError(cat(table.where(), " viscosity: '", law, "' (valid: sutherland, constant)"));
  }
}

physics::FlowSpec read_flow(const Config& config, const Case& problem, int dim, double gamma) {
  const Config table = config.table("flow");
  table.allow_only({"kind", "rho", "u", "v", "w", "p", "strength", "center", "mach_inner", "r_inner", "height", "wall_temperatures"});
  physics::FlowSpec flow;
  const std::string kind = table.string_or("kind", "uniform");
  if (kind == "free-stream") {
    // rho = 1, |v| = 1 at the angle of attack (in the x-y plane, or x-z with lift_axis z), p = 1 / (gamma M^2).
    if (!problem.free_stream_mach)
      throw InputError(cat(table.where(), " kind: 'free-stream' needs [physics] mach"));
    for (const char* key : {"rho", "u", "v", "w", "p"})
      if (table.has(key)) throw InputError(cat(table.where(), " ", key, ": a free stream is set by [physics] mach and angle_of_attack"));
    const double alpha = problem.angle_of_attack * 3.14159265358979323846 / 180.0;
    flow.kind = physics::FlowKind::uniform;
    flow.density = 1.0;
    flow.velocity = problem.lift_axis == 2 ? Point3{std::cos(alpha), 0.0, std::sin(alpha)} : Point3{std::cos(alpha), std::sin(alpha), 0.0};
    flow.pressure = 1.0 / (gamma * *problem.free_stream_mach * *problem.free_stream_mach);
    physics::check_supported(flow, dim, gamma);
    return flow;
  }
  if (kind == "couette") {
    if (!problem.options.viscous.enabled)
      throw InputError(cat(table.where(), " kind: 'couette' is a viscous flow (set [physics] equations = \"navier-stokes\")"));
    flow.kind = physics::FlowKind::couette;
    flow.velocity = {table.double_or("u", 1.0), 0.0, 0.0};
    flow.mach = problem.options.viscous.scales.mach;
    flow.prandtl = problem.options.viscous.scales.prandtl;
    flow.height = table.double_or("height", flow.height);
    if (const auto temperatures = table.get_doubles("wall_temperatures")) {
      if (temperatures->size() != 2)
        throw InputError(cat(table.where(), " wall_temperatures: expected [lower, upper] (T / T_inf at y = 0 and y = height)"));
      flow.wall_temperature[0] = (*temperatures)[0];
      flow.wall_temperature[1] = (*temperatures)[1];
    }
    if (problem.options.viscous.scales.law != physics::ViscosityLaw::constant)
      throw InputError(cat(table.where(), " kind: the Couette solution is exact for constant viscosity (set [physics] viscosity = ",
                           "\"constant\")"));
    physics::check_supported(flow, dim, gamma);
    return flow;
  }
  if (kind == "uniform") {
    flow.kind = physics::FlowKind::uniform;
  } else if (kind == "isentropic-vortex") {
    flow.kind = physics::FlowKind::isentropic_vortex;
  } else if (kind == "supersonic-vortex") {
    flow.kind = physics::FlowKind::supersonic_vortex;
  } else if (kind == "double-mach") {
    flow.kind = physics::FlowKind::double_mach;
  } else {
    throw InputError(cat(table.where(), " kind: unknown flow '", kind,
                         "' (valid: uniform, free-stream, isentropic-vortex, supersonic-vortex, double-mach, couette)"));
  }
  read_state(table, dim, flow);
  flow.strength = table.double_or("strength", flow.strength);
  flow.center = read_point(table, "center", dim, flow.center);
  flow.mach_inner = table.double_or("mach_inner", flow.mach_inner);
  flow.r_inner = table.double_or("r_inner", flow.r_inner);
  physics::check_supported(flow, dim, gamma);
  return flow;
}

/// The physics' names (physics::parse_boundary_kind: one list for the library and the case files);
/// periodic is the case file's own (a join of two tags, not a condition).
physics::BoundaryKind parse_boundary_kind(const std::string& name, const std::string& where) {
  try {
    return physics::parse_boundary_kind(name);
  } catch (const InputError& error) {
    throw InputError(cat(where, " type: ", error.what(), "; or periodic"));
  }
}

/// [artificial_viscosity]: Persson & Peraire's shock capturing for the 3D Euler equations
/// (physics/euler/artificial_viscosity.hpp): enabled (default true when the table is there),
/// epsilon0, kappa, s0 or s0_offset, smoothing.
void read_artificial_viscosity(const Config& config, Case& problem) {
  if (!config.has("artificial_viscosity")) return;
  const Config table = config.table("artificial_viscosity");
  table.allow_only({"enabled", "epsilon0", "kappa", "s0", "s0_offset", "smoothing"});
  dg::ArtificialViscosityOptions& av = problem.options.artificial_viscosity;
  av.enabled = table.bool_or("enabled", true);
  if (!av.enabled) return;
  if (problem.options.viscous.enabled)
    throw InputError(cat(table.where(), ": artificial viscosity is for the Euler equations ([physics] equations = \"euler\")"));
  if (problem.mesh.dimension != 3)
    throw InputError(cat(table.where(), ": artificial viscosity runs on 3D meshes; ", problem.mesh.source, " is ", problem.mesh.dimension,
                         "D (2D triangle meshes have [solver] limiter = \"barth-jespersen\")"));
  av.epsilon0 = table.double_or("epsilon0", av.epsilon0);
  av.kappa = table.double_or("kappa", av.kappa);
  if (!(av.epsilon0 > 0 && av.epsilon0 <= 10)) throw InputError(cat(table.where(), " epsilon0: must be in (0, 10] (got ", av.epsilon0, ")"));
  if (!(av.kappa > 0 && av.kappa <= 20)) throw InputError(cat(table.where(), " kappa: must be in (0, 20] (got ", av.kappa, ")"));
  if (const auto s0 = table.get_double("s0")) {
    if (!(*s0 <= 0 && *s0 >= -20)) throw InputError(cat(table.where(), " s0: must be in [-20, 0], a log10 (got ", *s0, ")"));
    av.s0 = *s0;
  }
  if (const auto offset = table.get_double("s0_offset")) {
    if (!std::isnan(av.s0))
      throw InputError(cat(table.where(), ": s0 and s0_offset: give one (s0 fixes the threshold at every order, s0_offset sets it at ",
                           "log10(1 / p^4) + s0_offset at each order p)"));
    if (!(*offset <= 0 && *offset >= -10))
      throw InputError(cat(table.where(), " s0_offset: must be in [-10, 0], decades from the paper's log10(1 / p^4) (got ", *offset, ")"));
    av.s0_offset = *offset;
  }
  const std::string smoothing = table.string_or("smoothing", "none");
  if (smoothing == "none")
    av.smoothing = physics::ViscositySmoothing::none;
  else if (smoothing == "vertex-max")
    av.smoothing = physics::ViscositySmoothing::vertex_max;
  else if (smoothing == "vertex-mean")
    av.smoothing = physics::ViscositySmoothing::vertex_mean;
  else
    throw InputError(cat(table.where(), " smoothing: unknown '", smoothing,
                         "' (valid: none: constant per element; vertex-max, vertex-mean: a continuous field through the vertices)"));
}

std::string resolve_mesh_path(const std::string& spec, const std::string& directory) {
  if (spec.rfind("builtin:", 0) == 0 || directory.empty() || std::filesystem::path(spec).is_absolute()) return spec;
  const auto relative = std::filesystem::path(directory) / spec;
  return std::filesystem::exists(relative) ? relative.string() : spec;
}

std::string tag_list(const Mesh& mesh) {
  std::string all;
  for (const auto& tag : mesh.boundary_names) all += (all.empty() ? "" : ", ") + tag;
  return all;
}

void read_solver(const Config& config, Case& problem) {
  const Config solver = config.table("solver");
  solver.allow_only({"order", "flux", "gamma", "limiter", "limit_variables", "positivity", "precision", "kernels", "br2_eta",
                     "element_kernel", "face_kernel", "lifting_kernel", "halo_overlap", "chained_launches", "volume_quadrature"});
  dg::OperatorOptions& options = problem.options;
  options.order = static_cast<int>(solver.integer_or("order", 1));
  try {
    options.volume_degree_shift = dg::parse_volume_quadrature(solver.string_or("volume_quadrature", "2p"));
  } catch (const InputError& error) {
    throw InputError(cat(solver.where(), " ", error.what()));
  }
  options.flux = physics::parse_riemann_kind(solver.string_or("flux", "hllc"));
  options.gamma = solver.double_or("gamma", 1.4);
  options.viscous.eta = solver.double_or("br2_eta", 0.0);
  if (!(options.viscous.eta >= 0))
    throw InputError(cat(solver.where(), " br2_eta: must be positive (0, the default: the element's number of faces)"));
  if (!(options.gamma > 1.0)) throw InputError(cat(solver.where(), " gamma: must be > 1"));
  const std::string limiter = solver.string_or("limiter", "none");
  if (limiter == "barth-jespersen") {
    options.limiter = dg::Limiter::barth_jespersen;
  } else if (limiter != "none") {
    throw InputError(cat(solver.where(), " limiter: unknown limiter '", limiter, "' (valid: none, barth-jespersen)"));
  }
  options.positivity = solver.bool_or("positivity", false);
  options.halo_overlap = solver.bool_or("halo_overlap", true);
  options.chained_launches = solver.bool_or("chained_launches", true);
  const std::string variables = solver.string_or("limit_variables", "conserved");
  if (variables != "conserved" && variables != "characteristic")
    throw InputError(cat(solver.where(), " limit_variables: '", variables, "' (valid: conserved, characteristic)"));
  options.characteristic_limiting = variables == "characteristic";
  const std::string precision = solver.string_or("precision", "double");
  if (precision == "double") {
    options.precision = dg::Precision::double_precision;
  } else if (precision == "single") {
    options.precision = dg::Precision::single_precision;
  } else {
    throw InputError(cat(solver.where(), " precision: '", precision, "' (valid: double, single)"));
  }
  // The CUDA variants of the portable kernels (A/B measurements; names checked by the operator).
  options.element_kernel = solver.string_or("element_kernel", "automatic");
  options.face_kernel = solver.string_or("face_kernel", "automatic");
  options.lifting_kernel = solver.string_or("lifting_kernel", "automatic");
  const std::string kernels = solver.string_or("kernels", "automatic");
  if (kernels == "automatic") {
    options.implementation = dg::Implementation::automatic;
  } else if (kernels == "portable") {
    options.implementation = dg::Implementation::portable;
  } else if (kernels == "tuned") {
    options.implementation = dg::Implementation::tuned;
  } else {
    throw InputError(cat(solver.where(), " kernels: '", kernels, "' (valid: automatic, portable, tuned)"));
  }
}

/// [mesh.curve]: the straight mesh curved by linear elasticity before the run (mesh/curve.hpp),
/// the same settings as `flowdg mesh curve`; `output` also writes the curved mesh (Gmsh MSH 2.2).
void curve_case_mesh(const Config& config, const Config& table, Case& problem) {
  table.allow_only({"walls", "order", "poisson", "layers", "box", "sliding", "output"});
  const auto walls = table.get_strings("walls");
  if (!walls || walls->empty())
    throw InputError(cat(table.where(), " walls: give the walls and their shapes, e.g. walls = [\"sphere=sphere:0,0,0,0.5\"]"));
  std::vector<TrueSurface> surfaces;
  for (const std::string& text : *walls) {
    try {
      surfaces.push_back(parse_true_surface(text));
      if (surfaces.back().kind == TrueSurface::Kind::cad)  // a CAD file is found beside the case file
        surfaces.back().file = resolve_mesh_path(surfaces.back().file, config.directory());
    } catch (const InputError& error) {
      throw InputError(cat(table.where(), " walls: ", error.what()));
    }
  }
  CurvingOptions options;
  // The geometry's order follows the solver's (clamped to 2..4) unless given.
  const long long solver_order = config.table("solver").integer_or("order", 1);
  options.order = static_cast<int>(table.integer_or("order", std::clamp<long long>(solver_order, 2, 4)));
  if (options.order == 1) {  // the straight mesh as it is: the switch for comparing with the curved one
    problem.notes.push_back("[mesh.curve] order = 1: the mesh is not curved");
    return;
  }
  options.poisson = table.double_or("poisson", options.poisson);
  options.layers = static_cast<int>(table.integer_or("layers", 0));
  if (options.layers < 0) throw InputError(cat(table.where(), " layers: must be >= 0 (0: every element)"));
  if (const auto box = table.get_doubles("box")) {
    if (box->size() != 6) throw InputError(cat(table.where(), " box: six numbers [x0, y0, z0, x1, y1, z1]"));
    options.box = std::make_pair(Point3{(*box)[0], (*box)[1], (*box)[2]}, Point3{(*box)[3], (*box)[4], (*box)[5]});
  }
  if (const auto sliding = table.get_strings("sliding")) options.sliding = *sliding;
  CurvingReport report;
  problem.mesh = curve_mesh(problem.mesh, surfaces, options, &report);
  char numbers[96];
  std::snprintf(numbers, sizeof numbers, "walls moved up to %.3g); min det J / det J_straight %.4f", report.largest_wall_move,
                report.min_scaled_jacobian);
  problem.notes.push_back(cat("curved ", report.curved_elements, " elements to geometric order ", options.order, " (", report.unknowns,
                              " unknowns; ", numbers));
  if (const auto output = table.get_string("output")) write_gmsh(problem.mesh, resolve_mesh_path(*output, config.directory()));
}

/// A partitioned mesh's directory: this rank's part (load_case's communicator).
void read_mesh_part_of(const Config& mesh_table, const std::string& directory, const std::shared_ptr<const Communicator>& communicator,
                       Case& problem) {
  const bool changed[] = {mesh_table.integer_or("refine", 0) != 0, mesh_table.has("curve"), mesh_table.string_or("reorder", "none") != "none"};
  const char* keys[] = {"refine", "curve", "reorder"};
  for (int i = 0; i < 3; ++i)
    if (const char* key = keys[i]; changed[i])
      throw InputError(cat(mesh_table.where(), " ", key, ": ", directory, " is a partitioned mesh; ", key,
                           " the whole mesh before partitioning it (flowdg mesh partition)"));
  const PartitionedMeshInfo info = read_partitioned_mesh_info(directory);
  const std::shared_ptr<const Communicator> ranks = communicator != nullptr ? communicator : serial_communicator();
  if (info.parts != ranks->size())
    throw InputError(cat(directory, " is partitioned into ", info.parts, " parts: run it on as many ranks (mpirun -np ", info.parts,
                         " flowdg run ...), not ", ranks->size()));
  MeshPart held = read_mesh_part(directory, ranks->rank());
  Connectivity connectivity;
  validate_or_throw(held.mesh, &connectivity);
  problem.connectivity = std::move(connectivity);
  adopt_part(problem, std::move(held), ranks, info.elements, info.mesh_hash, info.source.empty() ? directory : info.source,
             cat("the partitioned mesh ", directory));
  if (!info.periodic.empty()) {
    auto parallel = std::make_shared<Parallel>(*problem.parallel);
    parallel->periodic_joined = info.periodic;
    problem.parallel = std::move(parallel);
  }
}

void read_mesh(const Config& config, Case& problem, const std::shared_ptr<const Communicator>& communicator) {
  const Config mesh_table = config.table("mesh");
  mesh_table.allow_only({"file", "refine", "reorder", "curve"});
  const std::string spec = resolve_mesh_path(mesh_table.require_string("file"), config.directory());
  if (!spec.starts_with("builtin:") && std::filesystem::is_directory(spec)) {
    read_mesh_part_of(mesh_table, spec, communicator, problem);
    return;
  }
  problem.mesh = load_mesh(spec);
  const long long refine = mesh_table.integer_or("refine", 0);
  if (refine < 0 || refine > 12) throw InputError(cat(mesh_table.where(), " refine: ", refine, " is out of range (0..12)"));
  for (long long level = 0; level < refine; ++level) problem.mesh = refine_uniform(problem.mesh);
  if (mesh_table.has("curve")) curve_case_mesh(config, mesh_table.table("curve"), problem);
  // Validation builds the connectivity anyway; it is kept unless the elements are renumbered.
  validate_or_throw(problem.mesh, &problem.connectivity);
  const std::string reorder = mesh_table.string_or("reorder", "none");
  if (reorder != "none") problem.connectivity = Connectivity();  // its memory back before the renumbering
  if (reorder == "rcm") {
    reorder_elements(problem.mesh, ElementOrdering::reverse_cuthill_mckee);
  } else if (reorder == "hilbert") {
    reorder_elements(problem.mesh, ElementOrdering::hilbert);
  } else if (reorder != "none") {
    throw InputError(cat(mesh_table.where(), " reorder: unknown ordering '", reorder, "' (valid: none, rcm, hilbert)"));
  }
  if (reorder != "none") problem.connectivity = build_connectivity(problem.mesh);
}

void read_boundaries(const Config& config, Case& problem) {
  const int dim = problem.mesh.dimension;
  const Config boundary = config.table("boundary");
  for (const std::string& name : boundary.keys())
    if (problem.mesh.find_tag(name) < 0)
      throw InputError(cat(boundary.where(), ": boundary '", name, "' is not a boundary tag of the mesh ", problem.mesh.source,
                           " (its tags: ", tag_list(problem.mesh), ")"));
  problem.options.boundary.resize(problem.mesh.boundary_names.size());
  std::vector<bool> periodic_done(problem.mesh.boundary_names.size(), false);
  for (std::size_t tag = 0; tag < problem.mesh.boundary_names.size(); ++tag) {
    const std::string& name = problem.mesh.boundary_names[tag];
    if (problem.parallel != nullptr && name == ghost_boundary_name) continue;  // a part's ghost layer (adopt_part set it)
    const bool has_faces = problem.connectivity.tag_offsets[tag + 1] > problem.connectivity.tag_offsets[tag];
    if (!boundary.has(name)) {
      if (has_faces)
        throw InputError(cat(config.where(), ": boundary tag '", name, "' of the mesh has no condition (add a [boundary.", name,
                             "] table with a type)"));
      continue;
    }
    const Config table = boundary.table(name);
    table.allow_only({"type", "state", "center", "partner", "translation", "wall_velocity", "wall_temperature"});
    const std::string type = table.require_string("type");
    if (type == "periodic") {
      if (periodic_done[tag]) continue;
      const std::string partner = table.require_string("partner");
      const int partner_tag = problem.mesh.require_tag(partner);
      auto translation = table.get_doubles("translation");
      if (!translation || static_cast<int>(translation->size()) != dim)
        throw InputError(cat(table.where(), " translation: expected ", dim == 3 ? "[dx, dy, dz]" : "[dx, dy]", " taking '", name,
                             "' onto '", partner, "'"));
      const Point3 shift{(*translation)[0], (*translation)[1], dim == 3 ? (*translation)[2] : 0.0};
      if (problem.parallel != nullptr) {
        // a partitioned mesh's directory: its parts hold the joins already, made with these pairs
        bool joined = false;
        for (const PeriodicPair& pair : problem.parallel->periodic_joined)
          joined = joined || (pair.name == name && pair.partner == partner && pair.translation.x == shift.x && pair.translation.y == shift.y &&
                              pair.translation.z == shift.z);
        if (!joined)
          throw InputError(cat(table.where(), ": the partitioned mesh ", problem.parallel->mesh_source, " was not partitioned with '", name,
                               "' joined onto '", partner, "' by this translation: partition it with flowdg mesh partition ... --periodic ",
                               name, ":", partner, ":", shift.x, ",", shift.y, dim == 3 ? cat(",", shift.z) : std::string(),
                               " (each pair of the case once), or run the whole mesh with mpirun"));
      } else {
        make_periodic(problem.mesh, problem.connectivity, static_cast<int>(tag), partner_tag, shift);
      }
      periodic_done[tag] = periodic_done[partner_tag] = true;
      // The vortex wraps to its nearest image across a periodic direction.
      if (problem.initial.kind == physics::FlowKind::isentropic_vortex) {
        if (shift.x != 0) problem.initial.period.x = std::fabs(shift.x);
        if (shift.y != 0) problem.initial.period.y = std::fabs(shift.y);
        if (shift.z != 0) problem.initial.period.z = std::fabs(shift.z);
      }
      continue;
    }
    if (periodic_done[tag])
      throw InputError(cat(table.where(), ": '", name, "' is the partner of a periodic boundary; its type must be periodic too"));
    dg::BoundarySpec& condition = problem.options.boundary[tag];
    condition.kind = parse_boundary_kind(type, table.where());
    try {
      physics::check_supported(condition.kind, dim, problem.options.viscous.enabled);
    } catch (const InputError& error) {
      throw InputError(cat(table.where(), ": ", error.what()));
    }
    const bool no_slip = condition.kind == physics::BoundaryKind::no_slip_wall || condition.kind == physics::BoundaryKind::isothermal_wall;
    if (!no_slip && table.has("wall_velocity"))
      throw InputError(cat(table.where(), " wall_velocity: only no-slip walls (no-slip-wall, isothermal-wall) move"));
    condition.wall_velocity = read_point(table, "wall_velocity", dim, {});
    if (condition.kind == physics::BoundaryKind::isothermal_wall) {
      const auto temperature = table.get_double("wall_temperature");
      if (!temperature)
        throw InputError(cat(table.where(), " wall_temperature: an isothermal wall needs its temperature (T_w / T_inf)"));
      if (!(*temperature > 0)) throw InputError(cat(table.where(), " wall_temperature: must be positive"));
      condition.wall_temperature = *temperature;
    } else if (table.has("wall_temperature")) {
      throw InputError(cat(table.where(), " wall_temperature: only an isothermal wall has a temperature (type = \"isothermal-wall\")"));
    }
    condition.flow = problem.initial;
    if (table.has("state")) {
      const Config state = table.table("state");
      state.allow_only({"rho", "u", "v", "w", "p"});
      condition.flow.kind = physics::FlowKind::uniform;
      read_state(state, dim, condition.flow);
    }
    if (condition.kind == physics::BoundaryKind::curvature_wall) {
      if (table.has("center")) {
        condition.center = read_point(table, "center", dim, {});
      } else {
        bool found = false;
        for (const BoundaryCircle& circle : problem.mesh.boundary_circles)
          if (circle.tag == static_cast<int>(tag)) {
            condition.center = circle.center;
            found = true;
          }
        if (!found)
          throw InputError(cat(table.where(), ": a curvature wall needs the circle's center = [x, y] (the mesh does not record one)"));
      }
    }
  }
  // A later periodic join may have changed the vortex's periods: boundary flows follow the initial one.
  for (dg::BoundarySpec& condition : problem.options.boundary)
    if (condition.flow.kind == problem.initial.kind) condition.flow.period = problem.initial.period;
}

}  // namespace

Case load_case(const Config& config, Backend backend, std::shared_ptr<const Communicator> communicator) {
  config.allow_only({"case", "mesh", "physics", "flow", "solver", "time", "boundary", "output", "forces", "artificial_viscosity"});
  Case problem;
  problem.toml = config.to_toml();
  const Config case_table = config.table("case");
  case_table.allow_only({"name"});
  problem.name = case_table.string_or("name", "unnamed");
  problem.source = config.where();
  problem.options.backend = backend;

  read_solver(config, problem);
  read_physics(config, problem);
  read_mesh(config, problem, communicator);
  const int dim = problem.mesh.dimension;
  if (problem.lift_axis == 2 && dim != 3)
    throw InputError(cat(config.table("physics").where(), " lift_axis: \"z\" is for 3D meshes (a 2D flow turns in the x-y plane)"));
  const bool viscous = problem.options.viscous.enabled;
  read_artificial_viscosity(config, problem);
  const bool artificial_viscosity = problem.options.artificial_viscosity.enabled;
  if (viscous && problem.options.precision != dg::Precision::double_precision)
    throw InputError(cat(config.table("solver").where(), " precision: the Navier-Stokes equations run in double precision only"));
  if (viscous && (problem.options.limiter != dg::Limiter::none || problem.options.positivity))
    throw InputError(cat(config.table("solver").where(), ": the limiter and the positivity scaling are for the Euler equations"));
  const int highest = dg::core_max_order(dim, problem.options.precision, viscous, artificial_viscosity);
  if (problem.options.order < 0 || problem.options.order > highest)
    throw InputError(cat(config.table("solver").where(), " order: ", problem.options.order, " is out of range (0..", highest, ")"));
  // What only the tuned triangle kernels have, refused now rather than at set-up.
  const bool triangles_only = dg::tuned_triangles_apply(problem.mesh, problem.options);
  if (!triangles_only && (problem.options.limiter != dg::Limiter::none || problem.options.positivity))
    throw InputError(cat(config.table("solver").where(), ": the limiter and the positivity scaling run on double-precision meshes of",
                         " straight-sided triangles only; ", problem.mesh.source, " is not one (set limiter = \"none\" and",
                         " positivity = false)"));
  if (problem.options.implementation == dg::Implementation::tuned) {
    bool triangles = problem.mesh.dimension == 2 && problem.options.precision == dg::Precision::double_precision;
    if (triangles) {
      triangles = false;
      for (index_t e = 0; e < problem.mesh.n_elements() && !triangles; ++e)
        triangles = problem.mesh.element_shape(e) == Shape::triangle;
    }
    if (!triangles)
      throw InputError(cat(config.table("solver").where(), " kernels: the tuned kernels run the straight-sided triangles of",
                           " double-precision 2D meshes only; ", problem.mesh.source, " has none (use \"automatic\" or \"portable\")"));
  }
  problem.initial = read_flow(config, problem, dim, problem.options.gamma);
  read_boundaries(config, problem);
  // Errors are measured against the [flow]: the exact solution for the built-in vortices, the
  // free stream for a uniform flow (free-stream preservation). The double Mach flow is only the
  // initial and boundary data.
  problem.has_exact = problem.initial.kind != physics::FlowKind::double_mach;

  const Config time = config.table("time");
  time.allow_only({"scheme", "cfl", "dt", "dt_every", "end_time", "max_steps", "steady_tolerance", "steady_every", "progress_every",
                   "residual_every", "residual_tolerance", "local_time_step", "p_continuation", "p_continuation_tolerance",
                   "p_continuation_steps", "cfl_start", "cfl_ramp_steps", "p_multigrid", "p_multigrid_steps",
                   "p_multigrid_cfl"});
  problem.time.scheme = time.string_or("scheme", problem.time.scheme);
  (void)runge_kutta_scheme(problem.time.scheme);  // validates the name now
  problem.time.cfl = time.double_or("cfl", problem.time.cfl);
  problem.time.fixed_dt = time.get_double("dt");
  problem.time.dt_every = time.integer_or("dt_every", 1);
  problem.time.end_time = time.double_or("end_time", problem.time.end_time);
  problem.time.max_steps = time.integer_or("max_steps", problem.time.max_steps);
  problem.time.steady_tolerance = time.double_or("steady_tolerance", 0.0);
  problem.time.steady_every = time.integer_or("steady_every", 1);
  if (problem.time.steady_every < 1) throw InputError(cat(time.where(), " steady_every: must be >= 1 (steps between steady-state checks)"));
  if (time.get_double("steady_every") && !(problem.time.steady_tolerance > 0))
    throw InputError(cat(time.where(), " steady_every: needs steady_tolerance (the check it spaces out)"));
  problem.time.residual_tolerance = time.double_or("residual_tolerance", 0.0);
  problem.time.p_continuation_tolerance = time.double_or("p_continuation_tolerance", 0.0);
  problem.time.p_continuation_steps = time.integer_or("p_continuation_steps", -1);
  problem.time.residual_every =
      time.integer_or("residual_every", problem.time.residual_tolerance > 0 || problem.time.p_continuation_tolerance > 0 ? 10 : 0);
  if (problem.time.residual_every < 0) throw InputError(cat(time.where(), " residual_every: must be >= 0 (0: no residual monitor)"));
  if (problem.time.residual_tolerance < 0) throw InputError(cat(time.where(), " residual_tolerance: must be >= 0"));
  if (problem.time.residual_tolerance > 0 && problem.time.residual_every == 0)
    throw InputError(cat(time.where(), " residual_tolerance: needs the monitor (residual_every > 0)"));
  if (const auto orders = time.get_doubles("p_continuation")) {
    for (const double value : *orders) {
      const int order = static_cast<int>(value);
      if (order != value || order < 0 || order >= problem.options.order)
        throw InputError(cat(time.where(), " p_continuation: ", value, " is not an order below [solver] order = ", problem.options.order,
                             " (the orders run before it, lowest first, e.g. [1, 2] before 3)"));
      if (!problem.time.p_continuation.empty() && order <= problem.time.p_continuation.back())
        throw InputError(cat(time.where(), " p_continuation: the orders must rise (", problem.time.p_continuation.back(), " then ", order, ")"));
      problem.time.p_continuation.push_back(order);
    }
    // An empty list switches it off (--set time.p_continuation=[] on a case file that has one).
    if (!problem.time.p_continuation.empty() && problem.time.p_continuation_tolerance <= 0 && problem.time.p_continuation_steps < 0)
      throw InputError(cat(time.where(), " p_continuation: say when to raise the order: p_continuation_tolerance (the residual ",
                           "monitor's largest L2 norm) and/or p_continuation_steps (steps at each order)"));
    if (!problem.time.p_continuation.empty() && problem.time.p_continuation_tolerance > 0 && problem.time.residual_every == 0)
      throw InputError(cat(time.where(), " p_continuation_tolerance: needs the residual monitor (residual_every > 0)"));
  } else if (time.get_double("p_continuation_tolerance") || time.get_double("p_continuation_steps")) {
    throw InputError(cat(time.where(), " p_continuation_tolerance and p_continuation_steps need p_continuation (the orders to run first)"));
  }
  if (problem.time.p_continuation_tolerance < 0) throw InputError(cat(time.where(), " p_continuation_tolerance: must be >= 0"));
  if (time.get_double("p_continuation_steps") && problem.time.p_continuation_steps < 1)
    throw InputError(cat(time.where(), " p_continuation_steps: must be >= 1"));
  if (const auto orders = time.get_doubles("p_multigrid"); orders && !orders->empty()) {
    // (an empty list switches it off: --set time.p_multigrid=[] on a case file that has one)
    MultigridCycle cycle;
    for (const double value : *orders) {
      if (value != std::floor(value) || value < 0 || value > problem.options.order)
        throw InputError(cat(time.where(), " p_multigrid: ", value, " is not an order in [0, ", problem.options.order, "]"));
      cycle.orders.push_back(static_cast<int>(value));
    }
    if (const auto steps = time.get_doubles("p_multigrid_steps")) {
      for (const double value : *steps) {
        if (value != std::floor(value) || value < 0)
          throw InputError(cat(time.where(), " p_multigrid_steps: ", value, " is not a number of steps (an integer >= 0)"));
        cycle.steps.push_back(static_cast<long long>(value));
      }
    } else {
      cycle.steps.assign(cycle.orders.size(), 1);
    }
    if (const auto cfl = time.get_doubles("p_multigrid_cfl")) cycle.cfl = *cfl;
    if (const std::string why = check_multigrid_cycle(cycle, problem.options.order); !why.empty())
      throw InputError(cat(time.where(), " p_multigrid: ", why, " (e.g. p_multigrid = [3, 2, 1, 0, 1, 2, 3])"));
    if (std::isfinite(problem.time.end_time) || problem.time.fixed_dt)
      throw InputError(cat(time.where(), " p_multigrid: a steady-state accelerator (each level takes steps of its own size, ",
                           "time is not followed): stop the run with max_steps, steady_tolerance or residual_tolerance, not end_time or dt"));
    if (problem.options.limiter != dg::Limiter::none || problem.options.positivity)
      throw InputError(cat(time.where(), " p_multigrid: runs without the limiter and the positivity scaling"));
    problem.options.implementation = dg::Implementation::portable;
    problem.time.p_multigrid = cycle.orders;
    problem.time.p_multigrid_steps = cycle.steps;
    problem.time.p_multigrid_cfl = cycle.cfl;
  } else if ((time.has("p_multigrid_steps") || time.has("p_multigrid_cfl")) && !time.has("p_multigrid")) {
    throw InputError(cat(time.where(), " p_multigrid_steps and p_multigrid_cfl need p_multigrid (the orders of the cycle)"));
  }
  problem.time.progress_every = time.integer_or("progress_every", 0);
  problem.time.local_time_step = time.bool_or("local_time_step", false);
  if (problem.time.local_time_step) {
    // A steady-state accelerator: not time-accurate, and the tuned triangle kernels take one dt.
    if (std::isfinite(problem.time.end_time) || problem.time.fixed_dt)
      throw InputError(cat(time.where(), " local_time_step: each element takes its own step, so time is not followed: stop the run ",
                           "with max_steps, steady_tolerance or residual_tolerance, not end_time or dt"));
    if (problem.options.implementation == dg::Implementation::tuned || problem.options.limiter != dg::Limiter::none ||
        problem.options.positivity)
      throw InputError(cat(time.where(), " local_time_step: runs the portable kernels, without the limiter and the positivity ",
                           "scaling (tuned triangle kernels only)"));
    problem.options.implementation = dg::Implementation::portable;
  }
  if (!(problem.time.cfl > 0)) throw InputError(cat(time.where(), " cfl: must be positive"));
  problem.time.cfl_ramp_steps = time.integer_or("cfl_ramp_steps", 0);
  problem.time.cfl_start = time.double_or("cfl_start", problem.time.cfl);
  if (problem.time.cfl_ramp_steps < 0) throw InputError(cat(time.where(), " cfl_ramp_steps: must be >= 0 (0: no ramp)"));
  if (time.get_double("cfl_start") && problem.time.cfl_ramp_steps == 0)
    throw InputError(cat(time.where(), " cfl_start: needs cfl_ramp_steps (the steps over which the CFL number rises to cfl)"));
  if (!(problem.time.cfl_start > 0 && problem.time.cfl_start <= problem.time.cfl))
    throw InputError(cat(time.where(), " cfl_start: must be in (0, cfl] (got ", problem.time.cfl_start, ")"));
  if (problem.time.cfl_ramp_steps > 0 && problem.time.fixed_dt)
    throw InputError(cat(time.where(), " cfl_ramp_steps: the step is fixed by dt; a ramp needs cfl"));
  if (problem.time.fixed_dt && !(*problem.time.fixed_dt > 0)) throw InputError(cat(time.where(), " dt: must be positive"));
  if (problem.time.dt_every < 1) throw InputError(cat(time.where(), " dt_every: must be >= 1"));
  if (std::isinf(problem.time.end_time) && problem.time.max_steps < 0 && problem.time.steady_tolerance <= 0 &&
      problem.time.residual_tolerance <= 0)
    throw InputError(cat(time.where(), ": give end_time, max_steps, steady_tolerance or residual_tolerance, or the run never ends"));

  // A viscous wall that bends (its facets not all parallel) on straight-sided elements: the wall is
  // a polygon, and its corners spoil the boundary layer whatever the order (Bassi & Rebay 1997).
  if (viscous) {
    bool straight = true;
    for (index_t e = 0; e < problem.mesh.n_elements() && straight; ++e) straight = geometric_order(problem.mesh.element_types[e]) == 1;
    for (std::size_t tag = 0; straight && tag < problem.options.boundary.size(); ++tag) {
      const physics::BoundaryKind kind = problem.options.boundary[tag].kind;
      if (kind != physics::BoundaryKind::no_slip_wall && kind != physics::BoundaryKind::isothermal_wall) continue;
      Point3 first{};
      bool bends = false, have = false;
      for (const TaggedFacet& facet : problem.mesh.tagged_facets) {
        if (facet.tag != static_cast<int>(tag) || facet.n_vertices < 2) continue;
        const Point3 a = problem.mesh.nodes[facet.vertices[0]], b = problem.mesh.nodes[facet.vertices[1]];
        Point3 normal = dim == 2 ? Point3{b.y - a.y, a.x - b.x, 0} : cross(b - a, problem.mesh.nodes[facet.vertices[2]] - a);
        normal = (1 / std::sqrt(dot(normal, normal))) * normal;
        if (!have) {
          first = normal;
          have = true;
        } else if (std::abs(dot(normal, first)) < 1 - 1e-9) {
          bends = true;
          break;
        }
      }
      if (bends)
        problem.warnings.push_back(cat("the wall '", problem.mesh.boundary_names[tag], "' of ", problem.mesh.source,
                                       " bends but its elements are straight-sided (order 1): the wall is a polygon, whose corners spoil",
                                       " the boundary layer at any order; a mesh of order 2 or more curves it (gmsh -order 2)"));
    }
  }

  if (config.has("forces")) {
    const double reference_length = viscous ? problem.options.viscous.scales.reference_length : 1.0;
    problem.forces = read_forces(config.table("forces"), problem.mesh, problem.initial, reference_length, problem.options.gamma);
    problem.forces.lift_axis = problem.lift_axis;
  }

  const Config output = config.table("output");
  output.allow_only({"directory", "vtu", "vtu_every", "vtu_cells", "checkpoint", "checkpoint_every", "entropy_error"});
  problem.output_directory = output.string_or("directory", cat("runs/", problem.name));
  problem.output.vtu = output.bool_or("vtu", true);
  problem.output.vtu_every = output.integer_or("vtu_every", 0);
  problem.output.checkpoint_every = output.integer_or("checkpoint_every", 0);
  problem.output.checkpoint = output.bool_or("checkpoint", true);
  if (!problem.output.checkpoint && problem.output.checkpoint_every > 0)
    throw InputError(cat(output.where(), ": checkpoint = false and checkpoint_every = ", problem.output.checkpoint_every, " contradict"));
  problem.output.entropy_error = output.bool_or("entropy_error", false);
  if (problem.output.entropy_error && problem.initial.kind != physics::FlowKind::uniform)
    throw InputError(cat(output.where(), " entropy_error: measured against a uniform [flow] (the free stream), not a ",
                         physics::flow_kind_name(problem.initial.kind), " flow"));
  const std::string cells = output.string_or("vtu_cells", "lagrange");
  if (cells != "lagrange" && cells != "subdivided")
    throw InputError(cat(output.where(), " vtu_cells: '", cells, "' (valid: lagrange, subdivided)"));
  problem.output.lagrange_cells = cells == "lagrange";
  if (problem.output.vtu_every < 0 || problem.output.checkpoint_every < 0)
    throw InputError(cat(output.where(), ": vtu_every and checkpoint_every must be >= 0"));
  if (problem.parallel != nullptr) {  // a partitioned mesh read part by part: is its ghost layer deep enough?
    const GhostLayers needed = dg::required_ghost_layers(problem.options), held = problem.parallel->layers;
    if (held.depth < needed.depth || (needed.by_vertex && !held.by_vertex))
      throw InputError(cat(problem.parallel->mesh_source, ": its parts have ghost layers of ", describe(held), "; this case needs ",
                           describe(needed), " (partition it again with flowdg mesh partition ... --ghost-depth ", needed.depth,
                           " --ghost-rings ", needed.by_vertex ? "vertex" : "face", ")"));
  }
  return problem;
}

std::string default_case_toml(Backend backend) {
  return cat(R"(# Built-in default: the double Mach reflection (Woodward & Colella 1984; Fuhry, Giuliani &
# Krivodonova 2015, section 5.2) at p = 1 with the Barth-Jespersen limiter and SSP-RK2, to t = 0.2.
[case]
name = "double-mach"

[mesh]
file = "builtin:double-mach?ny=)", backend == Backend::cuda ? 90 : 72, R"("

[flow]
kind = "double-mach"

[solver]
order = 1
flux = "hllc"
limiter = "barth-jespersen"
positivity = true

[time]
scheme = "ssp-rk2"
cfl = 0.4
end_time = 0.2

[boundary.left]
type = "prescribed"
[boundary.bottom-inflow]
type = "prescribed"
[boundary.wall]
type = "slip-wall"
[boundary.top]
type = "prescribed"
[boundary.right]
type = "outflow"

[output]
vtu_every = 0
)");
}

}  // namespace flowdg
