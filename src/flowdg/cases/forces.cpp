#include "flowdg/cases/forces.hpp"

#include "flowdg/cases/distributed.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>

#include "flowdg/cases/case.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/mesh/locate.hpp"

namespace flowdg {

namespace {

Point3 scaled(Point3 a, double s) { return s * a; }
Point3 plus(Point3 a, Point3 b) { return a + b; }

Point3 point_of(const std::vector<double>& values, int dim, const std::string& where) {
  if (static_cast<int>(values.size()) != dim) throw InputError(cat(where, ": expected ", dim, " coordinates, got ", values.size()));
  return {values[0], values[1], dim == 3 ? values[2] : 0.0};
}

/// Pressure, momentum and viscous traction at sample i.
double pressure_at(const dg::WallSamples& samples, std::size_t i, int dim, double gamma) {
  const int NV = samples.n_variables;
  const double* u = &samples.state[i * NV];
  double kinetic = 0;
  for (int d = 0; d < dim; ++d) kinetic += u[1 + d] * u[1 + d];
  return (gamma - 1) * (u[NV - 1] - 0.5 * kinetic / u[0]);
}

Point3 traction_on_wall(const dg::WallSamples& samples, std::size_t i, int dim) {
  // The viscous flux's momentum part is tau . n (n out of the fluid): the wall receives -tau . n.
  const double* f = &samples.viscous_flux[i * samples.n_variables];
  return {-f[1], -f[2], dim == 3 ? -f[3] : 0.0};
}

}  // namespace

void force_directions(Point3 velocity, Point3& drag, Point3& lift, int lift_axis) {
  const double speed = std::sqrt(dot(velocity, velocity));
  drag = scaled(velocity, 1 / speed);
  // Lift: the drag direction's part in the x-y (x-z) plane turned +90 degrees.
  if (lift_axis == 2) {
    const double planar = std::hypot(drag.x, drag.z);
    lift = planar > 0 ? Point3{-drag.z / planar, 0, drag.x / planar} : Point3{0, 0, 1};
    return;
  }
  const double planar = std::hypot(drag.x, drag.y);
  lift = planar > 0 ? Point3{-drag.y / planar, drag.x / planar, 0} : Point3{0, 1, 0};
}

ForcesControl read_forces(const Config& table, const Mesh& mesh, const physics::FlowSpec& initial, double reference_length,
                          double gamma) {
  table.allow_only({"walls", "every", "reference_length", "reference_area", "reference_density", "reference_velocity",
                    "reference_pressure", "wall_distribution", "wake_start", "wake_end", "wake_points"});
  ForcesControl control;
  control.enabled = true;
  const int dim = mesh.dimension;
  const std::optional<std::vector<std::string>> walls = table.get_strings("walls");
  if (!walls || walls->empty())
    throw InputError(cat(table.where(), " walls: name the wall boundaries the forces act on (boundaries of ", mesh.source, ": ",
                         [&] {
                           std::string names;
                           for (const std::string& name : mesh.boundary_names)
                             if (!name.empty()) names += cat(names.empty() ? "" : ", ", name);
                           return names;
                         }(),
                         ")"));
  for (const std::string& name : *walls) {
    const auto found = std::find(mesh.boundary_names.begin(), mesh.boundary_names.end(), name);
    if (found == mesh.boundary_names.end())
      throw InputError(cat(table.where(), " walls: ", mesh.source, " has no boundary '", name, "'"));
    control.tags.push_back(static_cast<int>(found - mesh.boundary_names.begin()));
  }
  control.every = table.integer_or("every", control.every);
  if (control.every < 1) throw InputError(cat(table.where(), " every: must be >= 1"));
  control.reference_length = table.double_or("reference_length", reference_length);
  control.reference_area = table.double_or("reference_area", 1.0);
  if (!(control.reference_length > 0 && control.reference_area > 0))
    throw InputError(cat(table.where(), ": reference_length and reference_area must be positive"));
  // The reference state: the uniform [flow] (the free stream) unless given.
  const bool uniform = initial.kind == physics::FlowKind::uniform;
  control.density = table.double_or("reference_density", uniform ? initial.density : 1.0);
  control.pressure = table.double_or("reference_pressure", uniform ? initial.pressure : 1.0 / gamma);
  control.velocity = uniform ? initial.velocity : Point3{1, 0, 0};
  if (const auto velocity = table.get_doubles("reference_velocity"))
    control.velocity = point_of(*velocity, dim, cat(table.where(), " reference_velocity"));
  if (!(control.density > 0) || !(dot(control.velocity, control.velocity) > 0))
    throw InputError(cat(table.where(), ": the reference state must move (density > 0 and a velocity): it sets q = rho |v|^2 / 2",
                         uniform ? "" : "; give reference_density and reference_velocity for a [flow] that is not uniform"));
  control.wall_distribution = table.bool_or("wall_distribution", true);
  const auto start = table.get_doubles("wake_start"), end = table.get_doubles("wake_end");
  if (start.has_value() != end.has_value())
    throw InputError(cat(table.where(), ": the wake line needs both wake_start and wake_end"));
  if (start) {
    if (dim != 2) throw InputError(cat(table.where(), " wake_start: the recirculation length is measured in 2D only"));
    control.wake_start = point_of(*start, dim, cat(table.where(), " wake_start"));
    control.wake_end = point_of(*end, dim, cat(table.where(), " wake_end"));
    control.wake_points = static_cast<int>(table.integer_or("wake_points", control.wake_points));
    if (control.wake_points < 2) throw InputError(cat(table.where(), " wake_points: must be >= 2"));
  }
  return control;
}

ForceCoefficients integrate_forces(const dg::WallSamples& samples, const ForcesControl& control, int dim, double gamma) {
  ForceCoefficients out;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (std::find(control.tags.begin(), control.tags.end(), samples.tag[i]) == control.tags.end()) continue;
    const double p = pressure_at(samples, i, dim, gamma) - control.pressure;
    out.force_pressure = plus(out.force_pressure, scaled(samples.normal[i], samples.weight[i] * p));
    out.force_viscous = plus(out.force_viscous, scaled(traction_on_wall(samples, i, dim), samples.weight[i]));
  }
  out.force = plus(out.force_pressure, out.force_viscous);
  Point3 drag, lift;
  force_directions(control.velocity, drag, lift, control.lift_axis);
  const double q = 0.5 * control.density * dot(control.velocity, control.velocity);
  const double scale = 1 / (q * (dim == 3 ? control.reference_area : control.reference_length));
  out.drag_pressure = scale * dot(out.force_pressure, drag);
  out.drag_viscous = scale * dot(out.force_viscous, drag);
  out.lift_pressure = scale * dot(out.force_pressure, lift);
  out.lift_viscous = scale * dot(out.force_viscous, lift);
  out.drag = out.drag_pressure + out.drag_viscous;
  out.lift = out.lift_pressure + out.lift_viscous;
  if (dim == 3) {
    out.side = scale * dot(out.force, cross(drag, lift));
  }
  return out;
}

void write_wall_distribution(const std::string& path, const dg::WallSamples& samples, const ForcesControl& control,
                             const Mesh& mesh, int dim, double gamma) {
  Point3 drag, lift;
  force_directions(control.velocity, drag, lift, control.lift_axis);
  const double q = 0.5 * control.density * dot(control.velocity, control.velocity);
  struct Row {
    int tag;
    double angle;
    std::size_t i;
  };
  std::vector<Row> rows;
  // Per boundary: the centroid of its points and its extent along the drag direction.
  const int n_tags = static_cast<int>(mesh.boundary_names.size());
  std::vector<Point3> centroid(n_tags);
  std::vector<double> weight(n_tags, 0.0), low(n_tags, 1e300), high(n_tags, -1e300);
  const auto chosen = [&](int tag) { return std::find(control.tags.begin(), control.tags.end(), tag) != control.tags.end(); };
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const int tag = samples.tag[i];
    if (!chosen(tag)) continue;
    centroid[tag] = plus(centroid[tag], scaled(samples.x[i], samples.weight[i]));
    weight[tag] += samples.weight[i];
    low[tag] = std::min(low[tag], dot(samples.x[i], drag));
    high[tag] = std::max(high[tag], dot(samples.x[i], drag));
  }
  for (int tag = 0; tag < n_tags; ++tag)
    if (weight[tag] > 0) centroid[tag] = scaled(centroid[tag], 1 / weight[tag]);
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const int tag = samples.tag[i];
    if (!chosen(tag)) continue;
    const Point3 r = samples.x[i] - centroid[tag];
    rows.push_back(Row{tag, std::atan2(dot(r, lift), -dot(r, drag)) * 180 / M_PI, i});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.tag != b.tag ? a.tag < b.tag : a.angle < b.angle; });
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary);
    if (!out) throw InputError(cat("cannot write ", temporary));
    out << (dim == 3 ? "boundary,x,y,z,x_over_c,angle,side,cp,cf,tau_x,tau_y,tau_z,heat_flux\n"
                     : "boundary,x,y,x_over_c,angle,side,cp,cf,tau_x,tau_y,heat_flux\n");
    char line[512];
    for (const Row& row : rows) {
      const std::size_t i = row.i;
      const Point3 x = samples.x[i], n = samples.normal[i];
      const double p = pressure_at(samples, i, dim, gamma);
      const Point3 traction = traction_on_wall(samples, i, dim);
      // The tangent that points downstream: the traction without its normal part, signed by its
      // drag-direction component (2D: the normal turned, flipped to point along e_D).
      Point3 tangent = dim == 2 ? Point3{-n.y, n.x, 0} : plus(traction, scaled(n, -dot(traction, n)));
      const double length = std::sqrt(dot(tangent, tangent));
      tangent = length > 0 ? scaled(tangent, (dot(tangent, drag) < 0 ? -1 : 1) / length) : tangent;
      const int NV = samples.n_variables;
      const double* u = &samples.state[i * NV];
      const double* f = &samples.viscous_flux[i * NV];
      // Energy flux Fv_E . n = (tau . n) . v - q . n: the heat flux into the wall q . n.
      double work = 0;
      for (int d = 0; d < dim; ++d) work += f[1 + d] * u[1 + d] / u[0];
      const double heat = work - f[NV - 1];
      const double extent = high[row.tag] - low[row.tag];
      const double x_over_c = extent > 0 ? (dot(x, drag) - low[row.tag]) / extent : 0.0;
      const int side = dot(n, lift) < 0 ? 1 : -1;
      if (dim == 3)
        std::snprintf(line, sizeof line, "%s,%.10g,%.10g,%.10g,%.8g,%.8g,%d,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g\n",
                      mesh.boundary_names[row.tag].c_str(), x.x, x.y, x.z, x_over_c, row.angle, side, (p - control.pressure) / q,
                      dot(traction, tangent) / q, traction.x, traction.y, traction.z, heat);
      else
        std::snprintf(line, sizeof line, "%s,%.10g,%.10g,%.8g,%.8g,%d,%.10g,%.10g,%.10g,%.10g,%.10g\n", mesh.boundary_names[row.tag].c_str(),
                      x.x, x.y, x_over_c, row.angle, side, (p - control.pressure) / q, dot(traction, tangent) / q, traction.x,
                      traction.y, heat);
      out << line;
    }
  }
  std::filesystem::rename(temporary, path);
}

double recirculation_length(const std::vector<double>& u, double spacing) {
  bool negative = false;
  for (std::size_t i = 0; i < u.size(); ++i) {
    if (u[i] < 0) {
      negative = true;
      continue;
    }
    if (negative) {  // u[i - 1] < 0 <= u[i]
      const double fraction = u[i - 1] / (u[i - 1] - u[i]);
      return spacing * (static_cast<double>(i - 1) + fraction);
    }
  }
  return negative ? spacing * static_cast<double>(u.size() - 1) : 0.0;
}

namespace {

class ForcesHook final : public Hook {
 public:
  ForcesHook(const Case& problem, const RunOptions& options)
      : control_(problem.forces), write_(options.write_summary && is_root(problem)) {
    if (control_.wake_start) {
      const PointLocator locator(problem.mesh);
      const Point3 a = *control_.wake_start, b = *control_.wake_end;
      const int n = control_.wake_points;
      const Parallel* parallel = problem.parallel.get();
      for (int k = 0; k < n; ++k) {
        const double s = static_cast<double>(k) / (n - 1);
        // The first point sits on the body's wall: nudged a millionth of the line inside.
        const double t = k == 0 ? 1e-6 : s;
        const Point3 x{a.x + t * (b.x - a.x), a.y + t * (b.y - a.y), 0};
        const Location location = locator.find(x);
        if (parallel != nullptr) {
          // A distributed run: the point is the rank's whose owned element holds it (the lowest
          // global number where two do: a point on a partition face).
          const bool owned = location.element >= 0 && location.element < parallel->n_owned;
          const double mine =
              owned ? static_cast<double>(parallel->global_element[static_cast<std::size_t>(location.element)]) : 1e300;
          const double holder = parallel->communicator->min(mine);
          if (holder >= 1e300)
            throw InputError(cat("[forces] the wake line from (", a.x, ", ", a.y, ") to (", b.x, ", ", b.y, ") leaves the mesh at (",
                                 x.x, ", ", x.y, ")"));
          const bool held = owned && mine == holder;
          wake_held_.push_back(held ? 1 : 0);
          if (!held) continue;
        } else if (location.element < 0) {
          throw InputError(cat("[forces] the wake line from (", a.x, ", ", a.y, ") to (", b.x, ", ", b.y, ") leaves the mesh at (", x.x,
                               ", ", x.y, ")"));
        }
        wake_elements_.push_back(location.element);
        wake_points_.push_back(location.xi);
      }
      spacing_ = std::hypot(b.x - a.x, b.y - a.y) / (n - 1);
    }
  }
  std::string name() const override { return "forces"; }
  void start(LoopState& state) override {
    if (state.write_files) {
      const std::string path = (std::filesystem::path(state.problem.output_directory) / "forces.csv").string();
      const bool append = continue_history(path, state.first_step);
      out_.open(path, append ? std::ios::app : std::ios::trunc);
      if (!out_) throw InputError(cat("cannot write ", path));
      if (!append) {
        out_ << "step,time,cd,cl,cd_pressure,cd_viscous,cl_pressure,cl_viscous";
        if (state.op.dimension() == 3) out_ << ",cs";
        if (control_.wake_start) out_ << ",recirculation_length";
        out_ << '\n';
      }
    }
    if (state.first_step == 0) record(state);
  }
  void after_step(LoopState& state) override {
    if (state.step % control_.every == 0) record(state);
  }
  void finish(LoopState& state) override {
    if (state.step % control_.every != 0) record(state);
    if (write_ && control_.wall_distribution)
      write_wall_distribution((std::filesystem::path(state.problem.output_directory) / "walls.csv").string(), samples_, control_,
                              state.problem.mesh, state.op.dimension(), state.problem.options.gamma);
  }

 private:
  void record(LoopState& state) {
    // A distributed run: every rank's wall points on the root, which integrates and writes.
    samples_ = gather_wall_samples(state.problem, state.op.wall_samples(state.t));
    const int dim = state.op.dimension();
    const ForceCoefficients c = integrate_forces(samples_, control_, dim, state.problem.options.gamma);
    bool bad = !std::isfinite(c.drag) || !std::isfinite(c.lift);
    if (state.problem.parallel != nullptr) bad = state.problem.parallel->communicator->any(bad);
    if (bad) (void)state.op.stable_time_step(1.0);  // names a bad element
    double wake = 0;
    if (control_.wake_start) {
      std::vector<double> values = state.op.evaluate_at(wake_elements_, wake_points_);
      const int NV = state.op.n_variables();
      if (state.problem.parallel != nullptr) {  // every point's values from the rank that holds it, on every rank
        std::vector<double> all(wake_held_.size() * static_cast<std::size_t>(NV), 0.0);
        for (std::size_t k = 0, held = 0; k < wake_held_.size(); ++k) {
          if (!wake_held_[k]) continue;
          for (int v = 0; v < NV; ++v) all[k * NV + v] = values[held * NV + v];
          ++held;
        }
        state.problem.parallel->communicator->sum(all);
        values = std::move(all);
      }
      Point3 drag, lift;
      force_directions(control_.velocity, drag, lift, control_.lift_axis);
      std::vector<double> u(values.size() / static_cast<std::size_t>(NV));
      for (std::size_t k = 0; k < u.size(); ++k) u[k] = (values[k * NV + 1] * drag.x + values[k * NV + 2] * drag.y) / values[k * NV];
      wake = recirculation_length(u, spacing_) / control_.reference_length;
    }
    if (!out_.is_open()) return;
    char line[512];
    int n = std::snprintf(line, sizeof line, "%lld,%.10e,%.10e,%.10e,%.10e,%.10e,%.10e,%.10e", state.step, state.t, c.drag, c.lift,
                          c.drag_pressure, c.drag_viscous, c.lift_pressure, c.lift_viscous);
    if (dim == 3) n += std::snprintf(line + n, sizeof line - n, ",%.10e", c.side);
    if (control_.wake_start) n += std::snprintf(line + n, sizeof line - n, ",%.8e", wake);
    out_ << line << '\n';
    out_.flush();
  }

  ForcesControl control_;
  bool write_;
  std::ofstream out_;
  dg::WallSamples samples_;
  std::vector<index_t> wake_elements_;  ///< the wake points this rank evaluates (all of them on one rank)
  std::vector<Point3> wake_points_;
  std::vector<char> wake_held_;         ///< distributed runs: per wake point, whether this rank evaluates it
  double spacing_ = 0;
};

}  // namespace

std::unique_ptr<Hook> make_forces_hook(const Case& problem, const RunOptions& options) {
  return std::make_unique<ForcesHook>(problem, options);
}

}  // namespace flowdg
