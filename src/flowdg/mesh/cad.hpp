#pragma once
// CAD surfaces for mesh curving (mesh/curve.hpp): closest points on the surfaces of a STEP, IGES,
// BREP or .geo model, through Gmsh's C API (libgmsh, Debian's libgmsh-dev). The library is opened
// with dlopen at the first use, so flowdg links no CAD kernel and stays copyable to machines
// without one; where libgmsh is missing, using a CAD wall is an InputError that says so.
#include <string>
#include <vector>

#include "flowdg/core/point.hpp"

namespace flowdg {

/// Whether Gmsh's API can be loaded on this machine (libgmsh.so found).
bool cad_available();

/// The point closest to x on the surfaces `surfaces` (Gmsh's tags of dimension 2; empty: every
/// surface of the model) of the CAD file `file`, which is loaded once and kept until another file
/// is asked for. InputError: no libgmsh, an unreadable file, a model without those surfaces.
Point3 cad_closest_point(const std::string& file, const std::vector<int>& surfaces, Point3 x);

}  // namespace flowdg
