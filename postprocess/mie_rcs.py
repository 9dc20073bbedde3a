#!/usr/bin/python3
"""The Mie series: the bistatic RCS of a sphere as a reference CSV for plot_rcs.py --reference.

A sphere of radius a at the origin, a dielectric of relative permittivity eps (mu = 1) or a perfect
conductor (--pec), under a plane wave travelling +z with E along x, in dgmax's units: c = 1,
frequency f in cycles per unit time, wavenumber k = 2 pi f, size parameter x = k a. The bistatic
radar cross-section at (theta, phi), with Bohren & Huffman's amplitudes S1, S2:
  sigma / (pi a^2) = 4 / x^2 (cos^2 phi |S2(theta)|^2 + sin^2 phi |S1(theta)|^2)
so phi = 0 (E-plane) is 4|S2|^2/x^2, phi = 90 (H-plane) 4|S1|^2/x^2, and theta = 180 gives the
monostatic RCS. A lossy sphere: a complex --eps (the sign of Im eps is taken as loss, whichever time
convention it was written in: the RCS is the same) and/or --sigma, the conductivity of a dgmax
material (eps_c = eps + i sigma / (2 pi f)).

The CSV has columns frequency,theta_deg,phi_deg,rcs,rcs_dB: rcs is sigma (an area, like the rcs
column of dgmax's far-field CSV) and rcs_dB = 10 log10(sigma / (pi a^2)). The angles are theta = 0,
--step, ..., 180 on the cuts --phi (default 0,90: the two cuts of plot_rcs.py), or with --from-csv
exactly the (frequency, theta, phi) rows of a dgmax far-field CSV, so that plot_rcs.py compares at
the run's own angles, without interpolation. One line per frequency goes to stdout:
  mie_rcs.py: f = 0.6366197724 (ka = 1): Q_ext = 0.7968, Q_sca = 0.7968, sigma_back/(pi a^2) = 0.5358

--print-amplitudes prints JSON on stdout instead of writing the CSV: per frequency ka, the index m,
the number of terms, Q_ext (from the optical theorem), Q_sca, Q_back = sigma_back/(pi a^2) and S1,
S2 at every theta, in Bohren & Huffman's convention (e^{-i omega t}; Wiscombe's MIEV0 prints their
complex conjugates).

Numerics (Wiscombe, NCAR TN-140+STR, 1979; Bohren & Huffman, 1983, ch. 4), the same as the
C++ series of the tests (tests/common/mie_series.hpp): Wiscombe's number of terms (x + 4 x^(1/3) + 1
up to x = 8, x + 4.05 x^(1/3) + 2 up to 4200, x + 4 x^(1/3) + 2 beyond); the logarithmic derivative
D_n(m x) by downward recurrence, started above max(terms, |m x| + 10 |m x|^(1/3)) + 16; the
Riccati-Bessel psi_n(x) by upward recurrence while it oscillates (n <= x) and from D_n(x) beyond,
chi_n(x) by upward recurrence (it grows); a_n, b_n from D_n (BH (4.88)); for a perfect conductor
a_n = psi_n'/xi_n', b_n = psi_n/xi_n.

Usage:
  postprocess/mie_rcs.py --radius 0.25 --eps 4 --ka 1,2,3 --out mie.csv     # 1-degree cuts
  postprocess/mie_rcs.py --radius 0.25 --eps 4 --from-csv out/far_field_rcs.csv --out mie.csv
  postprocess/plot_rcs.py out/far_field_rcs.csv --radius 0.25 --db --reference mie.csv
  postprocess/mie_rcs.py --radius 1 --pec --frequency 0.5 --phi 0,45,90 --step 2 --out pec.csv
  postprocess/mie_rcs.py --radius 1 --eps 2.25+0.01j --ka 10 --step 90 --print-amplitudes

Needs /usr/bin/python3 with numpy (Debian: python3-numpy). The CSV is written to <out>.tmp and renamed.
"""

import argparse
import cmath
import json
import math
import os
import sys


def die(msg, hint=None):
    sys.stderr.write("mie_rcs.py: error: %s\n" % msg)
    if hint:
        sys.stderr.write("  hint: %s\n" % hint)
    sys.exit(1)


try:
    import numpy as np
except ImportError:
    die("the python module numpy is missing", "apt-get install python3-numpy (and run /usr/bin/python3)")

# Beyond this the series needs more than ~1e5 terms: almost surely a unit mistake (f is in cycles
# per unit time of the mesh's length unit, c = 1).
MAX_SIZE_PARAMETER = 1e5


# ---------------------------------------------------------------------------------------------
# The series


def wiscombe_terms(x):
    """Wiscombe's number of terms for size parameter x: the far field to ~1e-7."""
    c = float(np.cbrt(x))
    n = x + 4 * c + 1 if x <= 8 else x + 4.05 * c + 2 if x < 4200 else x + 4 * c + 2
    return int(n)


def log_derivative(z, n_max):
    """D_n(z) = psi_n'(z)/psi_n(z), n = 0..n_max, by downward recurrence D_{n-1} = n/z - 1/(D_n + n/z)
    from D = 0 far enough above n_max and |z| that the start's error is below rounding. -> [n_max+1]"""
    z = complex(z)
    az = abs(z)
    start = int(max(n_max, az + 10 * float(np.cbrt(az)))) + 16
    D = np.zeros(n_max + 1, dtype=complex)
    d = 0j
    for n in range(start, 0, -1):
        nz = n / z
        d = nz - 1 / (d + nz)  # now D_{n-1}
        if n - 1 <= n_max:
            D[n - 1] = d
    return D


def riccati_bessel(x, n_max):
    """psi_n(x) = x j_n(x), xi_n = psi_n - i chi_n = x h_n^(1)(x) and their derivatives
    f_n' = f_{n-1} - n f_n / x, n = 0..n_max, at real x > 0. -> psi, dpsi, xi, dxi: [n_max+1]"""
    D = log_derivative(x, n_max).real
    psi = [0.0] * (n_max + 2)  # psi[n + 1] = psi_n: index 0 holds n = -1
    chi = [0.0] * (n_max + 2)
    psi[0], chi[0] = math.cos(x), -math.sin(x)
    psi[1], chi[1] = math.sin(x), math.cos(x)
    for n in range(1, n_max + 1):
        f = (2 * n - 1) / x
        # upward while psi oscillates; beyond, upward recurrence loses every digit: psi_{n-1}/psi_n = D_n + n/x
        psi[n + 1] = f * psi[n] - psi[n - 1] if n <= x else psi[n] / (D[n] + n / x)
        chi[n + 1] = f * chi[n] - chi[n - 1]
    psi, chi = np.array(psi), np.array(chi)
    xi = psi - 1j * chi
    n = np.arange(n_max + 1)
    dpsi = psi[:-1] - n / x * psi[1:]
    dxi = xi[:-1] - n / x * xi[1:]
    return psi[1:], dpsi, xi[1:], dxi


def coefficients(x, m=None):
    """Scattering coefficients a_n, b_n, n = 1..N (Wiscombe's N) of a sphere of relative refractive
    index m (Im m >= 0 absorbs), or of a perfect conductor when m is None. -> a, b: [N]"""
    N = wiscombe_terms(x)
    psi, dpsi, xi, dxi = (v[1:] for v in riccati_bessel(x, N))
    if m is None:
        return dpsi / dxi, psi / xi
    Dm = log_derivative(m * x, N)[1:]
    ta, tb = Dm / m, m * Dm
    return (ta * psi - dpsi) / (ta * xi - dxi), (tb * psi - dpsi) / (tb * xi - dxi)


def amplitudes(a, b, theta):
    """S1, S2 = sum (2n+1)/(n(n+1)) (a_n pi_n + b_n tau_n), (a_n tau_n + b_n pi_n) at the scattering
    angles theta (radians), pi_n and tau_n by BH (4.47). -> S1, S2: [len(theta)]"""
    mu = np.cos(np.asarray(theta, dtype=float))
    S1 = np.zeros(mu.shape, dtype=complex)
    S2 = np.zeros(mu.shape, dtype=complex)
    pi_prev, pi_n = np.zeros(mu.shape), np.ones(mu.shape)  # pi_0, pi_1
    for n in range(1, len(a) + 1):
        tau_n = n * mu * pi_n - (n + 1) * pi_prev
        f = (2 * n + 1) / (n * (n + 1))
        S1 += f * (a[n - 1] * pi_n + b[n - 1] * tau_n)
        S2 += f * (a[n - 1] * tau_n + b[n - 1] * pi_n)
        pi_prev, pi_n = pi_n, ((2 * n + 1) * mu * pi_n - (n + 1) * pi_prev) / n
    return S1, S2


def efficiencies(a, b, x):
    """Q_ext (optical theorem), Q_sca, and Q_back = sigma_back / (pi a^2)."""
    n = np.arange(1, len(a) + 1)
    w = 2 * n + 1
    ext = 2 / x**2 * float(np.sum(w * (a + b).real))
    sca = 2 / x**2 * float(np.sum(w * (np.abs(a) ** 2 + np.abs(b) ** 2)))
    back = abs(np.sum(w * (-1.0) ** n * (a - b))) ** 2 / x**2
    return ext, sca, float(back)


def refractive_index(eps, sigma, omega):
    """m = sqrt(eps + i sigma/omega) with loss as Im m >= 0 (BH's convention); eps complex or real."""
    eps_c = complex(eps.real, abs(eps.imag) + sigma / omega)
    return cmath.sqrt(eps_c)


# ---------------------------------------------------------------------------------------------
# Command line


class Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's own errors, in the scripts' form (exit 1)
        die(message, "mie_rcs.py --help")


def number_list(values, what):
    """Floats from one or more arguments, each possibly a comma-separated list."""
    out = []
    for text in values:
        for v in text.replace(" ", "").split(","):
            if v == "":
                continue
            try:
                out.append(float(v))
            except ValueError:
                die("%s: '%s' is not a number" % (what, v), "e.g. %s 0.5,1.0" % what)
    if not out:
        die("%s is empty" % what)
    if not all(math.isfinite(v) for v in out):
        die("%s must be finite numbers, got %s" % (what, ",".join(values)))
    return out


def parse_eps(text):
    try:
        eps = complex(text.replace(" ", "").replace("i", "j"))
    except ValueError:
        die("--eps: '%s' is not a number" % text, "a real or complex permittivity, e.g. --eps 4 or --eps 2.25+0.1j")
    if not (math.isfinite(eps.real) and math.isfinite(eps.imag)):
        die("--eps must be finite, got %s" % text)
    if eps == 0:
        die("--eps must not be 0", "a perfect conductor is --pec")
    return eps


def read_run_csv(path):
    """frequency, theta_deg, phi_deg of every row of a dgmax far-field CSV. -> 3 arrays [rows]"""
    if not os.path.isfile(path):
        die("'%s' does not exist" % path, "--from-csv takes a far-field CSV of a dgmax run (far_field_<monitor>.csv)")
    try:
        with open(path) as f:
            header = f.readline().strip().split(",")
            lines = [ln for ln in f if ln.strip()]
    except (OSError, UnicodeDecodeError) as e:
        die("cannot read %s: %s" % (path, e))
    for col in ("frequency", "theta_deg", "phi_deg"):
        if col not in header:
            die("%s has no '%s' column (header: %s)" % (path, col, ",".join(header)),
                "expected a far-field CSV of dgmax (frequency,theta_deg,phi_deg,E_theta_re,...)")
    if not lines:
        die("%s has no data rows" % path)
    idx = [header.index(c) for c in ("frequency", "theta_deg", "phi_deg")]
    rows = []
    for i, ln in enumerate(lines):
        fields = ln.strip().split(",")
        if len(fields) != len(header):
            die("%s, data row %d: %d values for the header's %d columns" % (path, i + 1, len(fields), len(header)))
        try:
            rows.append([float(fields[j]) for j in idx])
        except ValueError as e:
            die("%s, data row %d: %s" % (path, i + 1, e))
    data = np.array(rows)
    if not np.all(np.isfinite(data)):
        die("%s has a non-finite frequency or angle" % path)
    return data[:, 0], data[:, 1], data[:, 2]


def theta_grid(step):
    if not step > 0 or step > 180:
        die("--step must be in (0, 180] degrees, got %g" % step)
    n = 180.0 / step
    if abs(n - round(n)) > 1e-9 * n:
        die("--step %g does not divide 180" % step, "e.g. --step 1, 2, 0.5 or 2.5")
    n = int(round(n))
    return np.arange(n + 1) * 180.0 / n


def main():
    ap = Parser(
        description="The Mie series: bistatic RCS of a dielectric or perfectly conducting sphere as a reference CSV "
        "for plot_rcs.py (or its efficiencies and amplitudes as JSON).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__[__doc__.index("Usage:"):__doc__.index("Needs ")])
    ap.add_argument("--radius", "-a", type=float, required=True, help="sphere radius a (the mesh's length unit)")
    material = ap.add_mutually_exclusive_group(required=True)
    material.add_argument("--eps", help="relative permittivity of the sphere, real or complex (4, 2.25+0.1j; a negative one as --eps=-2+0.1j); mu = 1")
    material.add_argument("--pec", action="store_true", help="a perfectly conducting sphere")
    ap.add_argument("--sigma", type=float, default=0.0,
                    help="conductivity of the sphere, as in a dgmax material (default: 0): eps + i sigma/(2 pi f)")
    source = ap.add_mutually_exclusive_group(required=True)
    source.add_argument("--frequency", "-f", nargs="+", metavar="F", help="frequencies (k = 2 pi f), e.g. 0.5,1 or 0.5 1")
    source.add_argument("--ka", nargs="+", metavar="KA", help="size parameters ka instead (f = ka / (2 pi a))")
    source.add_argument("--from-csv", metavar="RUN.csv",
                        help="a dgmax far-field CSV: its frequencies and (theta, phi) rows")
    ap.add_argument("--phi", nargs="+", metavar="DEG",
                    help="cuts phi in degrees (default: 0,90, the E- and H-plane)")
    ap.add_argument("--step", type=float, help="theta step in degrees, dividing 180 (default: 1)")
    ap.add_argument("--out", "-o", default="mie.csv", help="CSV to write (default: mie.csv)")
    ap.add_argument("--print-amplitudes", action="store_true",
                    help="print Q_ext, Q_sca, Q_back and S1, S2 at the thetas as JSON instead of writing the CSV")
    args = ap.parse_args()

    a = args.radius
    if not (math.isfinite(a) and a > 0):
        die("--radius must be > 0 (got %g)" % a)
    if not (math.isfinite(args.sigma) and args.sigma >= 0):
        die("--sigma must be >= 0 (got %g)" % args.sigma)
    if args.pec and args.sigma != 0:
        die("--sigma is for a dielectric (--eps), not --pec")
    eps = None if args.pec else parse_eps(args.eps)

    # rows: frequency, theta, phi [R]; size parameters per distinct frequency
    if args.from_csv:
        if args.step is not None or args.phi is not None:
            die("--step and --phi do not go with --from-csv", "the angles are the run's own rows")
        freq, theta, phi = read_run_csv(args.from_csv)
        freqs = list(dict.fromkeys(freq.tolist()))  # distinct, in the file's order
        kas = [2 * math.pi * f * a for f in freqs]
    else:
        if args.ka:
            kas = number_list(args.ka, "--ka")
            freqs = [x / (2 * math.pi * a) for x in kas]
        else:
            freqs = number_list(args.frequency, "--frequency")
            kas = [2 * math.pi * f * a for f in freqs]
        grid = theta_grid(1.0 if args.step is None else args.step)
        cuts = number_list(args.phi or ["0,90"], "--phi")
        freq = np.repeat(freqs, len(cuts) * len(grid))
        theta = np.tile(grid, len(freqs) * len(cuts))
        phi = np.tile(np.repeat(cuts, len(grid)), len(freqs))
    for f, x in zip(freqs, kas):
        if not f > 0:
            die("the frequencies must be > 0 (got %g)" % f)
        if x > MAX_SIZE_PARAMETER:
            die("ka = %g at f = %g is beyond %g: the series would need that many terms" % (x, f, MAX_SIZE_PARAMETER),
                "dgmax's units: c = 1, f in cycles per unit time, a in the mesh's length unit")

    rcs = np.zeros(len(freq))
    cases = []
    for f, x in zip(freqs, kas):
        m = None if eps is None else refractive_index(eps, args.sigma, 2 * math.pi * f)
        an, bn = coefficients(x, m)
        q_ext, q_sca, q_back = efficiencies(an, bn, x)
        rows = np.isclose(freq, f, rtol=1e-12, atol=0)
        thetas = np.unique(theta[rows])
        S1, S2 = amplitudes(an, bn, np.radians(thetas))
        j = np.searchsorted(thetas, theta[rows])
        c2 = np.cos(np.radians(phi[rows])) ** 2
        rcs[rows] = math.pi * a * a * 4 / x**2 * (c2 * np.abs(S2[j]) ** 2 + (1 - c2) * np.abs(S1[j]) ** 2)
        cases.append({
            "frequency": f, "ka": x, "m": None if m is None else [m.real, m.imag], "terms": len(an),
            "Q_ext": q_ext, "Q_sca": q_sca, "Q_back": q_back,
            "angles": [{"theta_deg": float(t), "S1": [s1.real, s1.imag], "S2": [s2.real, s2.imag]}
                       for t, s1, s2 in zip(thetas, S1.tolist(), S2.tolist())]})

    if args.print_amplitudes:
        json.dump({"radius": a, "pec": eps is None, "convention": "Bohren & Huffman (e^{-i omega t})",
                   "cases": cases}, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return

    rcs_db = 10 * np.log10(np.maximum(rcs / (math.pi * a * a), 1e-300))
    lines = ["frequency,theta_deg,phi_deg,rcs,rcs_dB\n"]
    lines += ["%r,%r,%r,%r,%r\n" % v for v in zip(freq.tolist(), theta.tolist(), phi.tolist(), rcs.tolist(),
                                                  rcs_db.tolist())]
    out = args.out
    try:
        os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
        tmp = out + ".tmp"
        with open(tmp, "w") as fh:
            fh.writelines(lines)
        os.replace(tmp, out)
    except OSError as e:
        die("cannot write %s: %s" % (out, e), "check that its folder is writable")
    for c in cases:
        print("mie_rcs.py: f = %.10g (ka = %.6g): Q_ext = %.4f, Q_sca = %.4f, sigma_back/(pi a^2) = %.4f"
              % (c["frequency"], c["ka"], c["Q_ext"], c["Q_sca"], c["Q_back"]))
    print("mie_rcs.py: wrote %s (%d rows)" % (out, len(freq)))


if __name__ == "__main__":
    main()
