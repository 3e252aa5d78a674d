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

#include "model/uuid_or_text.hpp"

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

  bool empty() const { return !value_.is_uuid() && value_.text().empty(); }

  friend bool operator==(const object_uid& a, const object_uid& b) {
    return a.value_ == b.value_;
  }
  friend bool operator!=(const object_uid& a, const object_uid& b) { return !(a == b); }
  friend std::string operator+(const std::string& a, const object_uid& b) { return a + b.str(); }
  friend std::string operator+(const object_uid& a, const std::string& b) { return a.str() + b; }
  friend std::ostream& operator<<(std::ostream& out, const object_uid& u) {
    return out << u.str();
  }

private:
  /// A UUID in 16 bytes; any uid that is no versioned UUID in canonical lower case (the
  /// nil UUID among them) as text (model/uuid_or_text.hpp).
  uuid_or_text value_;
};

} // namespace schedopt
