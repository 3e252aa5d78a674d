// Test helper: the structural schema of one kind from a directory of CRD manifests, as
// the simulator loads them (optionally shaped first, e.g. per KubeVirt release).
#pragma once

#include <functional>
#include <string>

#include <boost/test/unit_test.hpp>

#include "sim/crd_loader.hpp"
#include "sim/structural_schema.hpp"

namespace schedopt::sim::testing {

inline crd_schema crd_schema_of_kind(const std::string& dir, const std::string& kind,
                                     const std::function<void(nlohmann::json&)>& shape = {}) {
  auto crds = load_crd_dir(dir, shape);
  BOOST_REQUIRE_MESSAGE(crds, "cannot load CRDs from " << dir);
  for (auto& crd : *crds)
    if (crd.resource.type.kind == kind && crd.resource.schema)
      return *crd.resource.schema;
  BOOST_FAIL("no " << kind << " schema in " << dir);
  return crd_schema{};
}

} // namespace schedopt::sim::testing
