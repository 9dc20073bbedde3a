#include "solver/mesh/mesh_file.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "dgmax/config.hpp"
#include "solver/mesh/msh_reader.hpp"
#include "solver/util/error.hpp"

#if DGMAX_HAS_GMSH
#include "solver/mesh/gmsh_reader.hpp"
#endif

namespace dgmax {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSupported =
    "supported mesh files: .msh (Gmsh mesh, MSH 4.1 or 2.2, ASCII or binary) and .geo (Gmsh "
    "geometry, meshed on the fly in builds with Gmsh)";

std::string lower_extension(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

}  // namespace

void require_readable_file(const std::string& path, const std::string& what) {
  if (path.empty()) throw UserError(what + " path is empty", {}, "give the path of a file");
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) {
    std::string hint;
    const fs::path parent = fs::path(path).parent_path();
    if (!parent.empty() && !fs::is_directory(parent, ec))
      hint = "the directory '" + parent.string() + "' does not exist either";
    else
      hint = "relative paths are taken from the current directory ('" +
             fs::current_path(ec).string() + "')";
    throw UserError(what + " '" + path + "' does not exist", {path}, hint);
  }
  if (fs::is_directory(st)) throw UserError(what + " '" + path + "' is a directory, not a file", {path}, "give the path of a file in it");
  // a FIFO would block the open below beyond any Ctrl-C, and a device would never end
  if (!fs::is_regular_file(st))
    throw UserError(what + " '" + path + "' is not a regular file but a " +
                        (fs::is_fifo(st) ? "FIFO" : fs::is_character_file(st) || fs::is_block_file(st) ? "device" : "socket"),
                    {path}, "give the path of a file on disk (a mesh is read whole, by every rank)");
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    throw UserError(what + " '" + path + "' cannot be read" +
                        (err != 0 ? std::string(": ") + std::strerror(err) : std::string()),
                    {path}, "check the file's permissions");
  }
}

Mesh load_mesh_file(const std::string& path, double size, int geometry_order, const std::string& write_msh) {
  if (path.empty()) throw UserError("mesh file path is empty", {}, "give mesh.file a .msh (Gmsh mesh) or .geo (Gmsh geometry) file");
  const std::string ext = lower_extension(path);
  if (ext != ".msh" && ext != ".geo") {
    throw UserError(
        (ext.empty() ? "mesh file '" + path + "' has no extension"
                     : "mesh file '" + path + "' has an unsupported extension '" + ext + "'") +
            "; " + kSupported,
        {path}, "other formats can be converted with Gmsh, e.g. `gmsh in.vtk -save -o out.msh`");
  }
  if (!std::isfinite(size) || size < 0)
    throw UserError("mesh size for '" + path + "' must be positive (or 0 to keep the file's own)",
                    {path}, "give mesh.size (info: --size) as a positive length, or leave it out to keep the file's own");
  require_readable_file(path);
  if (ext == ".msh") {
    if (!write_msh.empty())
      throw UserError("--write-msh writes the mesh made from a .geo, and '" + path + "' is a .msh already", {path},
                      "copy the file instead, or give the .geo it was made from");
    Mesh mesh = read_msh(path);  // no Gmsh needed (nor trusted: see msh_check.hpp)
    if (geometry_order > 0 && geometry_order != mesh.geometry_order)
      throw UserError("mesh.geometry_order is " + std::to_string(geometry_order) + ", but the mesh file '" + path +
                          "' holds elements of order " + std::to_string(mesh.geometry_order) +
                          " (a .msh file's geometry is what it holds)",
                      {path},
                      "leave mesh.geometry_order out for a .msh (or set it to " + std::to_string(mesh.geometry_order) +
                          "), or re-mesh at the order you want (`gmsh -3 -order " + std::to_string(geometry_order) +
                          " model.geo`, or give the .geo)");
    return mesh;
  }
#if DGMAX_HAS_GMSH
  Mesh mesh = read_gmsh(path, size, geometry_order, write_msh);
  mesh.source = path;
  return mesh;
#else
  throw UserError("cannot read '" + path + "': meshing a .geo needs Gmsh, and this build of dgmax has no Gmsh support",
                  {path},
                  "mesh it where Gmsh is installed (`gmsh -3 " + path + " -o mesh.msh`) and give the .msh, which every "
                  "build reads; or use a generated `box:` mesh; or rebuild dgmax with -DDGMAX_USE_GMSH=ON "
                  "(needs the Gmsh SDK, e.g. Debian/Ubuntu package libgmsh-dev)");
#endif
}

}  // namespace dgmax
