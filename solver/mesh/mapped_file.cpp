#include "solver/mesh/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "solver/util/error.hpp"

namespace dgmax {

MappedFile::MappedFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    throw UserError("mesh file '" + path + "' cannot be read: " + std::strerror(errno), {path});
  struct stat st {};
  if (::fstat(fd, &st) == 0 && st.st_size > 0) {
    void* p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      throw UserError("mesh file '" + path + "' cannot be read: " + std::strerror(err), {path},
                      "give a regular file (not a pipe or a device)");
    }
    data_ = static_cast<const char*>(p);
    size_ = static_cast<size_t>(st.st_size);
  }
  ::close(fd);
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<char*>(data_), size_);
}

}  // namespace dgmax
