// Unit cube of 3x3x3 structured hexahedra (-setnumber cells N: N x N x N) with its six faces named.
DefineConstant[ cells = 3 ];
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 1};
Transfinite Curve{:} = cells + 1;
Transfinite Surface{:};
Recombine Surface{:};
Transfinite Volume{1};
Physical Surface("xmin") = {1};
Physical Surface("xmax") = {2};
Physical Surface("ymin") = {3};
Physical Surface("ymax") = {4};
Physical Surface("zmin") = {5};
Physical Surface("zmax") = {6};
Physical Volume("domain") = {1};
