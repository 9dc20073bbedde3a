// cylinder.geo — a circular cylinder of radius R = 1 and length L = 1 along z, its base at z = 0.
//
// Physical groups
//   volume:   cavity
//   surfaces: wall (the curved side, r = R), zmin (z = 0), zmax (z = L)
//
// Default mesh size h = 0.5 (dgmax's `size` overrides it, as does `-setnumber h 0.25` on the gmsh
// command line). Curved elements follow from `mesh.geometry_order` (Gmsh's Mesh.ElementOrder, with
// its high-order optimisation). Mesh by hand with
//   gmsh -3 -order 3 cylinder.geo -o cylinder.msh
SetFactory("OpenCASCADE");

R = 1;
L = 1;
Cylinder(1) = {0, 0, 0, 0, 0, L, R};

eps = 1e-6;
Physical Volume("cavity") = {1};
bottom[] = Surface In BoundingBox{-R - eps, -R - eps, -eps, R + eps, R + eps, eps};
top[] = Surface In BoundingBox{-R - eps, -R - eps, L - eps, R + eps, R + eps, L + eps};
side[] = Surface In BoundingBox{-R - eps, -R - eps, -eps, R + eps, R + eps, L + eps};
side[] -= {bottom[], top[]};
Physical Surface("zmin") = {bottom[]};
Physical Surface("zmax") = {top[]};
Physical Surface("wall") = {side[]};

DefineConstant[ h = {0.5, Name "Parameters/mesh size h"} ];
Mesh.MeshSizeFromPoints = 0;  // uniform size h: coarser or finer meshes just change h
Mesh.MeshSizeMax = h;
