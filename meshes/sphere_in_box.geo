// sphere_in_box.geo — a dielectric sphere (radius 0.25, centre (0.5, 0.5, 0.5)) inside the
// box [0,1]^3. The sphere and the surrounding air are separate volumes with a conforming
// interface (OpenCASCADE BooleanFragments), so every tet is either in the sphere or in the air.
//
// Physical groups
//   volumes:  air (box minus sphere), sphere
//   surfaces: outer (the six faces of the box)
//
// Default mesh size h = 0.1 (dgmax's `size` overrides it, as does `-setnumber h 0.2` on the
// gmsh command line). Mesh by hand with
//   gmsh -3 sphere_in_box.geo -o sphere_in_box.msh
SetFactory("OpenCASCADE");

R = 0.25;
Box(1) = {0, 0, 0, 1, 1, 1};
Sphere(2) = {0.5, 0.5, 0.5, R};
v() = BooleanFragments{ Volume{1}; Delete; }{ Volume{2}; Delete; };

// The fragment inside the sphere's bounding box is the sphere; everything else is air.
eps = 1e-6;
sphere() = Volume In BoundingBox{0.5 - R - eps, 0.5 - R - eps, 0.5 - R - eps,
                                 0.5 + R + eps, 0.5 + R + eps, 0.5 + R + eps};
air() = v();
air() -= sphere();

Physical Volume("air") = {air()};
Physical Volume("sphere") = {sphere()};
Physical Surface("outer") = CombinedBoundary{ Volume{v()}; };

DefineConstant[ h = {0.1, Name "Parameters/mesh size h"} ];
Mesh.MeshSizeFromPoints = 0;  // uniform size h: coarser or finer meshes just change h
Mesh.MeshSizeFromCurvature = 12;  // at least ~12 elements around the sphere at any h
Mesh.MeshSizeMax = h;
