// Fuzz target: reading a .msh file the way `dgmax run`/`dgmax info` do: load_mesh_file
// (solver/mesh/mesh_file: path checks; msh_reader: content sniffing, the structural check,
// dgmax's own MSH 2.2 / 4.1 parser, conversion to a Mesh; Gmsh until read_msh replaced it) then
// setup_mesh (validation, orientation, connectivity, conformity, geometric factors) and the
// `dgmax info` statistics. Input: the bytes of the file, written to a private temporary
// directory as fuzz.msh. Built in every build (no Gmsh needed).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "solver/mesh/mesh_file.hpp"
#include "solver/mesh/mesh_setup.hpp"
#include "solver/mesh/mesh_stats.hpp"
#include "fuzz_common.hpp"

using namespace dgmax;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::temp_file("msh", "fuzz.msh");
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) fuzz::finding("cannot write " + path);
  }
  try {
    Mesh mesh = load_mesh_file(path);
    MeshData md = setup_mesh(std::move(mesh));
    (void)compute_stats(md);
  } catch (const UserError& e) {
    fuzz::exercise(e);
  }
  return 0;
}
