// 3D Euler's element and interior face kernels on affine tetrahedra with a warp per variable
// (core_variable_kernels.hpp says what they do; compiled by nvcc when the CUDA backend is on, by the
// host compiler otherwise, where only the element kernel's tables are built).
#include "flowdg/dg/core_variable_kernels.hpp"

#include <cstdlib>
#include <mutex>
#include <string>
#include <type_traits>

#include "flowdg/core/error.hpp"
#include "flowdg/backend/fragment_order.hpp"
#include "flowdg/dg/groups.hpp"
#include "flowdg/element/basis.hpp"
#include "flowdg/element/reference_element.hpp"
#include "flowdg/mesh/lagrange.hpp"
#include "flowdg/mesh/mesh.hpp"

#if defined(__CUDACC__)
#include "flowdg/backend/cuda_check.hpp"
#include "flowdg/backend/for_each.hpp"
#include "flowdg/backend/tensor_core.hpp"
#endif

namespace flowdg::dg {

VariableKernelTables variable_kernel_tables(int order, int Nq, int Nfq, const std::vector<double>& volume_phi,
                                            const std::vector<double>& volume_dphi, const std::vector<double>& weights,
                                            const std::vector<double>& face_phi) {
  VariableKernelTables tables;
  if (!variable_kernel_order(order) || Nq != variable_volume_points(order) || Nfq != variable_face_points(order)) return tables;
  const int Np = n_basis(Shape::tetrahedron, order);
  FLOWDG_ASSERT(volume_phi.size() == static_cast<std::size_t>(Nq * Np) && volume_dphi.size() == static_cast<std::size_t>(Nq * 3 * Np) &&
                    weights.size() == static_cast<std::size_t>(Nq) && face_phi.size() == static_cast<std::size_t>(4 * Nfq * Np),
                "the variable kernel's tables: sizes ", volume_phi.size(), ", ", volume_dphi.size(), ", ", weights.size(), ", ",
                face_phi.size(), " for Np = ", Np, ", Nq = ", Nq, ", Nfq = ", Nfq);
  tables.order = order;
  tables.Nq = Nq;
  tables.Nfq = Nfq;
  tables.values = volume_phi;
  for (int k = 0; k < Nq; ++k)
    for (int r = 0; r < 3; ++r)
      for (int j = 0; j < Np; ++j) tables.values.push_back(weights[k] * volume_dphi[(k * 3 + r) * Np + j]);
  tables.values.insert(tables.values.end(), face_phi.begin(), face_phi.end());
  return tables;
}

FaceMomentTables face_moment_tables(int order, const QuadratureRule& face_rule) {
  FLOWDG_ASSERT(order >= 1 && face_rule.shape == Shape::triangle, "face moments: p = ", order, " on a ", shape_name(face_rule.shape),
                " rule (expected p >= 1 and a triangle)");
  // The equispaced nodes and their Lagrange basis: the order-p Lagrange triangle's (mesh/lagrange.hpp;
  // its reference triangle is the face's).
  const ElementType type = lagrange_type(Shape::triangle, order);
  const std::vector<Point3> nodes = reference_nodes(type);
  const int Nn = static_cast<int>(nodes.size()), Nfq = face_rule.size(), Np = n_basis(Shape::tetrahedron, order);
  FLOWDG_ASSERT(Nn == face_moment_nodes(order), "face moments at p = ", order, ": ", Nn, " nodes");
  FaceMomentTables tables;
  tables.order = order;
  tables.Nfq = Nfq;
  tables.interpolation.resize(static_cast<std::size_t>(Nn) * Nfq);
  std::vector<double> L(static_cast<std::size_t>(Nn));
  for (int q = 0; q < Nfq; ++q) {
    shape_functions(type, face_rule.points[q], L.data(), nullptr);
    for (int i = 0; i < Nn; ++i) tables.interpolation[static_cast<std::size_t>(i) * Nfq + q] = L[i];
  }
  tables.node_phi.resize(static_cast<std::size_t>(4) * Nn * Np);
  for (int l = 0; l < 4; ++l)
    for (int i = 0; i < Nn; ++i)
      basis_values(Shape::tetrahedron, order, face_to_element(Shape::tetrahedron, l, nodes[i]),
                   &tables.node_phi[(static_cast<std::size_t>(l) * Nn + i) * Np]);
  tables.node_permutation = face_point_permutations(Shape::triangle, nodes);
  return tables;
}

VariableKernelTables with_face_moments(const VariableKernelTables& tables, const FaceMomentTables& moments) {
  FLOWDG_ASSERT(!tables.empty() && !tables.moments && moments.order == tables.order && moments.Nfq == tables.Nfq,
                "face moments for p = ", moments.order, " (", moments.Nfq, " face points) on the variable kernel's tables of p = ",
                tables.order, " (", tables.Nfq, ")");
  const int Np = n_basis(Shape::tetrahedron, tables.order);
  VariableKernelTables out = tables;
  out.values.resize(static_cast<std::size_t>(tables.Nq) * 4 * Np);  // phi and w dphi
  out.values.insert(out.values.end(), moments.node_phi.begin(), moments.node_phi.end());
  out.moments = true;
  out.node_permutation = moments.node_permutation;
  return out;
}

namespace {
/// N (4 Nn rows of Np: `rows_source` [(l Nn + i) Np + j]) padded and in fragment order.
FaceTraceBuffer trace_buffer_from_rows(int order, int Nn, bool points, const std::vector<double>& rows_source) {
  FaceTraceBuffer buffer;
  buffer.order = order;
  buffer.Nn = Nn;
  buffer.points = points;
  buffer.Np = n_basis(Shape::tetrahedron, order);
  buffer.rows = (4 * buffer.Nn + 7) / 8 * 8;
  buffer.columns = (buffer.Np + 3) / 4 * 4;
  FLOWDG_ASSERT(rows_source.size() == static_cast<std::size_t>(4 * buffer.Nn * buffer.Np), points ? "face_phi: " : "node_phi: ",
                rows_source.size(), " values, expected ", 4 * buffer.Nn * buffer.Np);
  buffer.tables.assign(static_cast<std::size_t>(buffer.rows) * buffer.columns, 0.0);  // zero padding
  for (int r = 0; r < 4 * buffer.Nn; ++r)
    for (int j = 0; j < buffer.Np; ++j)
      buffer.tables[static_cast<std::size_t>(r) * buffer.columns + j] = rows_source[static_cast<std::size_t>(r) * buffer.Np + j];
  to_fragment_order(buffer.tables, 0, buffer.rows, buffer.columns);
  return buffer;
}
}  // namespace

FaceTraceBuffer face_trace_buffer(const FaceMomentTables& moments) {
  FLOWDG_ASSERT(!moments.empty() && moments.order >= 1, "the trace buffer's tables need the face moments' tables");
  return trace_buffer_from_rows(moments.order, face_moment_nodes(moments.order), false, moments.node_phi);
}

FaceTraceBuffer face_trace_buffer_points(int order, int Nfq, const std::vector<double>& face_phi) {
  FLOWDG_ASSERT(order >= 1 && order <= 4 && Nfq == variable_face_points(order), "the trace buffer at the face points: p = 1..4 with ",
                "the variable face kernel's rule (", variable_face_points(order), " points), not p = ", order, " with ", Nfq);
  return trace_buffer_from_rows(order, Nfq, true, face_phi);
}

FaceTraceBuffer face_trace_buffer_coefficients(int order) {
  FLOWDG_ASSERT(order == 3, "the coefficients' element-major copy is the face tensor kernel's input, built for p = 3, not p = ", order);
  FaceTraceBuffer buffer;
  buffer.order = order;
  buffer.Np = n_basis(Shape::tetrahedron, order);
  buffer.coefficients = true;
  return buffer;
}

#if defined(__CUDACC__)

namespace {

/// NF: the face rows, Nfq point values or Nn nodal moments (node_permutation then filled).
template <class Real, int Np, int Nq, int NF>
struct VariableTables {
  Real phi[Nq][Np];
  Real dphi[Nq][3][Np];  ///< times the point's weight
  Real face[4][NF][Np];
  int node_permutation[6][NF];
};

constexpr int variable_lanes = 32;  // elements a block: a warp's lanes

/// The number of face rows: Nn nodal moments or Nfq point values.
constexpr int variable_face_rows(int order, int Nfq, bool moments) { return moments ? face_moment_nodes(order) : Nfq; }

/// The element kernel's dynamic shared memory: with Prefetch its face values, [4][NF][NV][E].
template <class Real, int NF, bool Prefetch>
constexpr std::size_t variable_prefetch_bytes() {
  return Prefetch ? sizeof(Real) * 4 * NF * 5 * variable_lanes : 0;
}

/// How the element kernel's last step reads the Runge-Kutta registers (u, q, u0 at its Np rows):
/// variable_rk_each: row by row, each row's loads after the previous row's stores (the compiler
/// cannot move a load above a store through another pointer: Np round trips a thread);
/// variable_rk_batched: all 3 Np loads first, then the updates; variable_rk_early: the loads issued
/// before the face sums (step 3), so that their latency hides behind them.
constexpr int variable_rk_each = 0, variable_rk_batched = 1, variable_rk_early = 2;

/// Primitives: step 2's velocity and pressure at each volume point computed once for the element (by
/// one of its five threads, the points dealt round the warps) and shared through shared memory,
/// instead of by each of the five (each warp needs them for its own variable's flux; the reciprocal
/// of the density and the pressure were five times over). The same expressions, which the compiler
/// contracts otherwise: another rounding (final states within 5.3e-16, session 67).
/// ChainedSums: step 2 adds each direction's product to the residual sum in turn (three fused
/// multiply-adds a point and basis function) instead of adding their sum (a multiply, two fused
/// multiply-adds and an add: 18% of float p = 2's instructions were those multiplies and adds, session 67's
/// ncu); another summation order.
/// Measured against the tables' uniform loads and not kept (session 68, docs/results/session68/): the tables
/// copied to shared memory and read a vector a broadcast load (-4 to -10%: shared_tables.patch), and two
/// elements a thread so that each table value loaded feeds two products (-4 to -57%: the registers cost
/// blocks an SM, or spill; element_pairs.patch).
template <class Real, int P, int Nq, int Nfq, int MinBlocks, bool Moments, bool Prefetch, int RkMode = variable_rk_each,
          bool Primitives = false, bool ChainedSums = false>
__global__ void __launch_bounds__(5 * variable_lanes, MinBlocks) core_element_variable_kernel(
    const ElementKernel<physics::Euler<3, Real>, Shape::tetrahedron, P, GeometryKind::affine> k, index_t first, index_t count,
    const __grid_constant__ VariableTables<Real, n_basis(Shape::tetrahedron, P), Nq, variable_face_rows(P, Nfq, Moments)> t) {
  constexpr int Np = n_basis(Shape::tetrahedron, P), NV = 5, E = variable_lanes, NF = variable_face_rows(P, Nfq, Moments);
  // The values at the volume points (step 2 reads other warps' rows), then this thread's face fluxes
  // (step 3: its own slots only) in the same rows.
  constexpr int rows = Nq > Nfq ? Nq : Nfq;
  __shared__ Real s_u[rows][NV][E];
  // Moments: the nodes' permutations (a lane's orientation indexes them: shared memory, not the
  // parameters' constant bank).
  __shared__ int s_permutation[Moments ? 6 * NF : 1];
  if constexpr (Moments)
    for (int i = static_cast<int>(threadIdx.x); i < 6 * NF; i += 5 * E) s_permutation[i] = t.node_permutation[i / NF][i % NF];
  const int v = static_cast<int>(threadIdx.x) / E;  // the same in a warp
  const int lane = static_cast<int>(threadIdx.x) % E;
  const index_t local = static_cast<index_t>(blockIdx.x) * E + lane;
  const bool valid = local < count;
  const index_t e = first + (valid ? local : 0);  // a lane past the end computes element `first` and stores nothing
  const index_t Ks = k.Ks;
  // Prefetch: this thread's stored face values (each lane's four faces lie anywhere in the flux
  // array: the loads of step 3 that wait longest) copied to shared memory now (cp.async), so that
  // they arrive while steps 1 and 2 compute; [((l NF + q) NV + v) E + lane], this thread's own slots.
  extern __shared__ __align__(16) unsigned char variable_element_shared[];
  Real* s_face = reinterpret_cast<Real*>(variable_element_shared);
  if constexpr (Prefetch) {
#pragma unroll
    for (int l = 0; l < 4; ++l) {
      const index_t f = code_face(k.codes[l * Ks + e]);
#pragma unroll
      for (int q = 0; q < NF; ++q)
        device::copy_async(&s_face[((l * NF + q) * NV + v) * E + lane], k.flux.data + (static_cast<index_t>(v) * Nfq + q) * k.Fs + f);
    }
    device::copy_async_commit();
  }

  // 1. This variable at the volume points.
  {
    Real c[Np];
#pragma unroll
    for (int j = 0; j < Np; ++j) c[j] = k.u[(static_cast<index_t>(v) * Np + j) * Ks + e];
#pragma unroll
    for (int q = 0; q < Nq; ++q) {
      Real sum = 0;
#pragma unroll
      for (int j = 0; j < Np; ++j) sum += c[j] * t.phi[q][j];
      s_u[q][v][lane] = sum;
    }
  }
  Real metric[3][3];
#pragma unroll
  for (int r = 0; r < 3; ++r)
#pragma unroll
    for (int d = 0; d < 3; ++d) metric[r][d] = k.metric[(r * 3 + d) * Ks + e];
  __syncthreads();
  const Real gm1 = k.physics.gamma - Real(1);
  // Primitives: this thread's points (q = v, v + 5, ...: every warp takes its share) — the velocity
  // and the pressure, [q][0..2] the velocity, [q][3] p.
  __shared__ Real s_w[Primitives ? Nq : 1][4][E];
  if constexpr (Primitives) {
#pragma unroll
    for (int q0 = 0; q0 < Nq; q0 += NV) {
      const int q = q0 + v;
      if (q < Nq) {
        const Real rho = s_u[q][0][lane], m0 = s_u[q][1][lane], m1 = s_u[q][2][lane], m2 = s_u[q][3][lane], energy = s_u[q][4][lane];
        const Real inverse_rho = Real(1) / rho;
        const Real velocity[3] = {m0 * inverse_rho, m1 * inverse_rho, m2 * inverse_rho};
        s_w[q][0][lane] = velocity[0];
        s_w[q][1][lane] = velocity[1];
        s_w[q][2][lane] = velocity[2];
        s_w[q][3][lane] = gm1 * (energy - Real(0.5) * (m0 * velocity[0] + m1 * velocity[1] + m2 * velocity[2]));
      }
    }
    __syncthreads();
  }

  // 2. Volume: sum_k sum_r (sum_d dr_r/dx_d F_d(u_k)[v]) w_k dphi_j/dr_r (det J cancels against the
  // inverse mass matrix's 1 / det J).
  Real rhs[Np];
#pragma unroll
  for (int j = 0; j < Np; ++j) rhs[j] = 0;
#pragma unroll
  for (int q = 0; q < Nq; ++q) {
    Real flux[3];
    if constexpr (Primitives) {
      // (warp-uniform: v is the warp's variable) rho v_d from the coefficients, the others from the
      // shared velocity and pressure
      if (v == 0) {
#pragma unroll
        for (int d = 0; d < 3; ++d) flux[d] = s_u[q][d + 1][lane];
      } else {
        const Real velocity[3] = {s_w[q][0][lane], s_w[q][1][lane], s_w[q][2][lane]};
        const Real p = s_w[q][3][lane];
        const Real own = s_u[q][v][lane];
        const Real base = v == NV - 1 ? own + p : own;
#pragma unroll
        for (int d = 0; d < 3; ++d) flux[d] = base * velocity[d] + (v == d + 1 ? p : Real(0));
      }
    } else {
      const Real rho = s_u[q][0][lane], m0 = s_u[q][1][lane], m1 = s_u[q][2][lane], m2 = s_u[q][3][lane], energy = s_u[q][4][lane];
      const Real own = s_u[q][v][lane];
      const Real inverse_rho = Real(1) / rho;
      const Real momentum[3] = {m0, m1, m2};
      const Real velocity[3] = {m0 * inverse_rho, m1 * inverse_rho, m2 * inverse_rho};
      const Real p = gm1 * (energy - Real(0.5) * (m0 * velocity[0] + m1 * velocity[1] + m2 * velocity[2]));
      // F_d[v]: rho v_d, rho v_i v_d + p delta_id, (E + p) v_d
      const Real base = v == NV - 1 ? energy + p : own;
#pragma unroll
      for (int d = 0; d < 3; ++d) flux[d] = v == 0 ? momentum[d] : base * velocity[d] + (v == d + 1 ? p : Real(0));
    }
    Real reference[3];
#pragma unroll
    for (int r = 0; r < 3; ++r) reference[r] = metric[r][0] * flux[0] + metric[r][1] * flux[1] + metric[r][2] * flux[2];
    if constexpr (ChainedSums) {
#pragma unroll
      for (int j = 0; j < Np; ++j) {
        rhs[j] += reference[0] * t.dphi[q][0][j];
        rhs[j] += reference[1] * t.dphi[q][1][j];
        rhs[j] += reference[2] * t.dphi[q][2][j];
      }
    } else {
#pragma unroll
      for (int j = 0; j < Np; ++j) rhs[j] += reference[0] * t.dphi[q][0][j] + reference[1] * t.dphi[q][1][j] + reference[2] * t.dphi[q][2][j];
    }
  }

  // The Runge-Kutta registers of this thread's rows (RkMode batched or early): loaded together (u
  // itself too: the coefficients of step 1 are not kept, their registers are the volume sums').
  const auto& update = k.update;
  Real u_rows[RkMode == variable_rk_each ? 1 : Np], q_rows[RkMode == variable_rk_each ? 1 : Np], u0_rows[RkMode == variable_rk_each ? 1 : Np];
  const auto load_registers = [&] {
#pragma unroll
    for (int j = 0; j < Np; ++j) {
      const index_t index = (static_cast<index_t>(v) * Np + j) * Ks + e;
      u_rows[j] = update.residual.data != nullptr ? Real(0) : k.u[index];
      q_rows[j] = update.q_at(index);
      u0_rows[j] = update.u0_at(index);
    }
  };
  if constexpr (RkMode == variable_rk_early) load_registers();

  // 3. Faces: the stored flux (point values or nodal moments) is along the minus side's normal, in
  // its point (node) order; put at the element's own point (node) through this thread's slots in
  // shared memory (once every warp is done with the volume points).
  if constexpr (Prefetch) device::copy_async_wait();  // this thread's own face values
  __syncthreads();
#pragma unroll
  for (int l = 0; l < 4; ++l) {
    const index_t code = k.codes[l * Ks + e];
    const index_t f = code_face(code);
    const bool plus = code_plus_side(code);
    const Real sign = plus ? Real(1) : Real(-1);
    const int* permutation = Moments ? &s_permutation[code_orientation(code) * NF] : &k.permutation[code_orientation(code) * Nfq];
#pragma unroll
    for (int q = 0; q < NF; ++q) {
      const Real value = Prefetch ? s_face[((l * NF + q) * NV + v) * E + lane] : k.flux[(static_cast<index_t>(v) * Nfq + q) * k.Fs + f];
      s_u[plus ? permutation[q] : q][v][lane] = sign * value;
    }
#pragma unroll
    for (int point = 0; point < NF; ++point) {
      const Real value = s_u[point][v][lane];
#pragma unroll
      for (int j = 0; j < Np; ++j) rhs[j] += value * t.face[l][point][j];
    }
  }

  // 4. Mass matrix and update.
  const Real inverse_det = k.metric[9 * Ks + e];
  if constexpr (RkMode == variable_rk_each) {
    if (valid)
#pragma unroll
      for (int j = 0; j < Np; ++j) update.apply(k.u, (static_cast<index_t>(v) * Np + j) * Ks + e, inverse_det * rhs[j]);
  } else {
    if constexpr (RkMode == variable_rk_batched) load_registers();
    if (valid)
#pragma unroll
      for (int j = 0; j < Np; ++j)
        update.apply_loaded(k.u, (static_cast<index_t>(v) * Np + j) * Ks + e, inverse_det * rhs[j], u_rows[j], q_rows[j], u0_rows[j]);
  }
}

/// The blocks an SM a kernel's registers are bounded for (__launch_bounds__), as an environment
/// variable asks for them in A/B runs: 3..6, or 0 where it is unset (anything else an InputError).
/// An A/B switch's value: the one digit in [lowest, highest] it is set to, -1 where it is unset
/// (anything else an InputError naming what it expects).
int switch_asked(const char* name, int lowest, int highest, const char* expected) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == 0) return -1;
  const std::string text(value);
  if (text.size() == 1 && text[0] >= '0' + lowest && text[0] <= '0' + highest) return text[0] - '0';
  throw InputError(cat(name, "='", text, "': expected ", expected));
}

int blocks_asked(const char* name) {
  const int asked = switch_asked(name, 3, 6, "3, 4, 5 or 6 (blocks of 160 threads an SM)");
  return asked < 0 ? 0 : asked;
}

/// f.template operator()<Blocks>() for the run-time blocks an SM (3..6; 4 otherwise).
template <class F>
void with_min_blocks(int blocks, F&& f) {
  switch (blocks) {
    case 3: f.template operator()<3>(); break;
    case 5: f.template operator()<5>(); break;
    case 6: f.template operator()<6>(); break;
    default: f.template operator()<4>(); break;
  }
}

/// The element kernel's blocks an SM: FLOWDG_VARIABLE_BLOCKS for A/B runs, else the measured default.
/// Session 40 (H100, `flowdg run`, the 3D vortex, Rusanov; docs/performance.md): in double at p = 2
/// four blocks (96 registers, no spills) 17.2e9 DOF-stage updates/s against five's 16.0 (72
/// registers, 56 bytes spilled) and six's 15.6; at p = 1 four and five alike (15.3, 15.4); at p = 3
/// five 8.5, four 8.1, three 7.2. In float five: p = 1 27.6 against four's 25.7, p = 2 29.6 against
/// 29.5, p = 3 13.3 against 12.6. Session 41, with face moments and the prefetch (one binary,
/// docs/results/tets_session41/call14_*): double p = 1 five 18.44-18.46 against four's 18.06-18.10
/// and six's 18.54-18.58; p = 2 four 20.61-20.65, three 20.61, five 18.21-18.29 (its shared memory
/// does not fit five blocks); float p = 1 five 35.05 against four's 34.68, p = 2 38.46 against
/// 36.68, p = 3 four 19.10 against five's 18.50.
/// Session 44 (docs/results/tets_session44/): double p = 2 three blocks with batched Runge-Kutta loads
/// (128 registers: the loads spill nothing) 23.13-23.20e9 against four blocks row by row 21.81-21.82
/// and three row by row 21.72-21.73, the same bits.
/// Session 45 (H200, faces by family): float p = 2 four blocks 43.84e9 against five's 42.14 and six's
/// 40.93 (docs/results/tets_session45/).
constexpr int variable_default_blocks(bool double_precision, int order) {
  if (double_precision && order == 2) return 3;
  return (double_precision && order >= 2) || (!double_precision && (order == 2 || order == 3)) ? 4 : 5;
}
int variable_blocks(bool double_precision, int order) {
  static const int asked = blocks_asked("FLOWDG_VARIABLE_BLOCKS");
  if (asked > 0) return asked;
  return variable_default_blocks(double_precision, order);
}

/// The element kernel's Runge-Kutta loads (with moments and the face prefetch, the default path):
/// the measured default, FLOWDG_VARIABLE_RK=0|1|2 (each, batched, early) for A/B runs at the
/// default blocks an SM, and in double at p = 2 also at four (FLOWDG_VARIABLE_BLOCKS=4, the default
/// before session 44; anything else an InputError).
/// Session 43 (H100, the 3D vortex, Rusanov, one binary, docs/results/tets_session43/call4_*, the same
/// bits): double p = 1 batched 20.36-20.39e9 and early 20.43-20.52 against row by row 19.29-19.78,
/// p = 2 row by row 21.14-21.19 against batched 20.53-20.56 and early 18.58-18.66; float p = 1 batched
/// 35.85 against 34.65 (early) and 34.66, p = 2 41.14 against 38.43 and 38.30, p = 3 row by row 19.43
/// against 14.86 and 14.62 (3 Np more registers live: 60 at p = 3).
/// Session 44: double p = 2 batched at three blocks (see variable_default_blocks).
constexpr int variable_default_rk(bool double_precision, int order) {
  (void)double_precision;
  return order >= 3 ? variable_rk_each : variable_rk_batched;
}
int variable_rk_asked() {
  static const int asked = switch_asked("FLOWDG_VARIABLE_RK", 0, 2, "0 (row by row), 1 (batched) or 2 (early)");
  return asked;
}

/// FLOWDG_VARIABLE_PREFETCH for A/B runs: 0 none, 1 the element kernel's face values, 2 the face
/// kernel's geometry, 3 both (the default) — each with face moments only; anything else an InputError.
/// Session 41 (H100, the 3D vortex, double p = 1, moments): none 16.61-16.64e9, 1 17.28-17.29, 2
/// 17.69-17.79, 3 18.55-18.61; float p = 1 30.12 -> 34.94, p = 3 17.16 -> 18.53 (none -> both).
int variable_prefetch() {
  static const int asked = switch_asked("FLOWDG_VARIABLE_PREFETCH", 0, 3, "0 (none), 1 (elements), 2 (faces) or 3 (both)");
  return asked < 0 ? 3 : asked;
}

/// Step 2's velocity and pressure computed once an element and point (core_element_variable_kernel's
/// Primitives): the measured default, FLOWDG_VARIABLE_PRIMITIVES=0|1 for A/B runs on the default path
/// (face moments, the prefetch, the default blocks an SM and Runge-Kutta loads; anything else an
/// InputError; read at each launch: a test sets it around some steps).
/// (p = 1, 2 only: p = 3's 24 points in double take the static shared memory past 48 KB.)
/// Session 67 (H200, issue 16's periodic case, RK4, Rusanov, 998,250 tetrahedra, one binary, two rounds;
/// docs/results/session67/call8_*): at p = 1 shared 28.47, 28.71e9 DSU/s against 28.11, 28.03 in double
/// (+1.3, +2.4%), 44.84, 44.33 against 43.51, 43.51 in float (+3.1, +1.9%); at p = 2 no gain — double
/// 26.36, 26.32 against 26.39, 26.40, float 43.50, 43.25 against 44.85, 44.49 (-3%: the extra barrier
/// and the points' uneven deal, 14 over five warps, cost more than the five reciprocals saved). The final
/// states agree to 5.3e-16 of the largest value (the compiler contracts the shared expressions otherwise).
constexpr bool variable_default_primitives(bool double_precision, int order) {
  (void)double_precision;
  return order == 1;
}
int variable_primitives_asked() {
  return switch_asked("FLOWDG_VARIABLE_PRIMITIVES", 0, 1, "0 (each warp its own) or 1 (once an element, shared)");
}

/// Step 2's sums chained (core_element_variable_kernel's ChainedSums): the measured default,
/// FLOWDG_VARIABLE_SUMS=0|1 for A/B runs on the default path (p = 1, 2; anything else an InputError; read
/// at each launch).
/// Session 67 (H200, issue 16's periodic case, RK4, Rusanov, 998,250 tetrahedra, one binary, two rounds;
/// docs/results/session67/call16_*): at p = 2 chained 26.89, 26.93e9 DSU/s against 26.15, 26.25 in double
/// (+2.6 to +2.8%), 44.85, 44.70 against 44.46, 44.10 in float (+0.9 to +1.4%); at p = 1 alike (double
/// 28.26, 28.46 against 28.38, 28.35; float 44.23, 43.87 against 43.94, 44.08: not taken there). The final
/// states agree to 5.3e-16 of the largest value (another summation order).
constexpr bool variable_default_chained_sums(bool double_precision, int order) {
  (void)double_precision;
  return order == 2;
}
int variable_sums_asked() {
  return switch_asked("FLOWDG_VARIABLE_SUMS", 0, 1, "0 (the three directions' products summed, then added) or 1 (each added in turn)");
}

template <class Real, int P, int MinBlocks, bool Moments, bool Prefetch, int RkMode = variable_rk_each, bool Primitives = false,
          bool ChainedSums = false>
void launch_variable(const ElementKernel<physics::Euler<3, Real>, Shape::tetrahedron, P, GeometryKind::affine>& kernel, index_t first,
                     index_t count, const VariableKernelTables& tables) {
  constexpr int Np = n_basis(Shape::tetrahedron, P), Nq = variable_volume_points(P), Nfq = variable_face_points(P);
  constexpr int NF = variable_face_rows(P, Nfq, Moments);
  using Tables = VariableTables<Real, Np, Nq, NF>;
  static_assert(sizeof(Tables) + sizeof(kernel) + 2 * sizeof(index_t) <= 32764, "the kernel's parameters exceed CUDA's 32,764 bytes");
  constexpr std::size_t n_values = static_cast<std::size_t>(Np) * (4 * Nq + 4 * NF);
  FLOWDG_ASSERT(tables.order == P && tables.Nq == Nq && tables.Nfq == Nfq && kernel.Nq == Nq && kernel.Nfq == Nfq &&
                    tables.values.size() == n_values && tables.moments == Moments &&
                    (!Moments || tables.node_permutation.size() == static_cast<std::size_t>(6 * NF)),
                "the variable element kernel's tables were built for p = ", tables.order, ", Nq = ", tables.Nq, ", Nfq = ", tables.Nfq,
                tables.moments ? " (moments)" : "", "; the launch is p = ", P, ", Nq = ", kernel.Nq, ", Nfq = ", kernel.Nfq);
  Tables values{};
  Real* out = &values.phi[0][0];
  for (std::size_t i = 0; i < n_values; ++i) out[i] = static_cast<Real>(tables.values[i]);
  if constexpr (Moments)
    for (int i = 0; i < 6 * NF; ++i) values.node_permutation[i / NF][i % NF] = tables.node_permutation[i];
  const auto blocks = static_cast<unsigned>((count + variable_lanes - 1) / variable_lanes);
  constexpr auto function = core_element_variable_kernel<Real, P, Nq, Nfq, MinBlocks, Moments, Prefetch, RkMode, Primitives, ChainedSums>;
  constexpr std::size_t shared = variable_prefetch_bytes<Real, NF, Prefetch>();
  static const bool configured = [] {
    FLOWDG_CUDA_CHECK(cudaFuncSetAttribute(function, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
    return true;
  }();
  (void)configured;
  detail::launch(false, function, blocks, 5 * variable_lanes, shared, kernel, first, count, values);
}

}  // namespace

template <class Real, int P>
void launch_core_element_variable_kernel(const ElementKernel<physics::Euler<3, Real>, Shape::tetrahedron, P, GeometryKind::affine>& kernel,
                                         index_t first, index_t count, const VariableKernelTables& tables) {
  if (count <= 0) return;
  // The face values prefetched with moments only: with point values (7 rows at p = 2, 54 KB of
  // shared memory a block in double) it cost a block an SM, 17.7 against 20.5e9 (session 41).
  const bool prefetch = tables.moments && (variable_prefetch() & 1) != 0;
  constexpr bool double_precision = std::is_same_v<Real, double>;
  constexpr int default_blocks = variable_default_blocks(double_precision, P), default_rk = variable_default_rk(double_precision, P);
  const int blocks = variable_blocks(double_precision, P), rk = variable_rk_asked();
  constexpr bool default_primitives = variable_default_primitives(double_precision, P);
  constexpr bool default_chained = variable_default_chained_sums(double_precision, P);
  // The element kernel's A/B switches on the default path at p = 1, 2, one at a time away from its default
  // (p = 3's 24 points in double would take the primitives' static shared memory past 48 KB).
  const int primitives = variable_primitives_asked(), sums = variable_sums_asked();
  const bool other_primitives = primitives >= 0 && (primitives == 1) != default_primitives;
  const bool other_sums = sums >= 0 && (sums == 1) != default_chained;
  if (other_primitives || other_sums) {
    const char* name = other_sums ? "FLOWDG_VARIABLE_SUMS=" : "FLOWDG_VARIABLE_PRIMITIVES=";
    if (P > 2 || !prefetch || blocks != default_blocks || (rk >= 0 && rk != default_rk) || (other_primitives && other_sums))
      throw InputError(cat(name, other_sums ? sums : primitives, " is built for the default path at p = 1, 2 only ",
                           "(face moments, the prefetch, ", default_blocks, " blocks an SM, the default Runge-Kutta loads; ",
                           "FLOWDG_VARIABLE_PRIMITIVES and _SUMS one at a time away from their defaults)"));
    if constexpr (P <= 2) {
      const auto run = [&]<bool Primitives, bool Chained>() {
        launch_variable<Real, P, default_blocks, true, true, default_rk, Primitives, Chained>(kernel, first, count, tables);
      };
      if (other_sums) run.template operator()<default_primitives, !default_chained>();
      else run.template operator()<!default_primitives, default_chained>();
    }
    return;
  }
  if (prefetch && rk >= 0 && rk != default_rk) {  // the other Runge-Kutta loads (A/B runs)
    // (double p = 2 also at four blocks, the default before session 44)
    constexpr bool four = double_precision && P == 2;
    if (blocks != default_blocks && !(four && blocks == 4))
      throw InputError(cat("FLOWDG_VARIABLE_RK=", rk, " is built for the default blocks an SM (", default_blocks, ")",
                           four ? " and 4" : "", " only"));
    const auto other = [&]<int Mode>() {
      if constexpr (Mode != default_rk) {
        if constexpr (four) {
          if (blocks == 4) return launch_variable<Real, P, 4, true, true, Mode>(kernel, first, count, tables);
        }
        launch_variable<Real, P, default_blocks, true, true, Mode>(kernel, first, count, tables);
      }
    };
    if (rk == variable_rk_each) other.template operator()<variable_rk_each>();
    else if (rk == variable_rk_batched) other.template operator()<variable_rk_batched>();
    else other.template operator()<variable_rk_early>();
    return;
  }
  with_min_blocks(blocks, [&]<int Blocks>() {
    if (!tables.moments) launch_variable<Real, P, Blocks, false, false>(kernel, first, count, tables);
    else if (prefetch)
      launch_variable<Real, P, Blocks, true, true, default_rk, default_primitives, default_chained>(kernel, first, count, tables);
    else launch_variable<Real, P, Blocks, true, false>(kernel, first, count, tables);
  });
}

namespace {

/// The face kernel's interpolation table L_i(y_q) (moments; one row where unused) and the nodes'
/// permutations (node traces: the plus side's node for the minus side's node i, by orientation).
template <class Real, int Nn, int Nfq>
struct FaceMomentParameters {
  Real L[Nn][Nfq];
  int node_permutation[6][Nn];
};

/// How the face kernel evaluates the traces at the face points:
///   face_traces_points: sum_j c_j phi_j(x_q), the point table [l][q][j] from shared memory a value
///     a load;
///   face_traces_pairs: the same sums in the same order, two table values a load (rows padded to
///     an even length);
///   face_traces_nodes (face moments only): the trace at the face's Nn equispaced nodes first
///     (node_phi [l][i][j], pairs), then at the points through the nodes' Lagrange basis,
///     u(x_q) = sum_i L_i(x_q) u(y_i) (exact: the trace is a polynomial of degree p on the face) —
///     the same table for every face and lane, a constant-bank operand: Nn Np shared-memory
///     products and Nfq Nn constant ones instead of Nfq Np (p = 4: 525 + 285 against 665);
///   face_traces_buffer (interior faces with moments): the nodes' values read from the sides' trace
///     buffers (FaceTraceBuffer, filled by face_traces_kernel at the stage's start), then as nodes;
///   face_traces_buffer_points (interior faces with moments and the prefetch): the trace buffers hold
///     the traces at the face points (FaceTraceBuffer::points): no first phase — a thread per (face,
///     point), a face's points in consecutive lanes, reads both sides' five values there (the plus
///     side's through the points' permutation: the same sectors) and runs the flux, whose scaled
///     values go to shared memory face-major ([(face Nfq + q) 5 + v]: conflict-free for both the
///     point threads' stores and the moments' (v, face) threads' loads).
///   face_traces_buffer_point_pairs: the same, two (face, point) items a thread at a time, both
///     items' loads issued before either flux (the points' kernel waits on its loads: ncu's long
///     scoreboard 10.7 of its cycles an instruction); the default with the Rusanov flux since session 55
///     (FLOWDG_FACE_POINT_PAIRS=0: one item a thread): session 54 (H200, double p = 4, one
///     binary, two rounds, docs/results/session54/call14_*) four blocks an SM 16.96, 17.00e9 against
///     the points' default (six blocks) 16.52, 16.51 — the same bits — five 16.40-16.47, six 16.15-16.20
///     (64 registers: spilled, 2.1 GB a stage instead of 1.7).
constexpr int face_traces_points = 0, face_traces_pairs = 1, face_traces_nodes = 2, face_traces_buffer = 3, face_traces_buffer_points = 4,
              face_traces_buffer_point_pairs = 5;
constexpr bool face_traces_at_points(int traces) { return traces == face_traces_buffer_points || traces == face_traces_buffer_point_pairs; }

/// The face kernel's table row length: Np, or with pairs Np padded to an even count (every row on 16
/// bytes). Session 43: the padding (p = 4: 36) cost more than the pairs saved — rows 36 doubles
/// apart fall on 4 of shared memory's 16 double-wide bank positions, and the plus side's permuted
/// rows conflict (12.10-12.15e9 points or pairs padded against 12.92 unpadded); rows of an odd
/// length (35) spread over all 16. So pairs where Np is even only (node traces too).
constexpr int face_table_row(int traces, int Np) { return traces == face_traces_pairs && Np % 2 == 1 ? Np + 1 : Np; }
constexpr bool face_table_pairs(int traces, int Np) { return traces == face_traces_pairs || (traces == face_traces_nodes && Np % 2 == 0); }

/// node_phi of FaceMomentTables on the device, a table an order and precision (the same values for
/// every face rule: phi_j at the equispaced nodes), copied once (upload_node_phi) to the current
/// device: one device a process (apps/flowdg selects each rank's before its first launch).
template <class Real, int P>
__device__ Real variable_node_phi[4 * face_moment_nodes(P) * n_basis(Shape::tetrahedron, P)];

template <class Real, int P>
void upload_node_phi(const FaceMomentTables& tables) {
  static std::once_flag once;
  std::call_once(once, [&] {
    constexpr std::size_t size = 4 * face_moment_nodes(P) * n_basis(Shape::tetrahedron, P);
    FLOWDG_ASSERT(tables.node_phi.size() == size, "node_phi: ", tables.node_phi.size(), " values at p = ", P, ", expected ", size);
    const std::vector<Real> values(tables.node_phi.begin(), tables.node_phi.end());
    FLOWDG_CUDA_CHECK(cudaMemcpyToSymbol(variable_node_phi<Real, P>, values.data(), size * sizeof(Real)));
  });
}


/// FaceTraceBuffer's product (core_variable_kernels.hpp) for a block of trace_elements = 8 elements:
/// warp w row tile w of N (8 of the 4 Nn face nodes), every k step, all five column tiles (a
/// variable's 8 elements each: each A fragment loaded once for five products); U's B fragments from
/// shared memory (rows of trace_stride = 44 doubles: a half warp's four rows fall on disjoint banks),
/// N's A fragments from the table in fragment order. Float storage: the coefficients converted to
/// double on their way into shared memory, the traces rounded to float as they are stored.
/// Points: N's rows at the face rule's points (FaceTraceBuffer::points; Nn below their count).
constexpr int trace_elements = 8, trace_stride = 44;
template <int P, bool Points>
constexpr int trace_rows() {
  return Points ? variable_face_points(P) : face_moment_nodes(P);
}
template <int P, bool Points>
constexpr int trace_warps() {
  return (4 * trace_rows<P, Points>() + 7) / 8;
}

template <class Real, int P, bool Points>
__global__ void __launch_bounds__(32 * trace_warps<P, Points>())
    face_traces_kernel(const Real* __restrict__ u, index_t Ks, index_t first, index_t K, Real* __restrict__ traces,
                       const double* __restrict__ tables) {
  constexpr int Np = n_basis(Shape::tetrahedron, P), Nn = trace_rows<P, Points>(), NV = 5, E = trace_elements, ST = trace_stride;
  constexpr int KC = (Np + 3) / 4 * 4, threads = 32 * trace_warps<P, Points>();
  static_assert(NV * E <= ST, "a shared row holds the five column tiles");
  __shared__ __align__(16) double s_u[KC * ST];
  detail::wait_for_previous_grid();
  const index_t e0 = first + static_cast<index_t>(blockIdx.x) * E;
  const int n_local = static_cast<int>(K - e0 < E ? K - e0 : E);
  // U -> shared (zeros past Np and past the group's end), two elements a thread.
  for (int i = static_cast<int>(threadIdx.x); i < KC * NV * E / 2; i += threads) {
    const int el = 2 * (i % (E / 2)), row = i / (E / 2), v = row / KC, j = row % KC;
    double* destination = s_u + j * ST + v * E + el;
    if (j >= Np) {
      destination[0] = destination[1] = 0.0;
      continue;
    }
    device::copy_pair(destination, u + (static_cast<index_t>(v) * Np + j) * Ks + e0 + el, el, n_local);
  }
  device::copy_async_commit();
  device::copy_async_wait();
  __syncthreads();
  const int lane = static_cast<int>(threadIdx.x) % 32, mt = static_cast<int>(threadIdx.x) / 32;
  double acc[NV][2] = {};
#pragma unroll
  for (int ks = 0; ks < KC / 4; ++ks) {
    const double a = __ldg(tables + fragment_index(mt, ks, lane, KC));
    const double* b = s_u + (ks * 4 + lane % 4) * ST + lane / 4;
#pragma unroll
    for (int v = 0; v < NV; ++v) device::dmma_8x8x4(acc[v], a, b[v * E]);
  }
  const int r = mt * 8 + lane / 4;  // the row: face l = r / Nn, node i = r % Nn
  if (r >= 4 * Nn) return;
  const int l = r / Nn, node = r % Nn;
#pragma unroll
  for (int c = 0; c < 2; ++c) {
    const int el = 2 * (lane % 4) + c;
    if (el >= n_local) continue;
#pragma unroll
    for (int v = 0; v < NV; ++v) traces[(((e0 + el) * 4 + l) * NV + v) * Nn + node] = static_cast<Real>(acc[v][c]);
  }
}

/// Boundary faces: up to max_groups face groups of one kernel instantiation in one launch (each with its
/// own condition, flow, geometry, faces and flux rows: its FaceKernel); group b takes blocks
/// [first_block[b], first_block[b + 1]), a block 32 faces of one group. A boundary group's launch
/// lasts about its blocks' latency however few they are (session 64: 0.020 ms for 100 blocks of the
/// 3D vortex's 3,200-face sides at p = 3, four such launches a stage 5% of it); side by side, the
/// groups share it.
template <class K>
struct FaceKernelBatch {
  static constexpr int max_groups = boundary_batch_groups;
  K kernel[max_groups];
  index_t n[max_groups] = {};
  unsigned first_block[max_groups + 1] = {};
  int count = 0;
};

/// A launch's kernel `group`: an interior launch's FaceKernel itself, a boundary batch's group's.
template <class K>
FLOWDG_HD FLOWDG_FORCEINLINE const K& batch_kernel(const K& kernel, int) {
  return kernel;
}
template <class K>
FLOWDG_HD FLOWDG_FORCEINLINE const K& batch_kernel(const FaceKernelBatch<K>& batch, int group) {
  return batch.kernel[group];
}

template <class Real, int P, bool Boundary>
using VariableFaceKernel = FaceKernel<physics::Euler<3, Real>, Shape::tetrahedron, Shape::tetrahedron, P, GeometryKind::affine, Boundary>;
/// The variable face kernel's first argument: an interior launch's FaceKernel, a boundary launch's batch.
template <class Real, int P, bool Boundary>
using VariableFaceArgument = std::conditional_t<Boundary, FaceKernelBatch<VariableFaceKernel<Real, P, true>>, VariableFaceKernel<Real, P, false>>;

template <class Real, int P, int Nfq, int Riemann, int MinBlocks, bool Boundary, bool Moments, bool Prefetch, int Traces = face_traces_pairs>
__global__ void __launch_bounds__(5 * variable_lanes, MinBlocks) core_face_variable_kernel(
    const __grid_constant__ VariableFaceArgument<Real, P, Boundary> given, index_t n_faces,
    const __grid_constant__ FaceMomentParameters<Real, Moments ? face_moment_nodes(P) : 1, Nfq> moments, const Real* __restrict__ traces_m,
    const Real* __restrict__ traces_p) {
  // (boundary: this block's group of the batch — its kernel, its faces and the block among them)
  int group = 0;
  if constexpr (Boundary)
    while (group + 1 < given.count && blockIdx.x >= given.first_block[group + 1]) ++group;
  const VariableFaceKernel<Real, P, Boundary>& k = batch_kernel(given, group);
  index_t n = n_faces, block = blockIdx.x;
  if constexpr (Boundary) {
    n = given.n[group];
    block -= given.first_block[group];
  }
  static_assert(Moments || !Boundary, "boundary faces take the kernel with moments only");
  static_assert((Traces != face_traces_buffer && !face_traces_at_points(Traces)) || (Moments && !Boundary),
                "the trace buffer on interior faces with moments only");
  static_assert(!face_traces_at_points(Traces) || Prefetch, "the trace buffer at the points: with the geometry prefetched");
  static_assert(!Prefetch || (Moments && !Boundary), "the geometry is prefetched on interior faces with moments");
  static_assert(Traces != face_traces_nodes || Moments, "node traces with face moments only");
  // Prefetch: each face's unit normal and |N| (the affine face geometry, [c Gs + local]) and the
  // face weights, loaded beside the coefficients in the first phase (the point flux loads them
  // after the traces otherwise).
  __shared__ Real s_geometry[Prefetch ? 4 : 1][variable_lanes];
  __shared__ Real s_weight[Prefetch ? Nfq : 1];
  constexpr int Np = n_basis(Shape::tetrahedron, P), NV = 5, E = variable_lanes, Rw = face_table_row(Traces, Np);
  constexpr bool point_buffer = face_traces_at_points(Traces), buffer = Traces == face_traces_buffer || point_buffer;
  constexpr bool point_pairs = Traces == face_traces_buffer_point_pairs;
  constexpr bool nodes = Traces == face_traces_nodes || Traces == face_traces_buffer;
  constexpr int Nn = face_moment_nodes(P), rows = nodes ? Nn : Nfq, table = buffer ? 0 : 4 * rows * Rw, sides = Boundary ? 1 : 2;
  extern __shared__ __align__(16) unsigned char variable_face_shared[];
  Real* s_phi = reinterpret_cast<Real*>(variable_face_shared);  // [(l rows + q) Rw + j], zero past Np
  Real* s_trace = s_phi + table;                                 // [((side Nfq + q) NV + v) E + lane] (point_buffer: [(lane Nfq + q) NV + v])
  // where point q's variable w of this block's face `face` (minus side) lies in s_trace
  const auto slot = [](int face, int q, int w) { return point_buffer ? (face * Nfq + q) * NV + w : (q * NV + w) * E + face; };
  const Real* source;
  if constexpr (nodes) source = variable_node_phi<Real, P>;
  else source = k.face_phi_m.data;
  for (int i = static_cast<int>(threadIdx.x); i < table; i += 5 * E) s_phi[i] = i % Rw < Np ? source[i / Rw * Np + i % Rw] : Real(0);
  __shared__ int s_node_permutation[nodes ? 6 * Nn : point_buffer ? 6 * Nfq : 1];
  if constexpr (nodes)
    for (int i = static_cast<int>(threadIdx.x); i < 6 * Nn; i += 5 * E) s_node_permutation[i] = moments.node_permutation[i / Nn][i % Nn];
  if constexpr (point_buffer)  // the face points' permutations [orientation Nfq + q]
    for (int i = static_cast<int>(threadIdx.x); i < 6 * Nfq; i += 5 * E) s_node_permutation[i] = k.permutation[i];
  // point_buffer: each face's two sides' first values in the buffers and its orientation
  __shared__ index_t s_side_base[point_buffer ? 2 : 1][point_buffer ? E : 1];
  __shared__ int s_orientation[point_buffer ? E : 1];
  const int v = static_cast<int>(threadIdx.x) / E;  // the same in a warp
  const int lane = static_cast<int>(threadIdx.x) % E;
  const index_t local = block * E + lane;
  const index_t f = k.begin + (local < n ? local : 0);  // a lane past the end sums face `begin`'s traces, stores nothing
  if constexpr (Prefetch) {
    if (v < 4) s_geometry[v][lane] = k.geometry[v * k.Gs + (local < n ? local : 0)];
    if (threadIdx.x < Nfq) s_weight[threadIdx.x] = k.face_weight[threadIdx.x];
  }
  if constexpr (point_buffer) {
    if (v == 4) {
      s_side_base[0][lane] = (k.index.element_m[f] * 4 + k.index.local_m[f]) * NV * Nfq;
      s_side_base[1][lane] = (k.index.element_p[f] * 4 + k.index.local_p[f]) * NV * Nfq;
      s_orientation[lane] = k.index.orientation[f];
    }
  }
  __syncthreads();  // the table
  // One side at a time (its Np coefficients in registers): the minus side at the face's points, the
  // plus side at its own points of them (the orientation's permutation); a boundary face its minus side.
#pragma unroll
  for (int side = 0; side < (point_buffer ? 0 : sides); ++side) {
    const View<const Real>& u = side == 0 ? k.u_m : k.u_p;
    const index_t stride = side == 0 ? k.Ks_m : k.Ks_p, element = side == 0 ? k.index.element_m[f] : k.index.element_p[f];
    Real c[buffer ? 1 : Np];
    if constexpr (!buffer) {
      const index_t offset = element * (side == 0 ? k.Es_m : k.Es_p);  // (StateLayout)
#pragma unroll
      for (int j = 0; j < Np; ++j) c[j] = u[(static_cast<index_t>(v) * Np + j) * stride + offset];
    }
    const Real* phi = s_phi + (side == 0 ? k.index.local_m[f] : k.index.local_p[f]) * rows * Rw;
    // sum_j c_j row_j, with pairs two table values a load (the same sums in the same order)
    const auto row_sum = [&](const Real* row) {
      Real sum = 0;
      if constexpr (buffer) {
        (void)row;
      } else if constexpr (!face_table_pairs(Traces, Np)) {
#pragma unroll
        for (int j = 0; j < Np; ++j) sum += c[j] * row[j];
      } else {
        using Pair = std::conditional_t<std::is_same_v<Real, double>, double2, float2>;
        const Pair* pairs = reinterpret_cast<const Pair*>(row);
#pragma unroll
        for (int j = 0; j + 1 < Np; j += 2) {
          const Pair value = pairs[j / 2];
          sum += c[j] * value.x;
          sum += c[j + 1] * value.y;
        }
        if constexpr (Np % 2 == 1) sum += c[Np - 1] * row[Np - 1];
      }
      return sum;
    };
    if constexpr (nodes) {
      const int* permutation = side == 0 ? nullptr : &s_node_permutation[k.index.orientation[f] * Nn];
      Real at_node[Nn];
      if constexpr (buffer) {
        // this side's Nn values of variable v at its face (FaceTraceBuffer's layout)
        const Real* mine = (side == 0 ? traces_m : traces_p) +
                           ((element * 4 + (side == 0 ? k.index.local_m[f] : k.index.local_p[f])) * NV + v) * Nn;
#pragma unroll
        for (int i = 0; i < Nn; ++i) at_node[i] = mine[side == 0 ? i : permutation[i]];
      } else {
#pragma unroll
        for (int i = 0; i < Nn; ++i) at_node[i] = row_sum(phi + (side == 0 ? i : permutation[i]) * Rw);
      }
#pragma unroll
      for (int q = 0; q < Nfq; ++q) {
        Real sum = 0;
#pragma unroll
        for (int i = 0; i < Nn; ++i) sum += moments.L[i][q] * at_node[i];
        s_trace[((side * Nfq + q) * NV + v) * E + lane] = sum;
      }
    } else {
      const int* permutation = side == 0 ? nullptr : &k.permutation[k.index.orientation[f] * Nfq];
#pragma unroll
      for (int q = 0; q < Nfq; ++q) s_trace[((side * Nfq + q) * NV + v) * E + lane] = row_sum(phi + (side == 0 ? q : permutation[q]) * Rw);
    }
  }
  if constexpr (!point_buffer) __syncthreads();  // the traces
  // A thread per (face, point), the faces of a point in consecutive lanes (the stores coalesce); with
  // point_buffer a face's points in consecutive lanes (the buffers' loads coalesce).
  // point_buffer: point q of block face `face`'s two sides' values from the buffers, and its scaled
  // flux (the prefetched geometry) into shared memory, face-major
  [[maybe_unused]] const auto load_point = [&](int face, int q, auto& um, auto& up) {
    const Real* mine = traces_m + s_side_base[0][face] + q;
    const Real* theirs = traces_p + s_side_base[1][face] + s_node_permutation[s_orientation[face] * Nfq + q];
#pragma unroll
    for (int w = 0; w < NV; ++w) {
      um[w] = mine[w * Nfq];
      up[w] = theirs[w * Nfq];
    }
  };
  [[maybe_unused]] const auto flux_to_shared = [&](int face, int q, const auto& um, const auto& up) {
    typename physics::Euler<3, Real>::Direction normal;
#pragma unroll
    for (int d = 0; d < 3; ++d) normal[d] = s_geometry[d][face];
    const auto value = numerical_flux(static_cast<physics::RiemannKind>(Riemann), k.physics, um, up, normal);
    const Real scale = s_weight[q] * s_geometry[3][face];
#pragma unroll
    for (int w = 0; w < NV; ++w) s_trace[slot(face, q, w)] = scale * value[w];
  };
  if constexpr (point_pairs) {
    // two items a thread at a time: both items' ten loads in flight before either flux
    constexpr int items = Nfq * E, step = 5 * E;
    for (int i0 = static_cast<int>(threadIdx.x); i0 < items; i0 += 2 * step) {
      typename physics::Euler<3, Real>::State um[2] = {}, up[2] = {};
      int qs[2], faces[2];
      bool valid[2];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int i = i0 + h * step;
        qs[h] = i % Nfq;
        faces[h] = i / Nfq;
        valid[h] = i < items && block * E + faces[h] < n;
        if (valid[h]) load_point(faces[h], qs[h], um[h], up[h]);
      }
#pragma unroll
      for (int h = 0; h < 2; ++h)
        if (valid[h]) flux_to_shared(faces[h], qs[h], um[h], up[h]);
    }
  }
  for (int i = static_cast<int>(threadIdx.x); i < (point_pairs ? 0 : Nfq * E); i += 5 * E) {
    const int q = point_buffer ? i % Nfq : i / E, face = point_buffer ? i / Nfq : i % E;
    const index_t at = block * E + face;
    if (at >= n) continue;
    typename physics::Euler<3, Real>::State um, up{};
    if constexpr (point_buffer) {
      load_point(face, q, um, up);
    } else {
#pragma unroll
      for (int w = 0; w < NV; ++w) {
        um[w] = s_trace[(q * NV + w) * E + face];
        if constexpr (!Boundary) up[w] = s_trace[((Nfq + q) * NV + w) * E + face];
      }
    }
    if constexpr (Prefetch) {
      // point_flux's arithmetic with the prefetched geometry: the scaled flux into this thread's own
      // minus-trace slots.
      flux_to_shared(face, q, um, up);
    } else if constexpr (Moments) {
      // The scaled flux into this thread's own minus-trace slots.
      typename physics::Euler<3, Real>::State jump;
      Real scale;
      const auto value = k.template point_flux<Riemann>(at, q, um, up, jump, scale);
#pragma unroll
      for (int w = 0; w < NV; ++w) s_trace[(q * NV + w) * E + face] = value[w];
    } else {
      k.template finish<Riemann>(at, q, um, up);
    }
  }
  if constexpr (Moments) {
    // Thread (v, face): m_i = sum_q L_i(y_q) s_q, stored where the point values were (rows i < Nn).
    __syncthreads();  // the scaled fluxes
    if (local < n) {
      Real s[Nfq];
#pragma unroll
      for (int q = 0; q < Nfq; ++q) s[q] = s_trace[slot(lane, q, v)];
#pragma unroll
      for (int i = 0; i < face_moment_nodes(P); ++i) {
        Real sum = 0;
#pragma unroll
        for (int q = 0; q < Nfq; ++q) sum += moments.L[i][q] * s[q];
        k.flux[(static_cast<index_t>(v) * Nfq + i) * k.Fs + k.begin + local] = sum;
      }
    }
  }
}

/// The interior face kernel on the FP64 tensor cores (where the trace buffer holds the coefficients'
/// element-major copy, setup.hpp face_trace_mode 3, or the groups hold their state element-major — mode
/// 4, the default at p = 3: aos_m, aos_p are then u itself; gathering them, face_tensor_chosen, A/B): a warp
/// takes a tile of 8 consecutive faces end to end, with no shared memory between its block's warps and
/// no block barrier.
///   0. both sides' coefficients of the tile -> the warp's shared rows, every copy in flight at once
///      (cp.async: from the [(v Np + j) Ks + e] rows one value each, [j ST + v 8 + face]; with
///      Aos: from the element-major copy or state (face_trace_mode 3, 4), 16 bytes each, face-major
///      [face NV Np + v Np + j]);
///   1. each side's traces at the face points, T = Phi_l U (m16n8k4: the points' 16 rows, Phi_l the
///      face point table of local face l, [16 x KC] in fragment order, from FaceMomentTables; U's B
///      fragments from those rows, column v 8 + face, lane l's face l / 4). A product takes one table
///      for its 8 columns, so a side runs one pass a class of its faces present in the tile — the
///      minus side's class its local face l_m, the plus side's (l_p, orientation), whose A rows are
///      the plus side's points of the minus side's (the orientation's permutation) — each pass's B
///      masked to its class's faces (zeros elsewhere: the other columns' sums unchanged). On the
///      Kuhn-split cubes 1.49 classes a tile by family (groups.hpp), 1.21 by window (FaceOrder::window,
///      the operator's order where it reads the copy).
///      The minus side's traces go to the warp's rows [q ST + v 8 + face], the plus side's stay in
///      the D fragments: lane l holds them at points l / 4 and 8 + l / 4 of faces 2 (l % 4) and
///      2 (l % 4) + 1;
///   2. the flux at those four (face, point) items, scaled by w_q |N|, in place of the minus traces
///      (each lane reads and writes only its own slots);
///   3. the nodal moments m_i = sum_q L_i(x_q) s_q (FaceMomentTables) = L S on the tensor cores
///      (L [16 x KQ] in fragment order, S's B fragments from those rows), stored as the variable face
///      kernel's moments ([(v Nfq + i) Fs + f]).
/// The products in double (float storage: the coefficients converted, the flux in float, the moments
/// rounded to float). Built for p = 3 (15 face points: one m16n8k4 row pair; 10 nodes). Four blocks
/// of four warps an SM (double: 120-128 registers, 56 KB of shared memory a block, no spills).
constexpr int face_tensor_warps = 4;
template <int P>
struct FaceTensorSizes {
  static constexpr int Np = n_basis(Shape::tetrahedron, P), Nfq = variable_face_points(P), Nn = face_moment_nodes(P);
  static constexpr int KC = (Np + 3) / 4 * 4, KQ = (Nfq + 3) / 4 * 4, ST = 5 * 8 + 4;  // ST: a shared row (44: conflict-free B loads)
  static_assert(Nfq <= 16 && Nn <= 16, "the face tensor kernel: one m16n8k4 row pair of points and of nodes");
  /// A warp's shared bytes: the minus side's coefficients (Real, KC rows of ST), later its traces and
  /// then the scaled fluxes (double, KQ rows), then the plus side's coefficients.
  template <class Real>
  static constexpr std::size_t first_bytes() {
    return std::max(sizeof(Real) * KC * ST, sizeof(double) * KQ * ST) / 16 * 16 + 16;
  }
  template <class Real>
  static constexpr std::size_t warp_bytes() {
    return first_bytes<Real>() + (sizeof(Real) * KC * ST + 15) / 16 * 16;
  }
};
template <int P>
__device__ double face_tensor_phi[4 * 16 * FaceTensorSizes<P>::KC];  // Phi_l, l = 0..3, each 16 x KC in fragment order
template <int P>
__device__ double face_tensor_L[16 * FaceTensorSizes<P>::KQ];        // L [i][q], 16 x KQ in fragment order

/// The tables from FaceMomentTables, once a process (one device a process, as upload_node_phi):
/// Phi_l[q][j] = sum_i L_i(x_q) phi_j(y_i) (phi_j on a face is a polynomial of degree p: its
/// interpolant at the nodes is itself), zero rows and columns to the padded sizes.
template <int P>
void upload_face_tensor_tables(const FaceMomentTables& tables) {
  static std::once_flag once;
  std::call_once(once, [&] {
    using Z = FaceTensorSizes<P>;
    FLOWDG_ASSERT(tables.order == P && tables.Nfq == Z::Nfq && tables.interpolation.size() == static_cast<std::size_t>(Z::Nn * Z::Nfq) &&
                      tables.node_phi.size() == static_cast<std::size_t>(4 * Z::Nn * Z::Np),
                  "the face tensor kernel's tables: p = ", tables.order, ", Nfq = ", tables.Nfq, " against p = ", P, ", Nfq = ", Z::Nfq);
    std::vector<double> phi(static_cast<std::size_t>(4 * 16 * Z::KC), 0.0), L(static_cast<std::size_t>(16 * Z::KQ), 0.0);
    for (int l = 0; l < 4; ++l) {
      const std::size_t offset = static_cast<std::size_t>(l) * 16 * Z::KC;
      for (int q = 0; q < Z::Nfq; ++q)
        for (int j = 0; j < Z::Np; ++j) {
          double sum = 0;
          for (int i = 0; i < Z::Nn; ++i)
            sum += tables.interpolation[static_cast<std::size_t>(i) * Z::Nfq + q] * tables.node_phi[(static_cast<std::size_t>(l) * Z::Nn + i) * Z::Np + j];
          phi[offset + static_cast<std::size_t>(q) * Z::KC + j] = sum;
        }
      to_fragment_order(phi, offset, 16, Z::KC);
    }
    for (int i = 0; i < Z::Nn; ++i)
      for (int q = 0; q < Z::Nfq; ++q) L[static_cast<std::size_t>(i) * Z::KQ + q] = tables.interpolation[static_cast<std::size_t>(i) * Z::Nfq + q];
    to_fragment_order(L, 0, 16, Z::KQ);
    FLOWDG_CUDA_CHECK(cudaMemcpyToSymbol(face_tensor_phi<P>, phi.data(), phi.size() * sizeof(double)));
    FLOWDG_CUDA_CHECK(cudaMemcpyToSymbol(face_tensor_L<P>, L.data(), L.size() * sizeof(double)));
  });
}

template <class Real, int P, int Riemann, int MinBlocks, bool Aos = false>
__global__ void __launch_bounds__(32 * face_tensor_warps, MinBlocks) core_face_tensor_kernel(
    const FaceKernel<physics::Euler<3, Real>, Shape::tetrahedron, Shape::tetrahedron, P, GeometryKind::affine, false> k, index_t n,
    const Real* __restrict__ aos_m, const Real* __restrict__ aos_p) {
  using Z = FaceTensorSizes<P>;
  using State = typename physics::Euler<3, Real>::State;
  constexpr int Np = Z::Np, Nfq = Z::Nfq, Nn = Z::Nn, KC = Z::KC, KQ = Z::KQ, ST = Z::ST, NV = 5;
  extern __shared__ __align__(16) unsigned char face_tensor_shared[];
  detail::wait_for_previous_grid();
  const int lane = static_cast<int>(threadIdx.x) % 32, warp = static_cast<int>(threadIdx.x) / 32;
  const index_t tile = (static_cast<index_t>(blockIdx.x) * face_tensor_warps + warp) * 8;  // the tile's first face (group-local)
  if (tile >= n) return;  // the whole warp
  unsigned char* mine_bytes = face_tensor_shared + warp * Z::template warp_bytes<Real>();
  double* s = reinterpret_cast<double*>(mine_bytes);  // the minus traces, then the scaled fluxes: [q ST + v 8 + face]
  Real* s_u[2] = {reinterpret_cast<Real*>(mine_bytes), reinterpret_cast<Real*>(mine_bytes + Z::template first_bytes<Real>())};  // [j ST + v 8 + face]
  // 0. Both sides' coefficients of the tile's faces -> the warp's rows (asynchronous copies, all in
  //    flight at once; zeros past the group's faces): lane l copies face l % 8's.
  {
    const int face = lane % 8;
    const bool valid = tile + face < n;
    const index_t f = k.begin + tile + (valid ? face : 0);
    const index_t copy_element[2] = {k.index.element_m[f], k.index.element_p[f]};
    if constexpr (Aos) {
      // (A/B: element-major copies of the coefficients, [(e NV + v) Np + j]: a face's side is NV Np
      // contiguous values, copied 16 bytes at a time into face-major rows [face NV Np + v Np + j])
      constexpr int C = 16 / sizeof(Real), chunks = NV * Np / C;
      static_assert(NV * Np % C == 0, "whole 16-byte chunks a face");
#pragma unroll
      for (int side = 0; side < 2; ++side) {
        const Real* aos = side == 0 ? aos_m : aos_p;
#pragma unroll
        for (int i = 0; i < (8 * chunks + 31) / 32; ++i) {
          const int chunk = lane + 32 * i, at = chunk / chunks, w = chunk % chunks;
          const index_t e = __shfl_sync(0xffffffffu, copy_element[side], at % 8);
          const bool here = tile + at < n;
          if (chunk < 8 * chunks) {
            Real* destination = s_u[side] + at * (NV * Np) + w * C;
            if (here) device::copy_async_16(reinterpret_cast<double*>(destination), aos + e * (NV * Np) + w * C);
            else
              for (int x = 0; x < C; ++x) destination[x] = Real(0);
          }
        }
      }
    } else {
#pragma unroll
      for (int side = 0; side < 2; ++side) {
        const Real* u = side == 0 ? k.u_m.data : k.u_p.data;
        const index_t stride = side == 0 ? k.Ks_m : k.Ks_p, offset = copy_element[side] * (side == 0 ? k.Es_m : k.Es_p);  // (StateLayout)
#pragma unroll
        for (int i = 0; i < NV * KC / 4; ++i) {
          const int r = lane / 8 + 4 * i, v = r / KC, j = r % KC;  // r = v KC + j
          Real* destination = s_u[side] + j * ST + v * 8 + face;
          if (valid && j < Np) device::copy_async(destination, u + (static_cast<index_t>(v) * Np + j) * stride + offset);
          else *destination = Real(0);
        }
      }
    }
    device::copy_async_commit();
  }
  const int row = lane / 4, kcol = lane % 4;  // the fragments' row (D, A) / column (B) and k index
  // B: lane's face `row`: its classes
  const bool b_valid = tile + row < n;
  const index_t fb = k.begin + tile + (b_valid ? row : 0);
  const int class_of[2] = {k.index.local_m[fb], k.index.local_p[fb] * 6 + k.index.orientation[fb]};
  device::copy_async_wait();
  __syncwarp();
  // 1. The traces: side's variable v at point row + 8 h of face 2 kcol + c in acc[v][h][c]; the
  //    minus side's then to the warp's rows [q ST + v 8 + face] (the same lane's slots that step 2
  //    reads and overwrites: no other lane touches them), the plus side's kept for step 2.
  double acc[NV][2][2];
#pragma unroll
  for (int side = 0; side < 2; ++side) {
#pragma unroll
    for (int v = 0; v < NV; ++v) acc[v][0][0] = acc[v][0][1] = acc[v][1][0] = acc[v][1][1] = 0.0;
    unsigned classes = __reduce_or_sync(0xffffffffu, b_valid ? 1u << class_of[side] : 0u);
    while (classes != 0) {  // uniform in the warp
      const int c = __ffs(static_cast<int>(classes)) - 1;
      classes &= classes - 1;
      const bool mine = class_of[side] == c;
      const double* table = face_tensor_phi<P> + (side == 0 ? c : c / 6) * 16 * KC;
      int a_row[2];  // the table rows of this lane's A fragments (the plus side's points of the minus side's)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int q = row + 8 * h;
        a_row[h] = side == 1 && q < Nfq ? k.permutation[(c % 6) * Nfq + q] : q;
      }
#pragma unroll
      for (int ks = 0; ks < KC / 4; ++ks) {
        const double a_top = __ldg(table + fragment_index(a_row[0] / 8, ks, (a_row[0] % 8) * 4 + kcol, KC));
        const double a_bottom = __ldg(table + fragment_index(a_row[1] / 8, ks, (a_row[1] % 8) * 4 + kcol, KC));
        const int j = ks * 4 + kcol;
        const Real* b = Aos ? s_u[side] + row * (NV * Np) + j : s_u[side] + j * ST + row;
#pragma unroll
        for (int v = 0; v < NV; ++v)
          device::dmma_16x8x4(acc[v][0], acc[v][1], a_top, a_bottom, mine && j < Np ? static_cast<double>(b[Aos ? v * Np : v * 8]) : 0.0);
      }
    }
    if (side == 0) {
      __syncwarp();  // every lane's B fragments of the minus side read before its rows take the traces
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int v = 0; v < NV; ++v) *reinterpret_cast<double2*>(s + (row + 8 * h) * ST + v * 8 + 2 * kcol) = make_double2(acc[v][h][0], acc[v][h][1]);
    }
  }

  // D: lane's faces 2 kcol + c and points row + 8 h — their geometry and weights (loaded after the products: not live through them)
  Real normal[2][3], measure[2], weight[2];
#pragma unroll
  for (int c = 0; c < 2; ++c) {
    const index_t local = tile + 2 * kcol + c < n ? tile + 2 * kcol + c : tile;
#pragma unroll
    for (int d = 0; d < 3; ++d) normal[c][d] = k.geometry[d * k.Gs + local];
    measure[c] = k.geometry[3 * k.Gs + local];
  }
#pragma unroll
  for (int h = 0; h < 2; ++h) weight[h] = row + 8 * h < Nfq ? k.face_weight[row + 8 * h] : Real(0);

  // 2. The scaled fluxes at the lane's four items, in place of the minus traces (zeros where no point
  //    or face: the moments' padding rows and columns).
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int q = row + 8 * h;
#pragma unroll
    for (int c = 0; c < 2; ++c) {
      double* slot = s + q * ST + 2 * kcol + c;  // variable v at slot[v 8]
      if (q < Nfq && tile + 2 * kcol + c < n) {
        State um, up;
#pragma unroll
        for (int v = 0; v < NV; ++v) {
          um[v] = static_cast<Real>(slot[v * 8]);
          up[v] = static_cast<Real>(acc[v][h][c]);
        }
        typename physics::Euler<3, Real>::Direction direction;
#pragma unroll
        for (int d = 0; d < 3; ++d) direction[d] = normal[c][d];
        const State value = numerical_flux(static_cast<physics::RiemannKind>(Riemann), k.physics, um, up, direction);
        const Real scale = weight[h] * measure[c];
#pragma unroll
        for (int v = 0; v < NV; ++v) slot[v * 8] = static_cast<double>(scale * value[v]);
      } else if (q < KQ) {
#pragma unroll
        for (int v = 0; v < NV; ++v) slot[v * 8] = 0.0;
      }
    }
  }
  __syncwarp();

  // 3. The moments: L S, rows i < Nn stored.
  double moment[NV][2][2] = {};
#pragma unroll
  for (int ks = 0; ks < KQ / 4; ++ks) {
    const double a_top = __ldg(face_tensor_L<P> + fragment_index(0, ks, lane, KQ));
    const double a_bottom = __ldg(face_tensor_L<P> + fragment_index(1, ks, lane, KQ));
    const double* b = s + (ks * 4 + kcol) * ST + row;
#pragma unroll
    for (int v = 0; v < NV; ++v) device::dmma_16x8x4(moment[v][0], moment[v][1], a_top, a_bottom, b[v * 8]);
  }
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int i = row + 8 * h;
    if (i >= Nn) continue;
#pragma unroll
    for (int c = 0; c < 2; ++c) {
      const index_t local = tile + 2 * kcol + c;
      if (local >= n) continue;
#pragma unroll
      for (int v = 0; v < NV; ++v) k.flux[(static_cast<index_t>(v) * Nfq + i) * k.Fs + k.begin + local] = static_cast<Real>(moment[v][h][c]);
    }
  }
}

/// The element-major copy of elements [first, end) of a group's coefficients, [(e NV + v) Np + j]
/// from [(v Np + j) Ks + e] (FaceTraceBuffer::coefficients: launch_face_traces at a stage's start), which
/// the face tensor kernel then copies 16 bytes at a time, a face side's NV Np contiguous values: whole
/// sectors instead of one value a sector. A block: 32 elements through shared memory, both sides'
/// accesses coalesced.
template <class Real, int Rows>
__global__ void __launch_bounds__(256) aos_copy_kernel(const Real* __restrict__ u, index_t Ks, index_t first, index_t end, Real* __restrict__ aos) {
  __shared__ Real s[Rows * 33];
  const index_t e0 = first + static_cast<index_t>(blockIdx.x) * 32;
  for (int i = static_cast<int>(threadIdx.x); i < Rows * 32; i += 256) {
    const int r = i / 32, el = i % 32;
    s[r * 33 + el] = e0 + el < end ? u[r * Ks + e0 + el] : Real(0);
  }
  __syncthreads();
  for (int i = static_cast<int>(threadIdx.x); i < Rows * 32; i += 256) {
    const int el = i / Rows, r = i % Rows;
    if (e0 + el < end) aos[(e0 + el) * Rows + r] = s[r * 33 + el];
  }
}

/// The face tensor kernel where it is built (p = 3, interior faces with moments): reading the trace
/// buffer's element-major copies of the coefficients where the operator keeps them (setup.hpp
/// face_trace_mode 3; copy_m, copy_p), else, for A/B runs (FLOWDG_FACE_TENSOR=1; unset or 0: the
/// variable kernel's sums, face_tensor_default), gathering the coefficients themselves. (Mode 4, session 63:
/// an element-major group's u itself stands for its copy — the launch cannot tell them apart.)
/// Session 58 (H200, the 3D vortex, RK4, Rusanov, 384,000 tetrahedra, one binary, two rounds,
/// docs/results/session58/): double p = 3, the variable kernel's sums 19.80-19.90e9; this kernel gathering
/// 18.65-18.71 (ncu 0.92 ms a launch against 0.89: both bound by the gathers, one value a 32-byte sector,
/// not by the traces' arithmetic); from an element-major copy (0.16 ms, then 0.66 ms) 20.06-20.09, with the
/// faces in windows by class too (each element's coefficients read once from DRAM, 0.64 GB a launch
/// instead of 1.26; 0.60 ms) 20.25-20.27 (+2.0%); float p = 3: sums 28.0-28.2, gathering 25.8-25.9, the
/// copy and windows 27.2. Session 59 (docs/results/session59/): the copy written by the tensor-core
/// element kernel as it updates u cost that kernel as much as the copy pass (1.54-1.65 ms against
/// 1.44-1.47); persistent warps copying the next tile during this one's fluxes spilled at three blocks
/// an SM and took 0.69 ms against 0.60 (both in pipelined_warps_and_fused_copy.patch there); the
/// traces' B columns permuted so that a lane's minus-trace stores and flux slots miss shared memory's
/// two-way bank conflicts measured the same (20.27-20.34 against 20.31-20.33e9, 0.594-0.601 ms either
/// way: permuted_columns.patch). From the copy (mode 3): double 20.27-20.34 against the sums'
/// 19.79-19.87 (+2.4%); float 27.25-27.27 against 28.05-28.14 (the sums stay there).
constexpr bool face_tensor_order(int order) { return order == 3; }
constexpr bool face_tensor_default(bool double_precision, int order) {
  (void)double_precision;
  (void)order;
  return false;
}
bool face_tensor_chosen(bool double_precision, int order) {
  static const int asked = switch_asked("FLOWDG_FACE_TENSOR", 0, 1, "0 or 1");
  if (!face_tensor_order(order)) return false;
  return asked < 0 ? face_tensor_default(double_precision, order) : asked == 1;
}
/// Its blocks an SM (of four warps): FLOWDG_FACE_TENSOR_BLOCKS=4|5|6|8 for A/B runs of the gathering
/// kernel (Rusanov), else 4 (the copy's kernel: 4).
template <class Real, int P, int Riemann>
void launch_face_tensor(const FaceKernel<physics::Euler<3, Real>, Shape::tetrahedron, Shape::tetrahedron, P, GeometryKind::affine, false>& kernel,
                        index_t n_faces, const FaceMomentTables& tables, const Real* copy_m = nullptr, const Real* copy_p = nullptr) {
  if constexpr (face_tensor_order(P)) {
    using Z = FaceTensorSizes<P>;
    FLOWDG_ASSERT(kernel.Nfq == Z::Nfq && kernel.permutation.data != nullptr, "the face tensor kernel: ", Z::Nfq,
                  " face points and their permutations at p = ", P);
    FLOWDG_ASSERT((copy_m == nullptr) == (copy_p == nullptr), "the face tensor kernel: both sides' coefficient copies or neither");
    upload_face_tensor_tables<P>(tables);
    const auto blocks = static_cast<unsigned>((n_faces + 8 * face_tensor_warps - 1) / (8 * face_tensor_warps));
    const auto launch = [&]<int MinBlocks, bool Aos>() {
      constexpr auto function = core_face_tensor_kernel<Real, P, Riemann, MinBlocks, Aos>;
      constexpr std::size_t shared = face_tensor_warps * Z::template warp_bytes<Real>();
      static const bool configured = [] {
        FLOWDG_CUDA_CHECK(cudaFuncSetAttribute(function, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
        return true;
      }();
      (void)configured;
      detail::launch(false, function, blocks, 32 * face_tensor_warps, shared, kernel, n_faces, copy_m, copy_p);
    };
    if (copy_m != nullptr) {
      launch.template operator()<4, true>();
      return;
    }
    static const int asked = switch_asked("FLOWDG_FACE_TENSOR_BLOCKS", 4, 8, "4, 5, 6 or 8 (blocks of 128 threads an SM)");
    if (asked == 7) throw InputError("FLOWDG_FACE_TENSOR_BLOCKS='7': expected 4, 5, 6 or 8 (blocks of 128 threads an SM)");
    if constexpr (Riemann == static_cast<int>(physics::RiemannKind::rusanov)) {
      if (asked == 5) return launch.template operator()<5, false>();
      if (asked == 6) return launch.template operator()<6, false>();
      if (asked == 8) return launch.template operator()<8, false>();
    }
    launch.template operator()<4, false>();
  } else {
    (void)kernel;
    (void)n_faces;
    (void)tables;
    (void)copy_m;
    (void)copy_p;
    throw Error(cat("the face tensor kernel is not built for p = ", P));
  }
}

/// The face kernel's blocks an SM (its registers bounded for them): FLOWDG_VARIABLE_FACE_BLOCKS for
/// A/B runs, else the measured default. Session 41, with face moments and the prefetch (H100, the 3D
/// vortex, Rusanov, one binary, docs/results/tets_session41/call14_*): in double six blocks p = 1
/// 19.65-19.81e9 against four's 18.44-18.46 (five 18.38-18.57, three 18.15-18.54), p = 2
/// 21.07-21.10 against 20.61-20.65; in float four: p = 1 35.05 against six's 34.82, p = 2 38.46
/// against 38.30, p = 3 18.50 against 18.58 (five 18.60). Six blocks bound the registers at 64:
/// Rusanov's kernels fit (p = 1, 2), HLLC's spill 48 bytes and still gain (call18: p = 1 16.03
/// against four's 13.72, p = 2 19.30 against 17.84), Roe's spill 160 bytes (not measured: four),
/// as the orders and precisions measured only with session 40's four keep it.
/// Session 43 (docs/results/tets_session43/call2_*): double p = 4 three blocks (its 70 KB of shared
/// memory a block fit three anyway; the registers bounded at 128 instead of 96) 12.92-12.93 against
/// four's 12.78-12.81e9, the same bits; p = 3 alike (13.79-13.80 against 13.77-13.81), p = 2 worse
/// (20.35 against six's 21.21).
/// Session 46 (H200, float, 384,000 tetrahedra, one binary, docs/results/tets_session46/call10_*,
/// the same bits): p = 3 five blocks 21.59-21.70 against four's 21.31-21.43 (+1.3%; session 41 on
/// the H100 +0.5%), six 20.98-21.36; p = 4 (the tensor-core element kernel's float rows) four
/// 19.41-19.49, three 19.39-19.45, five 19.38-19.40, six 18.73-18.75, point values instead of
/// moments 18.90-18.92: four stays.
constexpr int variable_default_face_blocks(bool double_precision, int order, int riemann) {
  if (double_precision && order == 4) return 3;
  if (!double_precision && order == 3) return 5;
  return double_precision && order <= 2 && riemann != static_cast<int>(physics::RiemannKind::roe) ? 6 : 4;
}
/// The face kernel's blocks an SM when it reads the trace buffer (Rusanov; the other fluxes keep
/// variable_default_face_blocks). Session 49 (H200, p = 4, the buffer filled by the element kernel,
/// one binary, two rounds, docs/results/tets_session49/call10_*): double four blocks 14.40-14.44e9
/// against three's 14.30-14.33 and five's 14.37-14.40 (six 14.24, one round); float five 22.33-22.34
/// against three's 22.25-22.30 and four's 22.26-22.29 (six 21.97, one round).
/// At the points (FaceTraceBuffer::points: no interpolation from the nodes, a side's shared slots
/// alone) six. Session 54 (H200, p = 4, the element kernel filling the buffer, one binary, two rounds,
/// docs/results/session54/call5_*): double six 16.56-16.57e9 against four's 16.34-16.35 and five's
/// 16.25; float (points not its default) six 24.33-24.40, four 24.38-24.40, five 24.23-24.33.
/// Two items a thread at a time (face_traces_buffer_point_pairs) four (measured: see there).
constexpr int variable_buffer_face_blocks(bool double_precision, int order, bool points, bool point_pairs = false) {
  if (points) return point_pairs ? 4 : 6;
  if (order == 4) return double_precision ? 4 : 5;
  return variable_default_face_blocks(double_precision, order, static_cast<int>(physics::RiemannKind::rusanov));
}
int variable_face_blocks(bool double_precision, int order, int riemann) {
  static const int asked = blocks_asked("FLOWDG_VARIABLE_FACE_BLOCKS");
  if (asked > 0) return asked;
  return variable_default_face_blocks(double_precision, order, riemann);
}

/// The face kernel's traces (face_traces_*): the measured default, FLOWDG_FACE_TRACES=0|1|2
/// (points, pairs, nodes) for A/B runs of the interior faces with moments, Rusanov, the default
/// blocks an SM (anything else an InputError); in both precisions (float since session 66).
/// Session 43 (H100, the 3D vortex, Rusanov, double, one binary, docs/results/tets_session43/call4_*):
/// nodes at p = 1 23.31-23.32e9 against points' 20.38-20.53 (+14%), at p = 2 19.11-19.14 against
/// 18.61-18.63 (+2.7%, both with the Runge-Kutta loads early); at p = 3 nodes 12.94-12.95 against
/// 13.83-13.84 (points and pairs alike there, the same bits); at p = 4 nodes 12.62-12.65 with rows padded
/// to 36, points unpadded 12.92 (call 2). Session 67 (H200, issue 16's periodic case, Rusanov, 998,250
/// tetrahedra, one binary, docs/results/session67/call4_*): float at p = 1 nodes 43.42, 42.93e9 against
/// the pairs' 42.83, 42.47 (+1.1 to +1.4% in each round: nodes taken); at p = 2 nodes 38.87, 38.67 against
/// 44.67, 44.43 (-13%: the pairs kept); double p = 1 nodes 28.04 against the pairs' 27.05 (+3.7%), p = 2
/// 26.37 against 26.43 (alike: nodes kept).
constexpr int variable_default_traces(bool double_precision, int order) {
  if (!double_precision) return order == 1 ? face_traces_nodes : order == 4 ? face_traces_points : face_traces_pairs;
  return order <= 2 ? face_traces_nodes : order == 3 ? face_traces_pairs : face_traces_points;
}
int face_traces_asked() {  // (read at each launch: a test sets it around some steps)
  return switch_asked("FLOWDG_FACE_TRACES", 0, 2, "0 (points), 1 (pairs) or 2 (nodes)");
}

template <class Real, int P, int Riemann, int MinBlocks, bool Boundary, bool Moments, bool Prefetch, int Traces = face_traces_pairs>
void launch_variable_faces(const VariableFaceArgument<Real, P, Boundary>& given, index_t n_faces, const FaceMomentTables* tables,
                           const Real* traces_m = nullptr, const Real* traces_p = nullptr) {
  // (a boundary batch's kernels: one instantiation, the same sizes and tables; the first stands for them)
  const VariableFaceKernel<Real, P, Boundary>& kernel = batch_kernel(given, 0);
  constexpr int Np = n_basis(Shape::tetrahedron, P), Nfq = variable_face_points(P), Nn = Moments ? face_moment_nodes(P) : 1;
  FLOWDG_ASSERT(kernel.Nfq == Nfq, "the variable face kernel is built for ", Nfq, " face points at p = ", P, ", not ", kernel.Nfq);
  FaceMomentParameters<Real, Nn, Nfq> moments{};
  if constexpr (Moments) {
    FLOWDG_ASSERT(tables != nullptr && tables->order == P && tables->Nfq == Nfq &&
                      tables->interpolation.size() == static_cast<std::size_t>(Nn * Nfq),
                  "the face moments' tables do not match the variable face kernel's p = ", P, ", Nfq = ", Nfq);
    for (int i = 0; i < Nn; ++i)
      for (int q = 0; q < Nfq; ++q) moments.L[i][q] = static_cast<Real>(tables->interpolation[static_cast<std::size_t>(i) * Nfq + q]);
    FLOWDG_ASSERT(tables->node_permutation.size() == static_cast<std::size_t>(6 * Nn), "the nodes' permutations: ",
                  tables->node_permutation.size(), " entries, expected ", 6 * Nn);
    for (int i = 0; i < 6 * Nn; ++i) moments.node_permutation[i / Nn][i % Nn] = tables->node_permutation[i];
    if constexpr (Traces == face_traces_nodes) upload_node_phi<Real, P>(*tables);
  }
  constexpr bool buffer = Traces == face_traces_buffer || face_traces_at_points(Traces);
  FLOWDG_ASSERT(buffer == (traces_m != nullptr && traces_p != nullptr),
                "the variable face kernel's trace buffers: given for the buffer's kernel only, and both sides'");
  FLOWDG_ASSERT(!face_traces_at_points(Traces) || kernel.permutation.data != nullptr, "the trace buffer at the points: the points' permutations");
  constexpr int rows = Traces == face_traces_nodes ? Nn : Nfq, table = buffer ? 0 : 4 * rows * face_table_row(Traces, Np);
  // (the points' buffer: the minus side's slots alone, the scaled fluxes)
  constexpr std::size_t shared = sizeof(Real) * (table + (face_traces_at_points(Traces) ? 1 : 2) * Nfq * 5 * variable_lanes);
  constexpr auto function = core_face_variable_kernel<Real, P, Nfq, Riemann, MinBlocks, Boundary, Moments, Prefetch, Traces>;
  static const bool configured = [] {
    FLOWDG_CUDA_CHECK(cudaFuncSetAttribute(function, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
    return true;
  }();
  (void)configured;
  unsigned blocks = static_cast<unsigned>((n_faces + variable_lanes - 1) / variable_lanes);
  if constexpr (Boundary) {
    static_assert(sizeof(given) + sizeof(moments) < 32000, "a boundary batch within the kernel parameters' 32 kB (CUDA 12.1, sm_70)");
    blocks = given.first_block[given.count];
  }
  detail::launch(false, function, blocks, 5 * variable_lanes, shared, given, n_faces, moments, traces_m, traces_p);
}

template <class Real, int P, int Riemann, bool Boundary>
void launch_variable_faces_blocks(const VariableFaceArgument<Real, P, Boundary>& kernel, index_t n_faces, const FaceMomentTables* moments,
                                  const Real* traces_m, const Real* traces_p, bool trace_points, bool trace_coefficients) {
  if constexpr (!Boundary) {
    if (trace_coefficients) {  // the trace buffer's element-major copies: the face tensor kernel reads them
      FLOWDG_ASSERT(traces_m != nullptr && traces_p != nullptr && moments != nullptr && face_tensor_order(P),
                    "the coefficients' copy: both sides', with face moments, at p = 3 (the face tensor kernel's order), not p = ", P);
      launch_face_tensor<Real, P, Riemann>(kernel, n_faces, *moments, traces_m, traces_p);
      return;
    }
    if (traces_m == nullptr && moments != nullptr && face_tensor_chosen(std::is_same_v<Real, double>, P)) {
      launch_face_tensor<Real, P, Riemann>(kernel, n_faces, *moments);
      return;
    }
    if (traces_m != nullptr) {  // the trace buffer (setup.hpp face_trace_mode; at the points: face_trace_points)
      FLOWDG_ASSERT(moments != nullptr && (variable_prefetch() & 2) != 0, "the face trace buffer runs with face moments and the face prefetch");
      const auto run = [&]<int Blocks, int Traces>() {
        launch_variable_faces<Real, P, Riemann, Blocks, false, true, true, Traces>(kernel, n_faces, moments, traces_m, traces_p);
      };
      if constexpr (Riemann == static_cast<int>(physics::RiemannKind::rusanov)) {
        // FLOWDG_VARIABLE_FACE_BLOCKS for A/B runs (Rusanov: the measured flux), else the buffer's own
        // measured default: without the coefficients' table the kernel's shared memory fits more
        // blocks than the sums' did (variable_buffer_face_blocks)
        static const int asked = blocks_asked("FLOWDG_VARIABLE_FACE_BLOCKS");
        static const bool point_pairs = switch_asked("FLOWDG_FACE_POINT_PAIRS", 0, 1, "0 or 1") != 0;
        with_min_blocks(asked > 0 ? asked : variable_buffer_face_blocks(std::is_same_v<Real, double>, P, trace_points, point_pairs), [&]<int Blocks>() {
          if (trace_points && point_pairs) run.template operator()<Blocks, face_traces_buffer_point_pairs>();
          else if (trace_points) run.template operator()<Blocks, face_traces_buffer_points>();
          else run.template operator()<Blocks, face_traces_buffer>();
        });
      } else {
        constexpr int blocks = variable_default_face_blocks(std::is_same_v<Real, double>, P, Riemann);
        trace_points ? run.template operator()<blocks, face_traces_buffer_points>() : run.template operator()<blocks, face_traces_buffer>();
      }
      return;
    }
  }
  if constexpr (!Boundary && Riemann == static_cast<int>(physics::RiemannKind::rusanov)) {
    constexpr bool double_precision = std::is_same_v<Real, double>;
    constexpr int blocks = variable_default_face_blocks(double_precision, P, Riemann), default_traces = variable_default_traces(double_precision, P);
    const int traces = face_traces_asked();
    if (traces >= 0 && traces != default_traces && moments != nullptr && (variable_prefetch() & 2) != 0) {
      if (variable_face_blocks(double_precision, P, Riemann) != blocks)
        throw InputError(cat("FLOWDG_FACE_TRACES=", traces, " is built for the default blocks an SM (", blocks, ") only"));
      const auto other = [&]<int Mode>() {
        if constexpr (Mode != default_traces) launch_variable_faces<Real, P, Riemann, blocks, false, true, true, Mode>(kernel, n_faces, moments);
      };
      if (traces == face_traces_points) other.template operator()<face_traces_points>();
      else if (traces == face_traces_pairs) other.template operator()<face_traces_pairs>();
      else other.template operator()<face_traces_nodes>();
      return;
    }
  }
  // The traces' default (both precisions); without moments the point table (nodes need them).
  constexpr int traces = variable_default_traces(std::is_same_v<Real, double>, P), point_traces = traces == face_traces_nodes ? face_traces_pairs : traces;
  with_min_blocks(variable_face_blocks(std::is_same_v<Real, double>, P, Riemann), [&]<int Blocks>() {
    if constexpr (Boundary) {
      launch_variable_faces<Real, P, Riemann, Blocks, true, true, false, traces>(kernel, n_faces, moments);
    } else if (moments != nullptr && (variable_prefetch() & 2) != 0) {  // moments where the element kernel reads them
      launch_variable_faces<Real, P, Riemann, Blocks, false, true, true, traces>(kernel, n_faces, moments);
    } else if (moments != nullptr) {
      launch_variable_faces<Real, P, Riemann, Blocks, false, true, false, traces>(kernel, n_faces, moments);
    } else {
      launch_variable_faces<Real, P, Riemann, Blocks, false, false, false, point_traces>(kernel, n_faces, moments);
    }
  });
}

/// A kernel per numerical flux (as the block face kernel's).
template <class Real, int P, bool Boundary>
void launch_variable_faces_by_flux(physics::RiemannKind riemann, const VariableFaceArgument<Real, P, Boundary>& given, index_t n_faces,
                                   const FaceMomentTables* moments, const Real* traces_m, const Real* traces_p, bool trace_points,
                                   bool trace_coefficients) {
  switch (riemann) {
    case physics::RiemannKind::rusanov:
      launch_variable_faces_blocks<Real, P, static_cast<int>(physics::RiemannKind::rusanov), Boundary>(given, n_faces, moments, traces_m, traces_p,
                                                                                              trace_points, trace_coefficients);
      return;
    case physics::RiemannKind::roe:
      launch_variable_faces_blocks<Real, P, static_cast<int>(physics::RiemannKind::roe), Boundary>(given, n_faces, moments, traces_m, traces_p,
                                                                                              trace_points, trace_coefficients);
      return;
    case physics::RiemannKind::hllc:
    default:  // numerical_flux's own default
      launch_variable_faces_blocks<Real, P, static_cast<int>(physics::RiemannKind::hllc), Boundary>(given, n_faces, moments, traces_m, traces_p,
                                                                                              trace_points, trace_coefficients);
      return;
  }
}

}  // namespace

template <class Real, int P>
void launch_core_face_variable_kernel(
    const FaceKernel<physics::Euler<3, Real>, Shape::tetrahedron, Shape::tetrahedron, P, GeometryKind::affine, false>& kernel,
    index_t n_faces, const FaceMomentTables* moments, const Real* traces_m, const Real* traces_p, bool trace_points, bool trace_coefficients) {
  if (n_faces <= 0) return;
  launch_variable_faces_by_flux<Real, P, false>(kernel.riemann, kernel, n_faces, moments, traces_m, traces_p, trace_points, trace_coefficients);
}

template <class Real, int P>
void launch_core_boundary_variable_kernel(const VariableFaceKernel<Real, P, true>* kernels, const index_t* n_faces, int count,
                                          const FaceMomentTables* moments) {
  FLOWDG_ASSERT(moments != nullptr, "the variable face kernel takes boundary faces with moments only");
  using Batch = FaceKernelBatch<VariableFaceKernel<Real, P, true>>;
  Batch batch;
  const auto flush = [&] {
    if (batch.count > 0 && batch.first_block[batch.count] > 0)
      launch_variable_faces_by_flux<Real, P, true>(batch.kernel[0].riemann, batch, 0, moments, nullptr, nullptr, false, false);
    batch = Batch{};
  };
  for (int g = 0; g < count; ++g) {
    if (n_faces[g] <= 0) continue;
    FLOWDG_ASSERT(batch.count == 0 || kernels[g].riemann == batch.kernel[0].riemann, "a boundary batch runs one numerical flux");
    const index_t blocks = (n_faces[g] + variable_lanes - 1) / variable_lanes;
    FLOWDG_ASSERT(batch.first_block[batch.count] + blocks < (index_t{1} << 31), "a boundary batch of ", blocks, " more blocks");
    batch.kernel[batch.count] = kernels[g];
    batch.n[batch.count] = n_faces[g];
    batch.first_block[batch.count + 1] = batch.first_block[batch.count] + static_cast<unsigned>(blocks);
    if (++batch.count == Batch::max_groups) flush();
  }
  flush();
}

template <class Real>
void launch_face_traces(int order, const Real* u, index_t Ks, index_t first, index_t end, Real* traces, const double* tables, bool points,
                        bool coefficients) {
  if (end <= first) return;
  if (coefficients) {  // the element-major copy (FaceTraceBuffer::coefficients)
    if (order != 3) throw Error(cat("the coefficients' element-major copy is built for p = 3, not ", order));
    constexpr int rows = 5 * n_basis(Shape::tetrahedron, 3);
    detail::launch(false, aos_copy_kernel<Real, rows>, static_cast<unsigned>((end - first + 31) / 32), 256, 0, u, Ks, first, end, traces);
    return;
  }
  first = first / trace_elements * trace_elements;  // blocks of whole aligned 8s (16-byte copies); the extra elements' traces are the same
  const auto blocks = static_cast<unsigned>((end - first + trace_elements - 1) / trace_elements);
  const auto run = [&]<int P>() {
    if (points) detail::launch(false, face_traces_kernel<Real, P, true>, blocks, 32 * trace_warps<P, true>(), 0, u, Ks, first, end, traces, tables);
    else detail::launch(false, face_traces_kernel<Real, P, false>, blocks, 32 * trace_warps<P, false>(), 0, u, Ks, first, end, traces, tables);
  };
  switch (order) {
    case 1: run.template operator()<1>(); return;
    case 2: run.template operator()<2>(); return;
    case 3: run.template operator()<3>(); return;
    case 4: run.template operator()<4>(); return;
    default: throw Error(cat("the face trace buffer is built for p = 1..4, not ", order));
  }
}
template void launch_face_traces<double>(int, const double*, index_t, index_t, index_t, double*, const double*, bool, bool);
template void launch_face_traces<float>(int, const float*, index_t, index_t, index_t, float*, const double*, bool, bool);

#define FLOWDG_VARIABLE_FACE_INSTANCE(Real, P)                                                                                          \
  template void launch_core_face_variable_kernel<Real, P>(                                                                                  \
      const FaceKernel<physics::Euler<3, Real>, Shape::tetrahedron, Shape::tetrahedron, P, GeometryKind::affine, false>&, index_t,         \
      const FaceMomentTables*, const Real*, const Real*, bool, bool);
FLOWDG_VARIABLE_FACE_INSTANCE(double, 1)
FLOWDG_VARIABLE_FACE_INSTANCE(double, 2)
FLOWDG_VARIABLE_FACE_INSTANCE(double, 3)
FLOWDG_VARIABLE_FACE_INSTANCE(double, 4)
FLOWDG_VARIABLE_FACE_INSTANCE(float, 1)
FLOWDG_VARIABLE_FACE_INSTANCE(float, 2)
FLOWDG_VARIABLE_FACE_INSTANCE(float, 3)
FLOWDG_VARIABLE_FACE_INSTANCE(float, 4)
#undef FLOWDG_VARIABLE_FACE_INSTANCE
#define FLOWDG_VARIABLE_BOUNDARY_INSTANCE(Real, P)                                                                                      \
  template void launch_core_boundary_variable_kernel<Real, P>(                                                                          \
      const FaceKernel<physics::Euler<3, Real>, Shape::tetrahedron, Shape::tetrahedron, P, GeometryKind::affine, true>*, const index_t*, \
      int, const FaceMomentTables*);
FLOWDG_VARIABLE_BOUNDARY_INSTANCE(double, 1)
FLOWDG_VARIABLE_BOUNDARY_INSTANCE(double, 2)
FLOWDG_VARIABLE_BOUNDARY_INSTANCE(double, 3)
FLOWDG_VARIABLE_BOUNDARY_INSTANCE(double, 4)
FLOWDG_VARIABLE_BOUNDARY_INSTANCE(float, 1)
FLOWDG_VARIABLE_BOUNDARY_INSTANCE(float, 2)
FLOWDG_VARIABLE_BOUNDARY_INSTANCE(float, 3)
FLOWDG_VARIABLE_BOUNDARY_INSTANCE(float, 4)
#undef FLOWDG_VARIABLE_BOUNDARY_INSTANCE

#define FLOWDG_VARIABLE_INSTANCE(Real, P)                                                                                                        \
  template void launch_core_element_variable_kernel<Real, P>(                                                                                   \
      const ElementKernel<physics::Euler<3, Real>, Shape::tetrahedron, P, GeometryKind::affine>&, index_t, index_t, const VariableKernelTables&);
FLOWDG_VARIABLE_INSTANCE(double, 1)
FLOWDG_VARIABLE_INSTANCE(double, 2)
FLOWDG_VARIABLE_INSTANCE(double, 3)
FLOWDG_VARIABLE_INSTANCE(float, 1)
FLOWDG_VARIABLE_INSTANCE(float, 2)
FLOWDG_VARIABLE_INSTANCE(float, 3)
#undef FLOWDG_VARIABLE_INSTANCE

#endif  // __CUDACC__

}  // namespace flowdg::dg
