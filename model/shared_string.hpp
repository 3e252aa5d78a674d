// A string many stored objects repeat — a namespace, a node name, a CSI driver's name —
// held once per distinct value (Boost.Flyweight: a hashed, refcounted, locked factory)
// and 8 bytes in each object that names it. The stores hold a namespace per object but
// few distinct namespaces, and a replica map names the same few nodes over and over.
// Equality compares the shared copies' addresses; ordering compares the values.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <string_view>

#include <boost/flyweight/flyweight.hpp>
#include <boost/flyweight/hashed_factory.hpp>
#include <boost/flyweight/refcounted.hpp>
#include <boost/flyweight/simple_locking.hpp>
#include <boost/flyweight/static_holder.hpp>

namespace schedopt {

class shared_string {
public:
  shared_string() = default;
  shared_string(const shared_string&) = default;
  shared_string& operator=(const shared_string&) = default;
  // A "move" copies the handle (a refcount increment, which does not throw): declared
  // noexcept so vectors of objects holding one move them when they grow, not copy them.
  shared_string(shared_string&& other) noexcept : value_(other.value_) {}
  shared_string& operator=(shared_string&& other) noexcept {
    value_ = other.value_;
    return *this;
  }
  shared_string(const std::string& s) : value_(s) {}
  shared_string(std::string&& s) : value_(std::move(s)) {}
  shared_string(const char* s) : value_(std::string(s)) {}
  explicit shared_string(std::string_view s) : value_(std::string(s)) {}

  const std::string& str() const { return value_.get(); }
  /// Goes where a `const std::string&` or a std::string_view goes (std::string's own
  /// constructors and assignments take the view).
  operator const std::string&() const { return str(); }
  operator std::string_view() const { return str(); }
  std::string_view view() const { return str(); }

  bool empty() const { return str().empty(); }
  std::size_t size() const { return str().size(); }
  const char* c_str() const { return str().c_str(); }
  const char* data() const { return str().data(); }
  auto begin() const { return str().begin(); }
  auto end() const { return str().end(); }

  friend bool operator==(const shared_string& a, const shared_string& b) {
    return a.value_ == b.value_;
  }
  friend bool operator<(const shared_string& a, const shared_string& b) {
    return a.str() < b.str();
  }

private:
  boost::flyweights::flyweight<std::string> value_;
};

inline bool operator!=(const shared_string& a, const shared_string& b) { return !(a == b); }
inline bool operator>(const shared_string& a, const shared_string& b) { return b < a; }
inline bool operator<=(const shared_string& a, const shared_string& b) { return !(b < a); }
inline bool operator>=(const shared_string& a, const shared_string& b) { return !(a < b); }

// Against plain strings (std::string, literals, views), by value.
#define SCHEDOPT_SHARED_STRING_COMPARE(Other)                                                    \
  inline bool operator==(const shared_string& a, Other b) { return a.view() == b; }             \
  inline bool operator==(Other a, const shared_string& b) { return a == b.view(); }             \
  inline bool operator!=(const shared_string& a, Other b) { return a.view() != b; }             \
  inline bool operator!=(Other a, const shared_string& b) { return a != b.view(); }             \
  inline bool operator<(const shared_string& a, Other b) { return a.view() < b; }               \
  inline bool operator<(Other a, const shared_string& b) { return a < b.view(); }
SCHEDOPT_SHARED_STRING_COMPARE(const std::string&)
SCHEDOPT_SHARED_STRING_COMPARE(const char*)
SCHEDOPT_SHARED_STRING_COMPARE(std::string_view)
#undef SCHEDOPT_SHARED_STRING_COMPARE

inline std::string operator+(const shared_string& a, const std::string& b) { return a.str() + b; }
inline std::string operator+(const std::string& a, const shared_string& b) { return a + b.str(); }
inline std::string operator+(std::string&& a, const shared_string& b) {
  return std::move(a.append(b.str()));
}
inline std::string operator+(const shared_string& a, const char* b) { return a.str() + b; }
inline std::string operator+(const char* a, const shared_string& b) { return a + b.str(); }
inline std::string operator+(const shared_string& a, char b) { return a.str() + b; }

inline std::ostream& operator<<(std::ostream& out, const shared_string& s) { return out << s.str(); }

} // namespace schedopt

template <>
struct std::hash<schedopt::shared_string> {
  std::size_t operator()(const schedopt::shared_string& s) const {
    return std::hash<std::string>{}(s.str());
  }
};
