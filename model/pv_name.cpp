#include "model/pv_name.hpp"

#include <cstring>
#include <functional>

#include "model/object_uid.hpp"

namespace schedopt {

namespace {

constexpr std::string_view provisioned_prefix = "pvc-";

} // namespace

pv_name::pv_name(std::string_view text) {
  if (text.substr(0, provisioned_prefix.size()) == provisioned_prefix
      && parse_uuid(text.substr(provisioned_prefix.size()), uid_) && provisioned())
    return;
  uid_ = {};
  if (!text.empty())
    other_ = shared_string(text);
}

int compare(const pv_name& a, const pv_name& b) {
  if (a.provisioned() && b.provisioned()) {
    int c = std::memcmp(a.uid_.data(), b.uid_.data(), a.uid_.size());
    return c < 0 ? -1 : c > 0 ? 1 : 0;
  }
  int c = !a.provisioned() && !b.provisioned() ? a.other_.view().compare(b.other_.view())
                                               : a.str().compare(b.str());
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

int compare(const pv_name& a, std::string_view b) {
  std::array<uint8_t, 16> uid{};
  bool b_provisioned = b.substr(0, provisioned_prefix.size()) == provisioned_prefix
                       && parse_uuid(b.substr(provisioned_prefix.size()), uid)
                       && uid != std::array<uint8_t, 16>{};
  int c = 0;
  if (a.provisioned() && b_provisioned)
    c = std::memcmp(a.uid_.data(), uid.data(), uid.size());
  else if (!a.provisioned())
    c = a.other_.view().compare(b);
  else
    c = a.str().compare(b);
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

std::size_t pv_name::hash() const {
  if (!provisioned())
    return std::hash<std::string_view>{}(other_.view());
  return std::hash<std::string_view>{}(
    std::string_view(reinterpret_cast<const char*>(uid_.data()), uid_.size()));
}

std::string pv_name::str() const {
  if (!provisioned())
    return other_.str();
  std::string out;
  out.reserve(provisioned_prefix.size() + 36);
  out += provisioned_prefix;
  append_uuid(out, uid_);
  return out;
}

} // namespace schedopt
