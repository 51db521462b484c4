#pragma once
// Aerodynamic outputs of a run (the case file's [forces]): force coefficients on a set of wall
// boundaries, each split into its pressure and viscous parts, with their history in
// OUTPUT/forces.csv; the pressure and skin-friction coefficients along the walls in
// OUTPUT/walls.csv; the recirculation length behind a body (where the streamwise velocity on a
// wake line turns from negative to positive). All from Operator::wall_samples: the run's own
// boundary states and BR2 wall gradients, so the forces are the momentum the discretisation puts
// through the wall.
//
// With n the unit normal out of the fluid (into the wall), p_b the pressure of the boundary state
// and tau.n the viscous flux's momentum part, the force on the body per unit span (2D) is
//   F = sum_q w_q |N_q| ((p_b - p_ref) n - tau.n),
// and C = F . e / (q_ref L_ref) (3D: / (q_ref A_ref)), q_ref = rho_ref |v_ref|^2 / 2, e the drag
// direction (along v_ref) or the lift direction (e_D turned +90 degrees in the x-y plane, or the x-z
// plane with [physics] lift_axis = "z").
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "flowdg/core/config.hpp"
#include "flowdg/core/point.hpp"
#include "flowdg/dg/operator.hpp"
#include "flowdg/mesh/mesh.hpp"
#include "flowdg/time/hooks.hpp"

namespace flowdg {

struct ForcesControl {
  bool enabled = false;
  std::vector<int> tags;            ///< boundary tags the forces are summed over
  long long every = 50;             ///< steps between evaluations (and at the start and end)
  double reference_length = 1;      ///< 2D: the coefficients are per unit span over this length
  double reference_area = 1;        ///< 3D
  double density = 1, pressure = 1; ///< the reference (free-stream) state
  Point3 velocity{1, 0, 0};
  int lift_axis = 1;                ///< the lift lies in the plane of x and this axis (1: y, 2: z; [physics] lift_axis)
  bool wall_distribution = true;    ///< walls.csv at the end of the run
  /// The wake line (recirculation length), when given: start (the body's rear) and end.
  std::optional<Point3> wake_start, wake_end;
  int wake_points = 1000;
};

/// Reads [forces] (keys: walls, every, reference_length, reference_area, reference_density,
/// reference_velocity, reference_pressure, wall_distribution, wake_start, wake_end, wake_points).
/// The reference state defaults to the case's uniform [flow] (the free stream), the reference
/// length to [physics] reference_length. InputError for unknown keys, unknown boundary names, a
/// reference state at rest, a wake line in 3D or one that leaves the mesh.
ForcesControl read_forces(const Config& table, const Mesh& mesh, const physics::FlowSpec& initial, double reference_length,
                          double gamma);

struct ForceCoefficients {
  double drag = 0, lift = 0;
  double drag_pressure = 0, drag_viscous = 0, lift_pressure = 0, lift_viscous = 0;
  double side = 0;  ///< 3D: along e_D x e_L (z; -y with lift_axis z)
  Point3 force{}, force_pressure{}, force_viscous{};  ///< per unit span (2D), dimensional
};

/// The drag and lift directions of a reference velocity: the lift is the drag direction's part in
/// the plane of x and the lift axis (1: x-y, 2: x-z) turned +90 degrees in that plane.
void force_directions(Point3 velocity, Point3& drag, Point3& lift, int lift_axis = 1);

/// The coefficients on the samples whose tag is in control.tags.
ForceCoefficients integrate_forces(const dg::WallSamples& samples, const ForcesControl& control, int dim, double gamma);

/// Per wall point of the chosen walls: boundary, x, y (z), x/c along the drag direction over the
/// boundary's extent, the angle from the front (the side facing the flow, about the boundary's
/// centroid; positive towards the lift direction), the side (1: the suction/upper side, n . e_L < 0;
/// -1 the other), cp, cf (the viscous traction along the tangent that points downstream, over
/// q_ref), the traction components and the heat flux into the wall. Sorted by boundary, then angle.
void write_wall_distribution(const std::string& path, const dg::WallSamples& samples, const ForcesControl& control,
                             const Mesh& mesh, int dim, double gamma);

/// The recirculation length from the streamwise velocity u along a line of equally spaced points
/// (spacing h): the distance from the first point to the first change from u < 0 to u >= 0 after a
/// negative value, linearly interpolated; 0 when u is nowhere negative, the line's length when it
/// never turns positive again.
double recirculation_length(const std::vector<double>& u, double spacing);

struct Case;
/// The "forces" hook: forces.csv every control.every steps (continued on restart), walls.csv and a
/// last line at the end.
std::unique_ptr<Hook> make_forces_hook(const Case& problem, const RunOptions& options);

}  // namespace flowdg
