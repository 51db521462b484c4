// 3D Euler's element and interior face kernels on affine tetrahedra with a warp per variable
// (core_variable_kernels.hpp says what they do; compiled by nvcc when the CUDA backend is on, by the
// host compiler otherwise, where only the element kernel's tables are built).
#include "flowdg/dg/core_variable_kernels.hpp"

#include <cstdlib>
#include <string>
#include <type_traits>

#include "flowdg/core/error.hpp"
#include "flowdg/element/basis.hpp"

#if defined(__CUDACC__)
#include "flowdg/backend/cuda_check.hpp"
#include "flowdg/backend/for_each.hpp"
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

#if defined(__CUDACC__)

namespace {

template <class Real, int Np, int Nq, int Nfq>
struct VariableTables {
  Real phi[Nq][Np];
  Real dphi[Nq][3][Np];  ///< times the point's weight
  Real face[4][Nfq][Np];
};

constexpr int variable_lanes = 32;  // elements a block: a warp's lanes

template <class Real, int P, int Nq, int Nfq, int MinBlocks>
__global__ void __launch_bounds__(5 * variable_lanes, MinBlocks)
    core_element_variable_kernel(const ElementKernel<physics::Euler<3, Real>, Shape::tetrahedron, P, GeometryKind::affine> k, index_t first,
                                 index_t count, const __grid_constant__ VariableTables<Real, n_basis(Shape::tetrahedron, P), Nq, Nfq> t) {
  constexpr int Np = n_basis(Shape::tetrahedron, P), NV = 5, E = variable_lanes;
  // The values at the volume points (step 2 reads other warps' rows), then this thread's face fluxes
  // (step 3: its own slots only) in the same rows.
  constexpr int rows = Nq > Nfq ? Nq : Nfq;
  __shared__ Real s_u[rows][NV][E];
  const int v = static_cast<int>(threadIdx.x) / E;  // the same in a warp
  const int lane = static_cast<int>(threadIdx.x) % E;
  const index_t local = static_cast<index_t>(blockIdx.x) * E + lane;
  const bool valid = local < count;
  const index_t e = first + (valid ? local : 0);  // a lane past the end computes element `first` and stores nothing
  const index_t Ks = k.Ks;

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

  // 2. Volume: sum_k sum_r (sum_d dr_r/dx_d F_d(u_k)[v]) w_k dphi_j/dr_r (det J cancels against the
  // inverse mass matrix's 1 / det J).
  Real rhs[Np];
#pragma unroll
  for (int j = 0; j < Np; ++j) rhs[j] = 0;
  const Real gm1 = k.physics.gamma - Real(1);
#pragma unroll
  for (int q = 0; q < Nq; ++q) {
    const Real rho = s_u[q][0][lane], m0 = s_u[q][1][lane], m1 = s_u[q][2][lane], m2 = s_u[q][3][lane], energy = s_u[q][4][lane];
    const Real own = s_u[q][v][lane];
    const Real inverse_rho = Real(1) / rho;
    const Real momentum[3] = {m0, m1, m2};
    const Real velocity[3] = {m0 * inverse_rho, m1 * inverse_rho, m2 * inverse_rho};
    const Real p = gm1 * (energy - Real(0.5) * (m0 * velocity[0] + m1 * velocity[1] + m2 * velocity[2]));
    // F_d[v]: rho v_d, rho v_i v_d + p delta_id, (E + p) v_d
    const Real base = v == NV - 1 ? energy + p : own;
    Real flux[3];
#pragma unroll
    for (int d = 0; d < 3; ++d) flux[d] = v == 0 ? momentum[d] : base * velocity[d] + (v == d + 1 ? p : Real(0));
    Real reference[3];
#pragma unroll
    for (int r = 0; r < 3; ++r) reference[r] = metric[r][0] * flux[0] + metric[r][1] * flux[1] + metric[r][2] * flux[2];
#pragma unroll
    for (int j = 0; j < Np; ++j) rhs[j] += reference[0] * t.dphi[q][0][j] + reference[1] * t.dphi[q][1][j] + reference[2] * t.dphi[q][2][j];
  }

  // 3. Faces: the stored flux is along the minus side's normal, in its point order; put at the
  // element's own point through this thread's slots in shared memory (once every warp is done with
  // the volume points).
  __syncthreads();
#pragma unroll
  for (int l = 0; l < 4; ++l) {
    const index_t code = k.codes[l * Ks + e];
    const index_t f = code_face(code);
    const bool plus = code_plus_side(code);
    const Real sign = plus ? Real(1) : Real(-1);
    const int* permutation = &k.permutation[code_orientation(code) * Nfq];
#pragma unroll
    for (int q = 0; q < Nfq; ++q) {
      const Real value = k.flux[(static_cast<index_t>(v) * Nfq + q) * k.Fs + f];
      s_u[plus ? permutation[q] : q][v][lane] = sign * value;
    }
#pragma unroll
    for (int point = 0; point < Nfq; ++point) {
      const Real value = s_u[point][v][lane];
#pragma unroll
      for (int j = 0; j < Np; ++j) rhs[j] += value * t.face[l][point][j];
    }
  }

  // 4. Mass matrix and update.
  const Real inverse_det = k.metric[9 * Ks + e];
  if (valid)
#pragma unroll
    for (int j = 0; j < Np; ++j) k.update.apply(k.u, (static_cast<index_t>(v) * Np + j) * Ks + e, inverse_det * rhs[j]);
}

/// The blocks an SM a kernel's registers are bounded for (__launch_bounds__), as an environment
/// variable asks for them in A/B runs: 3..6, or 0 where it is unset (anything else an InputError).
int blocks_asked(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == 0) return 0;
  const std::string text(value);
  if (text == "3" || text == "4" || text == "5" || text == "6") return std::stoi(text);
  throw InputError(cat(name, "='", text, "': expected 3, 4, 5 or 6 (blocks of 160 threads an SM)"));
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
/// 29.5, p = 3 13.3 against 12.6.
int variable_blocks(bool double_precision, int order) {
  static const int asked = blocks_asked("FLOWDG_VARIABLE_BLOCKS");
  if (asked > 0) return asked;
  return double_precision && order >= 2 ? 4 : 5;
}

template <class Real, int P, int MinBlocks>
void launch_variable(const ElementKernel<physics::Euler<3, Real>, Shape::tetrahedron, P, GeometryKind::affine>& kernel, index_t first,
                     index_t count, const VariableKernelTables& tables) {
  constexpr int Np = n_basis(Shape::tetrahedron, P), Nq = variable_volume_points(P), Nfq = variable_face_points(P);
  using Tables = VariableTables<Real, Np, Nq, Nfq>;
  static_assert(sizeof(Tables) + sizeof(kernel) + 2 * sizeof(index_t) <= 32764, "the kernel's parameters exceed CUDA's 32,764 bytes");
  FLOWDG_ASSERT(tables.order == P && tables.Nq == Nq && tables.Nfq == Nfq && kernel.Nq == Nq && kernel.Nfq == Nfq &&
                    tables.values.size() * sizeof(Real) == sizeof(Tables),
                "the variable element kernel's tables were built for p = ", tables.order, ", Nq = ", tables.Nq, ", Nfq = ", tables.Nfq,
                "; the launch is p = ", P, ", Nq = ", kernel.Nq, ", Nfq = ", kernel.Nfq);
  Tables values;
  Real* out = &values.phi[0][0];
  for (std::size_t i = 0; i < tables.values.size(); ++i) out[i] = static_cast<Real>(tables.values[i]);
  const auto blocks = static_cast<unsigned>((count + variable_lanes - 1) / variable_lanes);
  detail::launch(false, core_element_variable_kernel<Real, P, Nq, Nfq, MinBlocks>, blocks, 5 * variable_lanes, 0, kernel, first, count,
                 values);
}

}  // namespace

template <class Real, int P>
void launch_core_element_variable_kernel(const ElementKernel<physics::Euler<3, Real>, Shape::tetrahedron, P, GeometryKind::affine>& kernel,
                                         index_t first, index_t count, const VariableKernelTables& tables) {
  if (count <= 0) return;
  with_min_blocks(variable_blocks(std::is_same_v<Real, double>, P),
                  [&]<int Blocks>() { launch_variable<Real, P, Blocks>(kernel, first, count, tables); });
}

namespace {

template <class Real, int P, int Nfq, int Riemann, int MinBlocks>
__global__ void __launch_bounds__(5 * variable_lanes, MinBlocks) core_face_variable_kernel(
    const FaceKernel<physics::Euler<3, Real>, Shape::tetrahedron, Shape::tetrahedron, P, GeometryKind::affine, false> k, index_t n) {
  constexpr int Np = n_basis(Shape::tetrahedron, P), NV = 5, E = variable_lanes, table = 4 * Nfq * Np;
  extern __shared__ __align__(16) unsigned char variable_face_shared[];
  Real* s_phi = reinterpret_cast<Real*>(variable_face_shared);  // [(l Nfq + q) Np + j]
  Real* s_trace = s_phi + table;                                 // [((side Nfq + q) NV + v) E + lane]
  for (int i = static_cast<int>(threadIdx.x); i < table; i += 5 * E) s_phi[i] = k.face_phi_m[i];
  const int v = static_cast<int>(threadIdx.x) / E;  // the same in a warp
  const int lane = static_cast<int>(threadIdx.x) % E;
  const index_t local = static_cast<index_t>(blockIdx.x) * E + lane;
  const index_t f = k.begin + (local < n ? local : 0);  // a lane past the end sums face `begin`'s traces, stores nothing
  const index_t element_m = k.index.element_m[f], element_p = k.index.element_p[f];
  const int local_m = k.index.local_m[f], local_p = k.index.local_p[f], orientation = k.index.orientation[f];
  __syncthreads();  // the table
  // One side at a time (its Np coefficients in registers): the minus side at the face's points, the
  // plus side at its own points of them (the orientation's permutation).
#pragma unroll
  for (int side = 0; side < 2; ++side) {
    const View<const Real>& u = side == 0 ? k.u_m : k.u_p;
    const index_t stride = side == 0 ? k.Ks_m : k.Ks_p, element = side == 0 ? element_m : element_p;
    Real c[Np];
#pragma unroll
    for (int j = 0; j < Np; ++j) c[j] = u[(static_cast<index_t>(v) * Np + j) * stride + element];
    const Real* phi = s_phi + (side == 0 ? local_m : local_p) * Nfq * Np;
    const int* permutation = &k.permutation[orientation * Nfq];
#pragma unroll
    for (int q = 0; q < Nfq; ++q) {
      const Real* row = phi + (side == 0 ? q : permutation[q]) * Np;
      Real sum = 0;
#pragma unroll
      for (int j = 0; j < Np; ++j) sum += c[j] * row[j];
      s_trace[((side * Nfq + q) * NV + v) * E + lane] = sum;
    }
  }
  __syncthreads();  // the traces
  // A thread per (face, point), the faces of a point in consecutive lanes (the stores coalesce).
  for (int i = static_cast<int>(threadIdx.x); i < Nfq * E; i += 5 * E) {
    const int q = i / E, face = i % E;
    const index_t at = static_cast<index_t>(blockIdx.x) * E + face;
    if (at >= n) continue;
    typename physics::Euler<3, Real>::State um, up;
#pragma unroll
    for (int w = 0; w < NV; ++w) {
      um[w] = s_trace[(q * NV + w) * E + face];
      up[w] = s_trace[((Nfq + q) * NV + w) * E + face];
    }
    k.template finish<Riemann>(at, q, um, up);
  }
}

/// The face kernel's blocks an SM: FLOWDG_VARIABLE_FACE_BLOCKS for A/B runs, else 4.
int variable_face_blocks() {
  static const int asked = blocks_asked("FLOWDG_VARIABLE_FACE_BLOCKS");
  return asked > 0 ? asked : 4;
}

template <class Real, int P, int Riemann, int MinBlocks>
void launch_variable_faces(const FaceKernel<physics::Euler<3, Real>, Shape::tetrahedron, Shape::tetrahedron, P, GeometryKind::affine, false>& kernel,
                           index_t n_faces) {
  constexpr int Np = n_basis(Shape::tetrahedron, P), Nfq = variable_face_points(P);
  FLOWDG_ASSERT(kernel.Nfq == Nfq, "the variable face kernel is built for ", Nfq, " face points at p = ", P, ", not ", kernel.Nfq);
  constexpr std::size_t shared = sizeof(Real) * (4 * Nfq * Np + 2 * Nfq * 5 * variable_lanes);
  constexpr auto function = core_face_variable_kernel<Real, P, Nfq, Riemann, MinBlocks>;
  static const bool configured = [] {
    FLOWDG_CUDA_CHECK(cudaFuncSetAttribute(function, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
    return true;
  }();
  (void)configured;
  const auto blocks = static_cast<unsigned>((n_faces + variable_lanes - 1) / variable_lanes);
  detail::launch(false, function, blocks, 5 * variable_lanes, shared, kernel, n_faces);
}

template <class Real, int P, int Riemann>
void launch_variable_faces_blocks(const FaceKernel<physics::Euler<3, Real>, Shape::tetrahedron, Shape::tetrahedron, P, GeometryKind::affine, false>& kernel,
                                  index_t n_faces) {
  with_min_blocks(variable_face_blocks(), [&]<int Blocks>() { launch_variable_faces<Real, P, Riemann, Blocks>(kernel, n_faces); });
}

}  // namespace

template <class Real, int P>
void launch_core_face_variable_kernel(
    const FaceKernel<physics::Euler<3, Real>, Shape::tetrahedron, Shape::tetrahedron, P, GeometryKind::affine, false>& kernel,
    index_t n_faces) {
  if (n_faces <= 0) return;
  switch (kernel.riemann) {  // a kernel per numerical flux (as the block face kernel's)
    case physics::RiemannKind::rusanov:
      launch_variable_faces_blocks<Real, P, static_cast<int>(physics::RiemannKind::rusanov)>(kernel, n_faces);
      return;
    case physics::RiemannKind::roe:
      launch_variable_faces_blocks<Real, P, static_cast<int>(physics::RiemannKind::roe)>(kernel, n_faces);
      return;
    case physics::RiemannKind::hllc:
    default:  // numerical_flux's own default
      launch_variable_faces_blocks<Real, P, static_cast<int>(physics::RiemannKind::hllc)>(kernel, n_faces);
      return;
  }
}

#define FLOWDG_VARIABLE_FACE_INSTANCE(Real, P)                                                                                                   \
  template void launch_core_face_variable_kernel<Real, P>(                                                                                      \
      const FaceKernel<physics::Euler<3, Real>, Shape::tetrahedron, Shape::tetrahedron, P, GeometryKind::affine, false>&, index_t);
FLOWDG_VARIABLE_FACE_INSTANCE(double, 1)
FLOWDG_VARIABLE_FACE_INSTANCE(double, 2)
FLOWDG_VARIABLE_FACE_INSTANCE(double, 3)
FLOWDG_VARIABLE_FACE_INSTANCE(double, 4)
FLOWDG_VARIABLE_FACE_INSTANCE(float, 1)
FLOWDG_VARIABLE_FACE_INSTANCE(float, 2)
FLOWDG_VARIABLE_FACE_INSTANCE(float, 3)
FLOWDG_VARIABLE_FACE_INSTANCE(float, 4)
#undef FLOWDG_VARIABLE_FACE_INSTANCE

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
