// A file's bytes, mapped read-only (no copy): the .msh check and reader walk files of any size.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace dgmax {

class MappedFile {
 public:
  // Throws UserError naming `path` when it cannot be opened or mapped. An empty file maps to no
  // bytes.
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::string_view bytes() const { return {data_, size_}; }

 private:
  const char* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace dgmax
