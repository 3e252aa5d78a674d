// A PVC's spec.volumeName as the stores keep it. The CSI external-provisioner names every
// PV it makes "pvc-" and the claim's uid (sig-storage-lib-external-provisioner,
// controller.go: getProvisionedVolumeNameForClaim): 40 characters, a std::string and a
// 48-byte heap block in each of hundreds of thousands of PVCs. Such a name is kept as
// the uid's 16 bytes; any other name as text.
#pragma once

#include <array>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "model/uuid_or_text.hpp"

namespace schedopt {

/// Compares and joins with text as its text would; the operators are hidden friends, so
/// they take part only where a pv_name does.
/// A PV's own name (metadata.name) is kept the same way: PVs are found by a claim's
/// spec.volumeName, name to name.
class pv_name {
public:
  pv_name() = default;
  explicit pv_name(std::string_view text);
  pv_name(const std::string& text) : pv_name(std::string_view(text)) {}
  pv_name(const char* text) : pv_name(std::string_view(text)) {}

  /// The text, as the API server sent it.
  std::string str() const;
  operator std::string() const { return str(); }
  bool empty() const { return !provisioned() && value_.text().empty(); }
  void clear() { *this = pv_name(); }

  friend bool operator==(const pv_name& a, const pv_name& b) {
    return a.value_ == b.value_;
  }
  friend bool operator!=(const pv_name& a, const pv_name& b) { return !(a == b); }
  friend bool operator==(const pv_name& a, std::string_view b) { return a.str() == b; }
  friend bool operator==(std::string_view a, const pv_name& b) { return b == a; }
  friend bool operator!=(const pv_name& a, std::string_view b) { return !(a == b); }
  friend bool operator==(const pv_name& a, const std::string& b) { return a == std::string_view(b); }
  friend bool operator!=(const pv_name& a, const std::string& b) { return !(a == b); }
  friend bool operator==(const std::string& a, const pv_name& b) { return b == a; }
  friend bool operator!=(const std::string& a, const pv_name& b) { return !(b == a); }
  friend bool operator==(const pv_name& a, const char* b) { return a == std::string_view(b); }
  friend bool operator!=(const pv_name& a, const char* b) { return !(a == b); }
  friend std::string operator+(const std::string& a, const pv_name& b) { return a + b.str(); }
  friend std::string operator+(const pv_name& a, const std::string& b) { return a.str() + b; }
  friend std::string operator+(const char* a, const pv_name& b) { return a + b.str(); }
  friend std::string operator+(const pv_name& a, const char* b) { return a.str() + b; }
  friend std::ostream& operator<<(std::ostream& out, const pv_name& n) { return out << n.str(); }

  /// Orders as the texts would (<0, 0, >0), without writing a provisioned name's text:
  /// its lower-case hex digits order as the uid's bytes do.
  friend int compare(const pv_name& a, const pv_name& b);
  friend int compare(const pv_name& a, std::string_view b);
  friend bool operator<(const pv_name& a, const pv_name& b) { return compare(a, b) < 0; }
  /// Equal names hash alike (each name has one form).
  std::size_t hash() const;

private:
  /// "pvc-<uid>" as the uid's 16 bytes; any other name (a nil or unversioned uid's among
  /// them) as text (model/uuid_or_text.hpp).
  bool provisioned() const { return value_.is_uuid(); }
  uuid_or_text value_;
};

} // namespace schedopt
