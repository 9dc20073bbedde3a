// Where each attribute and dataset of a checkpoint file keeps its value bytes, so that a test can
// damage exactly one of them: the items are those of the file's digest list (solver/io/
// checkpoint_digest.hpp) plus the list itself ("/@digests"). Datasets: their chunks (checksums
// included) or their contiguous storage, from HDF5. Attributes: HDF5 has no call for where an
// attribute's value is, so each place where the value's bytes occur is tried: the one where a
// flipped bit changes what HDF5 reads back is the attribute's.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace dgmax::test {

struct ItemBytes {
  std::string item;                                    // "/q", "/@time", "/q@long_name"
  std::vector<std::pair<uint64_t, uint64_t>> ranges;   // [offset, offset + size) in the file
  uint64_t size() const {
    uint64_t n = 0;
    for (const auto& r : ranges) n += r.second;
    return n;
  }
  // the file offset of value byte i (0 <= i < size())
  uint64_t offset(uint64_t i) const {
    for (const auto& [at, n] : ranges) {
      if (i < n) return at + i;
      i -= n;
    }
    return ~uint64_t(0);
  }
};

inline std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline void put_file_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// An attribute's value bytes as HDF5 reads them (a string's characters, a number's 8 bytes);
// `ok` false when it cannot be read.
inline std::string attribute_value(const std::string& path, const std::string& object, const std::string& name,
                                   bool* ok) {
  *ok = false;
  std::string out;
  H5E_auto2_t func;
  void* data;
  H5Eget_auto2(H5E_DEFAULT, &func, &data);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f >= 0) {
    const hid_t a = H5Aopen_by_name(f, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
    if (a >= 0) {
      const hid_t t = H5Aget_type(a);
      if (H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) > 0) {
        char* s = nullptr;
        if (H5Aread(a, t, &s) >= 0 && s) {
          out = s;
          *ok = true;
          H5free_memory(s);
        }
      } else if (H5Tget_size(t) == 8) {
        char v[8];
        if (H5Aread(a, H5Tget_class(t) == H5T_FLOAT ? H5T_NATIVE_DOUBLE : H5T_NATIVE_LLONG, v) >= 0) {
          out.assign(v, 8);
          *ok = true;
        }
      }
      H5Tclose(t);
      H5Aclose(a);
    }
    H5Fclose(f);
  }
  H5Eset_auto2(H5E_DEFAULT, func, data);
  return out;
}

inline std::vector<ItemBytes> locate_checkpoint_items(const std::string& path, const std::string& scratch) {
  bool ok = false;
  std::vector<std::string> items;
  {
    std::istringstream in(attribute_value(path, "/", "digests", &ok));
    for (std::string line; std::getline(in, line);) items.push_back(line.substr(0, line.find(' ')));
  }
  items.push_back("/@digests");
  const std::string bytes = file_bytes(path);
  std::vector<ItemBytes> out;
  for (const std::string& item : items) {
    ItemBytes ib{item, {}};
    const auto at = item.find('@');
    if (at == std::string::npos) {  // a dataset
      const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
      const hid_t d = H5Dopen2(f, item.c_str(), H5P_DEFAULT);
      const hid_t dcpl = H5Dget_create_plist(d);
      if (H5Pget_layout(dcpl) == H5D_CHUNKED) {
        const hid_t sp = H5Dget_space(d);
        hsize_t n = 0;
        H5Dget_num_chunks(d, sp, &n);
        for (hsize_t i = 0; i < n; ++i) {
          hsize_t off[3];
          unsigned mask = 0;
          haddr_t addr = 0;
          hsize_t size = 0;
          H5Dget_chunk_info(d, sp, i, off, &mask, &addr, &size);
          ib.ranges.emplace_back(addr, size);
        }
        H5Sclose(sp);
      } else if (H5Dget_storage_size(d) > 0) {
        ib.ranges.emplace_back(H5Dget_offset(d), H5Dget_storage_size(d));
      }
      H5Pclose(dcpl);
      H5Dclose(d);
      H5Fclose(f);
    } else {  // an attribute: the occurrence of its value that changes it when flipped
      const std::string object = at == 1 ? "/" : item.substr(0, at), name = item.substr(at + 1);
      const std::string value = attribute_value(path, object, name, &ok);
      for (size_t pos = value.empty() ? std::string::npos : bytes.find(value); pos != std::string::npos;
           pos = bytes.find(value, pos + 1)) {
        std::string flipped = bytes;
        flipped[pos] ^= 0x01;
        put_file_bytes(scratch, flipped);
        bool read = false;
        const std::string now = attribute_value(scratch, object, name, &read);
        if (read && now != value) {
          ib.ranges.emplace_back(pos, value.size());
          break;
        }
      }
      std::remove(scratch.c_str());
    }
    out.push_back(std::move(ib));
  }
  return out;
}

}  // namespace dgmax::test
