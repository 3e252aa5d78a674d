// The media ranges of an Accept or Content-Type header, as apiserver's negotiation
// (pkg/endpoints/handlers/negotiation) reads them: comma-separated, each a type and its
// ;-separated parameters, in the client's order.
#pragma once

#include <string>
#include <vector>

namespace schedopt::sim {

struct media_range {
  std::string type;                // "application/json"
  std::vector<std::string> params; // "as=Table", "g=meta.k8s.io", ...
};

std::vector<media_range> media_ranges(const std::string& header);

} // namespace schedopt::sim
