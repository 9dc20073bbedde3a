#include "solver/io/checkpoint_digest.hpp"

#include <sstream>

#include "codegen/jit/content_hash.hpp"
#include "solver/util/printable.hpp"

namespace dgmax {

namespace {

std::string digest_of(const std::string& item, std::string_view type, const void* bytes, size_t size) {
  codegen::Sha256 h;
  // each field length-prefixed: ("a", "bc") and ("ab", "c") differ
  const auto field = [&](const void* p, size_t n) {
    const unsigned long long len = n;
    h.update(&len, sizeof len);
    h.update(p, n);
  };
  field(item.data(), item.size());
  field(type.data(), type.size());
  field(bytes, size);
  return h.hex_digest();
}

bool is_hex64(const std::string& s) {
  if (s.size() != 64) return false;
  for (const char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace

void CheckpointDigests::add(const std::string& item, std::string_view type, const void* bytes, size_t size) {
  written_.emplace_back(item, digest_of(item, type, bytes, size));
}

std::string CheckpointDigests::text() const {
  std::string out;
  for (const auto& [item, hex] : written_) out += item + " " + hex + "\n";
  return out;
}

std::string CheckpointDigests::file_digest() const { return codegen::sha256_hex(reading_ ? text_read_ : text()); }

std::string CheckpointDigests::expect(const std::string& text) {
  reading_ = true;
  text_read_ = text;
  expected_.clear();
  order_.clear();
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    const auto sp = line.find(' ');
    const std::string item = sp == std::string::npos ? line : line.substr(0, sp);
    const std::string hex = sp == std::string::npos ? std::string() : line.substr(sp + 1);
    if (item.empty() || !is_hex64(hex) || !expected_.emplace(item, std::make_pair(hex, false)).second)
      return "its digest list is damaged (line " + std::to_string(n) + ": '" + printable_text(line.substr(0, 100)) + "')";
    order_.push_back(item);
  }
  if (order_.empty()) return "its digest list is empty";
  return {};
}

std::string CheckpointDigests::check(const std::string& item, std::string_view type, const void* bytes, size_t size) {
  const auto it = expected_.find(item);
  if (it == expected_.end()) return "'" + printable_text(item) + "' is not in its digest list";
  if (it->second.first != digest_of(item, type, bytes, size))
    return "'" + printable_text(item) + "' does not match its digest (the file is damaged)";
  it->second.second = true;
  return {};
}

std::vector<std::string> CheckpointDigests::unchecked() const {
  std::vector<std::string> out;
  for (const std::string& item : order_)
    if (!expected_.at(item).second) out.push_back(item);
  return out;
}

}  // namespace dgmax
