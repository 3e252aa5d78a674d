#include "model/object_uid.hpp"

namespace schedopt {

namespace {

constexpr const char* hex_digits = "0123456789abcdef";

// Where the dashes of "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" are.
bool dash_at(std::size_t i) { return i == 8 || i == 13 || i == 18 || i == 23; }

int hex_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1; // upper case is not canonical: it would not print back as sent
}

} // namespace

bool parse_uuid(std::string_view text, std::array<uint8_t, 16>& out) {
  std::array<uint8_t, 16> bytes{};
  if (text.size() != 36)
    return false;
  for (std::size_t i = 0, b = 0; i < text.size(); ++i) {
    if (dash_at(i)) {
      if (text[i] != '-')
        return false;
      continue;
    }
    int v = hex_value(text[i]);
    if (v < 0)
      return false;
    bytes[b / 2] = static_cast<uint8_t>(b % 2 == 0 ? v << 4 : bytes[b / 2] | v);
    ++b;
  }
  out = bytes;
  return true;
}

void append_uuid(std::string& out, const std::array<uint8_t, 16>& bytes) {
  for (std::size_t b = 0; b < 16; ++b) {
    if (b == 4 || b == 6 || b == 8 || b == 10)
      out += '-';
    out += hex_digits[bytes[b] >> 4];
    out += hex_digits[bytes[b] & 0xf];
  }
}

object_uid::object_uid(std::string_view text) {
  std::array<uint8_t, 16> bytes{};
  value_ = parse_uuid(text, bytes) ? uuid_or_text(bytes, text) : uuid_or_text(text);
}

std::string object_uid::str() const {
  if (!value_.is_uuid())
    return value_.text().str();
  std::string out;
  out.reserve(36);
  append_uuid(out, value_.uuid_bytes());
  return out;
}

} // namespace schedopt
