#include "solver/io/pvd_writer.hpp"

#include <cstdio>
#include <utility>

#include "solver/io/atomic_write.hpp"

namespace dgmax {

namespace {

std::string xml_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string format_time(double t) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", t);
  return buf;
}

}  // namespace

std::string pvd_xml(const std::vector<PvdEntry>& entries) {
  std::string xml =
      "<?xml version=\"1.0\"?>\n"
      "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
      "  <Collection>\n";
  for (const PvdEntry& e : entries) {
    xml += "    <DataSet timestep=\"" + format_time(e.time) + "\" group=\"\" part=\"" +
           std::to_string(e.part) + "\" file=\"" + xml_escape(e.file) + "\"/>\n";
  }
  xml +=
      "  </Collection>\n"
      "</VTKFile>\n";
  return xml;
}

PvdWriter::PvdWriter(std::string path) : path_(std::move(path)) {}

void PvdWriter::add(double time, const std::string& file, int part) {
  entries_.push_back({time, file, part});
  write();
}

void PvdWriter::write() const { write_text_atomically(path_, pvd_xml(entries_)); }

}  // namespace dgmax
