#include "solver/io/pvtu_writer.hpp"

#include "solver/io/atomic_write.hpp"

namespace dgmax {

void write_pvtu(const std::string& path, const std::vector<std::string>& pieces) {
  std::string s =
      "<?xml version=\"1.0\"?>\n"
      "<VTKFile type=\"PUnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
      "  <PUnstructuredGrid GhostLevel=\"0\">\n"
      "    <PPointData Vectors=\"E\" Scalars=\"|E|\">\n"
      "      <PDataArray type=\"Float64\" Name=\"E\" NumberOfComponents=\"3\"/>\n"
      "      <PDataArray type=\"Float64\" Name=\"H\" NumberOfComponents=\"3\"/>\n"
      "      <PDataArray type=\"Float64\" Name=\"|E|\"/>\n"
      "    </PPointData>\n"
      "    <PCellData>\n"
      "      <PDataArray type=\"Int32\" Name=\"volume_tag\"/>\n"
      "      <PDataArray type=\"Int32\" Name=\"element\"/>\n"
      "    </PCellData>\n"
      "    <PPoints>\n"
      "      <PDataArray type=\"Float64\" NumberOfComponents=\"3\"/>\n"
      "    </PPoints>\n";
  for (const auto& p : pieces) s += "    <Piece Source=\"" + p + "\"/>\n";
  s += "  </PUnstructuredGrid>\n</VTKFile>\n";
  write_text_atomically(path, s);
}

}  // namespace dgmax
