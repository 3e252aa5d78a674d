#include "model/pv_name.hpp"

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
