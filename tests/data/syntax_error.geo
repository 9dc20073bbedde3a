// syntax_error.geo: a .geo script with a syntax error on line 4 (missing comma), for the
// reader's error path (the message must quote Gmsh and point at the line).
Point(1) = {0, 0, 0, 0.1};
Point(2) = {1, 0 0, 0.1};
Line(1) = {1, 2};
