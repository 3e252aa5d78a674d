#include "model/pv_name.hpp"

#include <cstring>
#include <functional>

#include "model/object_uid.hpp"

namespace schedopt {

namespace {

constexpr std::string_view provisioned_prefix = "pvc-";

// Whether `text` is a name kept as a uid ("pvc-" and a versioned UUID), and that uid.
bool provisioned_uid(std::string_view text, uuid_or_text::uuid& uid) {
  return text.substr(0, provisioned_prefix.size()) == provisioned_prefix
         && parse_uuid(text.substr(provisioned_prefix.size()), uid)
         && uuid_or_text::has_version(uid);
}

int sign(int c) { return c < 0 ? -1 : c > 0 ? 1 : 0; }

} // namespace

pv_name::pv_name(std::string_view text) {
  uuid_or_text::uuid uid{};
  value_ = provisioned_uid(text, uid) ? uuid_or_text(uid, text) : uuid_or_text(text);
}

int compare(const pv_name& a, const pv_name& b) {
  if (a.provisioned() == b.provisioned())
    return sign(a.value_.compare_same_form(b.value_));
  return sign(a.str().compare(b.str()));
}

int compare(const pv_name& a, std::string_view b) {
  uuid_or_text::uuid uid{};
  if (a.provisioned() && provisioned_uid(b, uid)) {
    auto mine = a.value_.uuid_bytes();
    return sign(std::memcmp(mine.data(), uid.data(), uid.size()));
  }
  return sign(a.provisioned() ? a.str().compare(b) : a.value_.text().view().compare(b));
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
