#include "sim/media_ranges.hpp"

#include <sstream>

namespace schedopt::sim {

namespace {

std::string trimmed(const std::string& s) {
  auto first = s.find_first_not_of(" \t");
  auto last = s.find_last_not_of(" \t");
  return first == std::string::npos ? std::string{} : s.substr(first, last - first + 1);
}

} // namespace

std::vector<media_range> media_ranges(const std::string& header) {
  std::vector<media_range> out;
  std::stringstream ranges(header);
  std::string range;
  while (std::getline(ranges, range, ',')) {
    std::stringstream parts(range);
    std::string part;
    media_range r;
    bool first = true;
    while (std::getline(parts, part, ';')) {
      if (first)
        r.type = trimmed(part);
      else
        r.params.push_back(trimmed(part));
      first = false;
    }
    if (!r.type.empty())
      out.push_back(std::move(r));
  }
  return out;
}

} // namespace schedopt::sim
