// metadata.uid as the stores keep it. Kubernetes makes every uid an RFC 4122 UUID, 36
// characters of text: a std::string holding one is 32 bytes and a 48-byte heap block,
// paid by every VMI and VirtualMachine the stores hold. Its 16 bytes are
// kept instead; a uid of any other form (a test's, another API server's) is kept as text.
#pragma once

#include <array>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "model/shared_string.hpp"

namespace schedopt {

/// Reads a UUID in canonical lower case ("xxxxxxxx-xxxx-...") into its 16 bytes; false,
/// and `out` untouched, for any other text.
bool parse_uuid(std::string_view text, std::array<uint8_t, 16>& out);
/// Appends the canonical text of a UUID's 16 bytes.
void append_uuid(std::string& out, const std::array<uint8_t, 16>& bytes);

/// Compares and joins with text as its text would; the operators are hidden friends, so
/// they take part only where an object_uid does.
class object_uid {
public:
  object_uid() = default;
  explicit object_uid(std::string_view text);
  object_uid(const std::string& text) : object_uid(std::string_view(text)) {}
  object_uid(const char* text) : object_uid(std::string_view(text)) {}

  /// The text, as the API server sent it (a UUID in lower case).
  std::string str() const;
  operator std::string() const { return str(); }

  bool empty() const { return !is_uuid() && other_.empty(); }

  friend bool operator==(const object_uid& a, const object_uid& b) {
    return a.bytes_ == b.bytes_ && a.other_ == b.other_;
  }
  friend bool operator!=(const object_uid& a, const object_uid& b) { return !(a == b); }
  friend std::string operator+(const std::string& a, const object_uid& b) { return a + b.str(); }
  friend std::string operator+(const object_uid& a, const std::string& b) { return a.str() + b; }
  friend std::ostream& operator<<(std::ostream& out, const object_uid& u) {
    return out << u.str();
  }

private:
  /// A UUID when bytes_ is not all zeros (24 bytes with other_, where a flag beside them
  /// made 32); the nil UUID's text, like any uid that is no UUID in canonical lower case,
  /// is other_.
  bool is_uuid() const { return bytes_ != std::array<uint8_t, 16>{}; }
  std::array<uint8_t, 16> bytes_{};
  shared_string other_;
};

} // namespace schedopt
