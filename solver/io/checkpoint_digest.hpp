// The digests that make a checkpoint file prove itself (checkpoint.hpp): every attribute and
// dataset written is an item ("/@time", "/q", "/q@long_name"), each with the SHA-256 of its name,
// its stored type and shape, and its bytes as stored. The list, one "<item> <64 hex digits>" line
// per item in the order written, is the root attribute "digests", written last. Reading checks each
// item against its line as it is read, before its value is used, and at the end that no listed
// item was left unread; so a flipped bit anywhere in what a restart uses fails the read with the
// item named, whether or not HDF5's own Fletcher-32 checksums cover it (they cover chunked datasets
// only, not attributes or the progress record).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace dgmax {

class CheckpointDigests {
 public:
  // Writing: the digest of one item. `type`: its stored type and shape, e.g. "f8[4,6,10]", "str".
  void add(const std::string& item, std::string_view type, const void* bytes, size_t size);
  // The "digests" attribute's text.
  std::string text() const;
  // The SHA-256 of text(): the digest of the whole file (a set's record lists its pieces' ones).
  std::string file_digest() const;

  // Reading: the expected digests, from the "digests" attribute; "" when it parses, else why not.
  std::string expect(const std::string& text);
  // "" when `item` has the digest listed for it, else why not (not listed, or damaged).
  std::string check(const std::string& item, std::string_view type, const void* bytes, size_t size);
  // The listed items not checked yet, in the listed order.
  std::vector<std::string> unchecked() const;
  bool reading() const { return reading_; }

 private:
  bool reading_ = false;
  std::vector<std::pair<std::string, std::string>> written_;  // (item, hex) in write order
  std::map<std::string, std::pair<std::string, bool>> expected_;  // item -> (hex, checked)
  std::vector<std::string> order_;  // the listed items, in order
  std::string text_read_;
};

}  // namespace dgmax
