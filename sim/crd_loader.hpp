// Reads CustomResourceDefinition manifests (sim/crds/*.yaml) into served resources.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/error.hpp"
#include "sim/discovery.hpp"

namespace schedopt::sim {

struct loaded_crd {
  served_resource resource;
  nlohmann::json manifest; // the CRD object itself, served under apiextensions.k8s.io
};

/// One CRD object (apiextensions.k8s.io/v1) to a served resource; the storage version
/// (else the first served one) decides status subresource and printer columns.
expected<loaded_crd> crd_from_json(const nlohmann::json& crd);

/// Every CustomResourceDefinition in *.yaml / *.yml / *.json files of `dir` (sorted by
/// file name; other kinds in those files are ignored). A missing dir is an empty result.
/// `shape`, when set, edits each CRD before it is read (the release being answered as).
expected<std::vector<loaded_crd>> load_crd_dir(
  const std::string& dir, const std::function<void(nlohmann::json&)>& shape = {});

/// The store's write validator for CRD objects: a v1 CRD names a schema for every
/// version, or the write is refused as kube-apiserver refuses it (422).
std::optional<error> validate_crd_schemas(nlohmann::json& crd, const nlohmann::json* old, bool status_only);

} // namespace schedopt::sim
