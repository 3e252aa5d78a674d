#include "model/pv_name.hpp"

#include <cstring>
#include <functional>

#include "model/object_uid.hpp"

namespace schedopt {

namespace {

constexpr std::string_view provisioned_prefix = "pvc-";

} // namespace

pv_name::pv_name(std::string_view text) {
  std::array<uint8_t, 16> uid{};
  if (text.substr(0, provisioned_prefix.size()) == provisioned_prefix
      && parse_uuid(text.substr(provisioned_prefix.size()), uid))
    value_ = uuid_or_text(uid, text);
  else
    value_ = uuid_or_text(text);
}

int compare(const pv_name& a, const pv_name& b) {
  if (a.provisioned() == b.provisioned())
    return a.value_.compare_same_form(b.value_);
  int c = a.str().compare(b.str());
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

int compare(const pv_name& a, std::string_view b) {
  std::array<uint8_t, 16> uid{};
  bool b_provisioned = b.substr(0, provisioned_prefix.size()) == provisioned_prefix
                       && parse_uuid(b.substr(provisioned_prefix.size()), uid)
                       && uuid_or_text::has_version(uid);
  int c = 0;
  if (a.provisioned() && b_provisioned) {
    auto mine = a.value_.uuid_bytes();
    c = std::memcmp(mine.data(), uid.data(), uid.size());
  } else if (!a.provisioned()) {
    c = a.value_.text().view().compare(b);
  } else {
    c = a.str().compare(b);
  }
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

std::size_t pv_name::hash() const { return value_.hash(); }

std::string pv_name::str() const {
  if (!provisioned())
    return value_.text().str();
  std::string out;
  out.reserve(provisioned_prefix.size() + 36);
  out += provisioned_prefix;
  append_uuid(out, value_.uuid_bytes());
  return out;
}

} // namespace schedopt
