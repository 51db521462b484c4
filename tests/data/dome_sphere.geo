// The CAD sphere of curve_test.cpp (radius 3 through (0.5, 0.5, 0)): gmsh -0 dome_sphere.geo writes dome_sphere.brep.
SetFactory("OpenCASCADE");
Sphere(1) = {0.5, 0.5, 3, 3};
Save "dome_sphere.brep";
