#include "model/name_list.hpp"

namespace schedopt {

std::string first_names(const std::vector<std::string>& names, std::size_t shown) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < shown; ++i)
    out += (i ? ", " : "") + names[i];
  if (names.size() > shown)
    out += out.empty() ? "..." : ", ...";
  return out;
}

} // namespace schedopt
