// sphere_rcs_pec.geo — sphere_rcs.geo with pec = 1: the sphere (radius 0.25) is a hole, its surface
// tagged sphere_surface (a pec boundary in configs/sphere_rcs_pec.yaml); volumes air and pml only.
// Same parameters as sphere_rcs.geo (h, h_pml, nc: -setnumber on the gmsh command line).
pec = 1;
Include "sphere_rcs.geo";
