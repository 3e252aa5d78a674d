// metadata.resourceVersion as the stores keep it. Kubernetes calls it opaque text, but
// etcd's (and the simulator's) are decimal integers: one is kept as its number, 8 bytes
// where a std::string is 32, paid by every one of the hundreds of thousands of objects
// the stores hold. Any other text is kept as text, so every version prints back as sent.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace schedopt {

/// Compares and joins with text as its text would; the operators are hidden friends, so
/// they take part only where one does.
class stored_version {
public:
  stored_version() = default;
  explicit stored_version(std::string_view text) { assign(text); }
  stored_version(const std::string& text) { assign(text); }
  stored_version(const char* text) { assign(text); }
  stored_version(const stored_version& other) { copy_from(other); }
  stored_version(stored_version&& other) noexcept : bits_(other.bits_) { other.bits_ = 0; }
  stored_version& operator=(const stored_version& other) {
    if (this != &other) {
      release();
      copy_from(other);
    }
    return *this;
  }
  stored_version& operator=(stored_version&& other) noexcept {
    if (this != &other) {
      release();
      bits_ = other.bits_;
      other.bits_ = 0;
    }
    return *this;
  }
  stored_version& operator=(std::string_view text) {
    release();
    assign(text);
    return *this;
  }
  stored_version& operator=(const std::string& text) { return *this = std::string_view(text); }
  stored_version& operator=(const char* text) { return *this = std::string_view(text); }
  ~stored_version() { release(); }

  /// The text, as the API server sent it.
  std::string str() const;
  operator std::string() const { return str(); }
  bool empty() const { return bits_ == 0; }
  void clear() { release(); }
  /// The version as a number, when its text is a decimal integer.
  std::optional<uint64_t> number() const {
    if (!is_number())
      return std::nullopt;
    return static_cast<uint64_t>(bits_ >> 1);
  }

  friend bool operator==(const stored_version& a, const stored_version& b) {
    if (a.is_number() || b.is_number() || a.empty() || b.empty())
      return a.bits_ == b.bits_; // one text has one form: a number is never kept as text
    return *a.text() == *b.text();
  }
  friend bool operator!=(const stored_version& a, const stored_version& b) { return !(a == b); }
  friend bool operator==(const stored_version& a, std::string_view b) { return a == stored_version(b); }
  friend bool operator==(std::string_view a, const stored_version& b) { return b == a; }
  friend bool operator!=(const stored_version& a, std::string_view b) { return !(a == b); }
  friend bool operator!=(std::string_view a, const stored_version& b) { return !(b == a); }
  friend bool operator==(const stored_version& a, const std::string& b) { return a == std::string_view(b); }
  friend bool operator==(const std::string& a, const stored_version& b) { return b == std::string_view(a); }
  friend bool operator!=(const stored_version& a, const std::string& b) { return !(a == b); }
  friend bool operator!=(const std::string& a, const stored_version& b) { return !(b == a); }
  friend bool operator==(const stored_version& a, const char* b) { return a == std::string_view(b); }
  friend bool operator!=(const stored_version& a, const char* b) { return !(a == b); }
  friend std::string operator+(const std::string& a, const stored_version& b) { return a + b.str(); }
  friend std::string operator+(const stored_version& a, const std::string& b) { return a.str() + b; }
  friend std::string operator+(const char* a, const stored_version& b) { return a + b.str(); }
  friend std::ostream& operator<<(std::ostream& out, const stored_version& v) { return out << v.str(); }

private:
  // 0: empty; low bit set: the number shifted left by one; else an owned std::string*.
  bool is_number() const { return (bits_ & 1u) != 0; }
  const std::string* text() const { return reinterpret_cast<const std::string*>(bits_); }
  void assign(std::string_view text);
  void copy_from(const stored_version& other);
  void release();

  uintptr_t bits_ = 0;
};

static_assert(sizeof(uintptr_t) == 8, "a stored_version packs a 63-bit number in a pointer");

} // namespace schedopt
