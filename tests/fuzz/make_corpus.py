#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets from files already in the repository.

    make_corpus.py SOURCE_DIR OUT_DIR

OUT_DIR/expression  expressions: the quoted strings of configs/*.yaml, the built-in fluxes
                    (codegen/lower/flux_library.cpp) and the string literals of the dsl/lower
                    unit tests, plus a few hand-written ones
OUT_DIR/flux        one byte (context: even = flux, odd = exterior state), E, '\n', H: the
                    built-in fluxes and exterior states and every E/H pair of configs/*.yaml
OUT_DIR/config      configs/*.yaml and the built-in default config (solver/io/run_config.cpp)
OUT_DIR/msh         tests/data/*.msh
OUT_DIR/msh_reader  the same
Each file is named by the hash of its content, so re-running is idempotent. The corpora are build
outputs: never commit them (tests/fuzz/regressions/ holds the few inputs worth keeping).
"""
import ast
import glob
import hashlib
import os
import re
import sys

src, out = sys.argv[1], sys.argv[2]

HAND_EXPRESSIONS = [
    "1", "x", "-x^2", "2^-1", "2^3^2", "sin(pi*x)*cos(omega*t)", "atan2(y, x)", "min(x, max(y, z))",
    "pow(x, 2) + sqrt(abs(y))", "sign(x) + heaviside(y - 0.5) + erf(z)", "1e308*10", "0/0",
    "exp(-((x - t)/0.1)^2)", "floor(x) - ceil(y)", "((((x))))", "x.int", "E.int", "cross(n, E)",
    "foo(x)", "sin()", "1 +", "(", "log(-1)", "1.5e-3 * tanh(t) / (1 + x*x)",
]


def literals(path):
    """C++ string literals (plain and adjacent-concatenated) of a source file."""
    text = open(path, encoding="utf-8", errors="replace").read()
    for m in re.finditer(r'"((?:[^"\\\n]|\\.)*)"', text):
        try:
            yield ast.literal_eval('"' + m.group(1) + '"')
        except (ValueError, SyntaxError):
            pass


def yaml_quoted(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    for m in re.finditer(r'"((?:[^"\\\n]|\\.)*)"', text):
        yield m.group(1)


def write(kind, data):
    if isinstance(data, str):
        data = data.encode()
    d = os.path.join(out, kind)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()
    path = os.path.join(d, name)
    if not os.path.exists(path):
        with open(path, "wb") as f:
            f.write(data)


configs = sorted(glob.glob(os.path.join(src, "configs", "*.yaml")))

# expressions
for e in HAND_EXPRESSIONS:
    write("expression", e)
for c in configs:
    for s in yaml_quoted(c):
        write("expression", s)
tests = (glob.glob(os.path.join(src, "tests/unit/dsl/*.cpp")) +
         glob.glob(os.path.join(src, "tests/unit/lower/*.cpp")))
for t in sorted(tests):
    for s in literals(t):
        if 0 < len(s) <= 300:
            write("expression", s)

# fluxes: the library's (name, E, H, description) rows, then the configs' flux/boundary_states
lib = list(literals(os.path.join(src, "codegen/lower/flux_library.cpp")))
pairs = []
for i in range(len(lib) - 2):
    if re.fullmatch(r"[a-z_]+", lib[i]) and any(k in lib[i + 1] for k in ("E", "H", "Z", "Y")) \
            and len(lib[i + 1]) < 200 and len(lib[i + 2]) < 200:
        pairs.append((lib[i + 1], lib[i + 2]))
for c in configs:
    text = open(c, encoding="utf-8").read()
    for m in re.finditer(r'^\s*E:\s*"([^"\n]*)"\s*\n\s*H:\s*"([^"\n]*)"', text, re.M):
        pairs.append((m.group(1), m.group(2)))
pairs += [("E.ext", "H.ext"), ("jump(E)", "avg(H)"), ("n", "norm(E.int)*n"), ("E.int", "1")]
for e, h in pairs:
    for ctx in (b"\x00", b"\x01"):
        write("flux", ctx + e.encode() + b"\n" + h.encode())

# configs
for c in configs:
    write("config", open(c, "rb").read())
rc = open(os.path.join(src, "solver/io/run_config.cpp"), encoding="utf-8").read()
m = re.search(r'R"(\w*)\((.*?)\)\1"', rc, re.S)
if m:
    write("config", m.group(2))
write("config", "mesh: {box: {cells: [1, 1, 1]}}\n")

# meshes
for f in sorted(glob.glob(os.path.join(src, "tests", "data", "*.msh"))):
    write("msh", open(f, "rb").read())
    write("msh_reader", open(f, "rb").read())

for kind in ("expression", "flux", "config", "msh", "msh_reader"):
    d = os.path.join(out, kind)
    print(f"corpus {kind}: {len(os.listdir(d)) if os.path.isdir(d) else 0} seeds")
