// Bounded "<Enum>: <detail>" reasons; truncation respects UTF-8 so the API server
// (which rejects invalid UTF-8 in JSON strings) never sees half a character.
#include "model/reason.hpp"

namespace schedopt {

namespace {

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

} // namespace

std::string truncate_utf8(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes)
    return std::string(text);
  std::size_t cut = max_bytes;
  // A sequence is at most 4 bytes: back up over at most 3 continuation bytes to the
  // lead byte of the sequence the cut would split. Beyond that the input is not UTF-8
  // and a byte cut is as good as any.
  std::size_t backed = 0;
  while (cut > 0 && backed < 4 && is_continuation(static_cast<unsigned char>(text[cut]))) {
    --cut;
    ++backed;
  }
  if (backed == 4)
    cut = max_bytes;
  return std::string(text.substr(0, cut));
}

std::string make_reason(reason_kind kind, std::string_view detail) {
  return make_reason(to_wire(kind), detail);
}

std::string make_reason(std::string_view kind, std::string_view detail) {
  std::string out(kind);
  if (!detail.empty()) {
    out += ": ";
    out.append(detail);
  }
  return truncate_utf8(out, max_reason_bytes);
}

std::pair<std::string, std::string> split_reason(std::string_view reason) {
  auto pos = reason.find(": ");
  if (pos == std::string_view::npos)
    return {std::string(), std::string(reason)};
  return {std::string(reason.substr(0, pos)), std::string(reason.substr(pos + 2))};
}

} // namespace schedopt
