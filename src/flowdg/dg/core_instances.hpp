#pragma once
// The DG core's instantiations, one translation unit each (dg/euler*_core_kernels.cpp), so that
// the build compiles them in parallel and a change to one physics does not rebuild the others.
#include <memory>

#include "flowdg/dg/operator.hpp"

namespace flowdg::dg {

std::unique_ptr<Operator> make_euler2d_double(const Mesh&, const Connectivity&, const OperatorOptions&);
std::unique_ptr<Operator> make_euler2d_float(const Mesh&, const Connectivity&, const OperatorOptions&);
std::unique_ptr<Operator> make_euler3d_double(const Mesh&, const Connectivity&, const OperatorOptions&);
std::unique_ptr<Operator> make_euler3d_float(const Mesh&, const Connectivity&, const OperatorOptions&);
std::unique_ptr<Operator> make_navier_stokes2d_double(const Mesh&, const Connectivity&, const OperatorOptions&);
std::unique_ptr<Operator> make_navier_stokes3d_double(const Mesh&, const Connectivity&, const OperatorOptions&);
std::unique_ptr<Operator> make_euler_av3d_double(const Mesh&, const Connectivity&, const OperatorOptions&);
std::unique_ptr<Operator> make_euler_av3d_float(const Mesh&, const Connectivity&, const OperatorOptions&);

}  // namespace flowdg::dg
