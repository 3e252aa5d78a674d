// Text that is mostly a decimal number, as the stores keep it: metadata.resourceVersion
// (opaque to Kubernetes, but etcd's and the simulator's are integers) and a Portworx
// volume id (a PV's CSI volumeHandle). Such text is kept as its number, 8 bytes where a
// std::string is 32 and, past 15 digits, a heap block too, paid by every one of the
// hundreds of thousands of objects the stores hold. Any other text is kept as text, so
// every value prints back as sent.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace schedopt {

/// Compares and joins with text as its text would; the operators are hidden friends, so
/// they take part only where one does.
class decimal_text {
public:
  decimal_text() = default;
  explicit decimal_text(std::string_view text) { assign(text); }
  decimal_text(const std::string& text) { assign(text); }
  decimal_text(const char* text) { assign(text); }
  decimal_text(const decimal_text& other) { copy_from(other); }
  decimal_text(decimal_text&& other) noexcept : bits_(other.bits_) { other.bits_ = 0; }
  decimal_text& operator=(const decimal_text& other) {
    if (this != &other) {
      release();
      copy_from(other);
    }
    return *this;
  }
  decimal_text& operator=(decimal_text&& other) noexcept {
    if (this != &other) {
      release();
      bits_ = other.bits_;
      other.bits_ = 0;
    }
    return *this;
  }
  decimal_text& operator=(std::string_view text) {
    release();
    assign(text);
    return *this;
  }
  decimal_text& operator=(const std::string& text) { return *this = std::string_view(text); }
  decimal_text& operator=(const char* text) { return *this = std::string_view(text); }
  ~decimal_text() { release(); }

  /// The text, as the API server sent it.
  std::string str() const;
  /// Appends the text to `out` (no std::string of its own on the way).
  void append_to(std::string& out) const;
  operator std::string() const { return str(); }
  bool empty() const { return bits_ == 0; }
  void clear() { release(); }
  /// The value as a number, when its text is a decimal integer.
  std::optional<uint64_t> number() const {
    if (!is_number())
      return std::nullopt;
    return static_cast<uint64_t>(bits_ >> 1);
  }

  friend bool operator==(const decimal_text& a, const decimal_text& b) {
    if (a.is_number() || b.is_number() || a.empty() || b.empty())
      return a.bits_ == b.bits_; // one text has one form: a number is never kept as text
    return *a.text() == *b.text();
  }
  friend bool operator!=(const decimal_text& a, const decimal_text& b) { return !(a == b); }
  friend bool operator==(const decimal_text& a, std::string_view b) { return a == decimal_text(b); }
  friend bool operator==(std::string_view a, const decimal_text& b) { return b == a; }
  friend bool operator!=(const decimal_text& a, std::string_view b) { return !(a == b); }
  friend bool operator!=(std::string_view a, const decimal_text& b) { return !(b == a); }
  friend bool operator==(const decimal_text& a, const std::string& b) { return a == std::string_view(b); }
  friend bool operator==(const std::string& a, const decimal_text& b) { return b == std::string_view(a); }
  friend bool operator!=(const decimal_text& a, const std::string& b) { return !(a == b); }
  friend bool operator!=(const std::string& a, const decimal_text& b) { return !(b == a); }
  friend bool operator==(const decimal_text& a, const char* b) { return a == std::string_view(b); }
  friend bool operator!=(const decimal_text& a, const char* b) { return !(a == b); }
  friend std::string operator+(const std::string& a, const decimal_text& b) { return a + b.str(); }
  friend std::string operator+(const decimal_text& a, const std::string& b) { return a.str() + b; }
  friend std::string operator+(const char* a, const decimal_text& b) { return a + b.str(); }
  friend std::ostream& operator<<(std::ostream& out, const decimal_text& v) { return out << v.str(); }

private:
  // 0: empty; low bit set: the number shifted left by one; else an owned std::string*.
  bool is_number() const { return (bits_ & 1u) != 0; }
  const std::string* text() const { return reinterpret_cast<const std::string*>(bits_); }
  void assign(std::string_view text);
  void copy_from(const decimal_text& other);
  void release();

  uintptr_t bits_ = 0;
};

static_assert(sizeof(uintptr_t) == 8, "a decimal_text packs a 63-bit number in a pointer");

} // namespace schedopt
