#include "model/stored_version.hpp"

#include <charconv>

namespace schedopt {

void stored_version::assign(std::string_view text) {
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

void stored_version::copy_from(const stored_version& other) {
  if (other.empty() || other.is_number())
    bits_ = other.bits_;
  else
    bits_ = reinterpret_cast<uintptr_t>(new std::string(*other.text()));
}

void stored_version::release() {
  if (!empty() && !is_number())
    delete text();
  bits_ = 0;
}

std::string stored_version::str() const {
  if (empty())
    return {};
  if (is_number())
    return std::to_string(bits_ >> 1);
  return *text();
}

} // namespace schedopt
