// meshing_fails.geo: valid .geo syntax, but the 3D mesh cannot be made: a rectangle embedded in
// the unit cube sticks out of it (segment-facet intersection). For the reader's error path
// ("Gmsh could not mesh ...") and for checking that later reads still work.
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 1};
Rectangle(10) = {-0.5, 0.2, 0.5, 2, 0.5};
Surface{10} In Volume{1};
Physical Volume("domain") = {1};
