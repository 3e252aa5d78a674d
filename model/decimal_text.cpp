#include "model/decimal_text.hpp"

#include <charconv>

namespace schedopt {

void decimal_text::assign(std::string_view text) {
  bits_ = 0;
  if (text.empty())
    return;
  // Canonical decimal only ("0", or no leading zero), below 2^63: such text prints back
  // as it came. "007" or "12a" stays text.
  uint64_t value = 0;
  bool canonical = (text.size() == 1 || text[0] != '0') && text[0] != '+';
  auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (canonical && err == std::errc{} && end == text.data() + text.size()
      && value < (uint64_t{1} << 63)) {
    bits_ = (static_cast<uintptr_t>(value) << 1) | 1u;
    return;
  }
  bits_ = reinterpret_cast<uintptr_t>(new std::string(text));
}

void decimal_text::copy_from(const decimal_text& other) {
  if (other.empty() || other.is_number())
    bits_ = other.bits_;
  else
    bits_ = reinterpret_cast<uintptr_t>(new std::string(*other.text()));
}

void decimal_text::release() {
  if (!empty() && !is_number())
    delete text();
  bits_ = 0;
}

void decimal_text::append_to(std::string& out) const {
  if (empty())
    return;
  if (!is_number()) {
    out += *text();
    return;
  }
  char digits[20];
  auto [end, err] = std::to_chars(digits, digits + sizeof digits, static_cast<uint64_t>(bits_ >> 1));
  (void)err; // 20 digits hold any 64-bit number
  out.append(digits, end);
}

std::string decimal_text::str() const {
  if (empty())
    return {};
  if (is_number())
    return std::to_string(bits_ >> 1);
  return *text();
}

} // namespace schedopt
