// ParaView collection (.pvd): a time series listing one data file per time, e.g.
//
//   <?xml version="1.0"?>
//   <VTKFile type="Collection" version="0.1" byte_order="LittleEndian">
//     <Collection>
//       <DataSet timestep="0.25" group="" part="0" file="run_00001.vtu"/>
//     </Collection>
//   </VTKFile>
//
// The file is rewritten completely (atomically: temp file + rename) after every add(), so it is
// always valid XML listing every snapshot written so far, even if the run dies later.
#pragma once

#include <string>
#include <vector>

namespace dgmax {

struct PvdEntry {
  double time = 0;
  std::string file;  // as written into the collection: relative to the .pvd's folder
  int part = 0;
};

class PvdWriter {
 public:
  // `path`: the .pvd file. Nothing is written before the first add().
  explicit PvdWriter(std::string path);

  // Appends an entry and rewrites the collection. Throws UserError naming the path on failure
  // (the entry stays recorded, so a later add() retries writing it).
  void add(double time, const std::string& file, int part = 0);

  // Rewrites the collection with the current entries (also when there are none).
  void write() const;

  const std::string& path() const { return path_; }
  const std::vector<PvdEntry>& entries() const { return entries_; }

 private:
  std::string path_;
  std::vector<PvdEntry> entries_;
};

// The collection's XML text; times printed with 17 significant digits (round-trip exact),
// file names XML-escaped.
std::string pvd_xml(const std::vector<PvdEntry>& entries);

}  // namespace dgmax
