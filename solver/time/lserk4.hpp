// Low-storage 5-stage 4th-order Runge–Kutta (Carpenter & Kennedy 1994, "2N-storage" form):
//   for s = 0..4:  res = a[s]*res + dt*rhs(q, t + c[s]*dt);  q = q + b[s]*res
#pragma once

namespace dgmax::lserk4 {

inline constexpr int kStages = 5;
inline constexpr double a[kStages] = {0.0,
                                      -567301805773.0 / 1357537059087.0,
                                      -2404267990393.0 / 2016746695238.0,
                                      -3550918686646.0 / 2091501179385.0,
                                      -1275806237668.0 / 842570457699.0};
inline constexpr double b[kStages] = {1432997174477.0 / 9575080441755.0,
                                      5161836677717.0 / 13612068292357.0,
                                      1720146321549.0 / 2090206949498.0,
                                      3134564353537.0 / 4481467310338.0,
                                      2277821191437.0 / 14882151754819.0};
inline constexpr double c[kStages] = {0.0,
                                      1432997174477.0 / 9575080441755.0,
                                      2526269341429.0 / 6820363962896.0,
                                      2006345519317.0 / 3224310063776.0,
                                      // consistent with a and b (Carpenter & Kennedy's 0.9582821306748);
                                      // the often-copied 2802321613138/2924399040881 is off by 2.7e-5
                                      0.95828213067469026};

}  // namespace dgmax::lserk4
