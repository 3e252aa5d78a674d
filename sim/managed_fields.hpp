// metadata.managedFields: which manager wrote which fields, recorded on every create,
// update and patch as kube-apiserver's field manager records them, and server-side
// apply's merge, prune and conflicts on top of that record.
//
// Follows kubernetes v1.37.2 staging/src/k8s.io/apimachinery/pkg/util/managedfields/
// internal (fieldmanager.go, buildmanagerinfo.go, stripmeta.go, managedfields.go,
// conflict.go) and sigs.k8s.io/structured-merge-diff v6 merge/update.go (Updater.Update,
// Updater.Apply). Lists are atomic here (see sim/field_sets.hpp), so two appliers of
// different items of one list conflict where upstream's merge keys would let them share it.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "model/error.hpp"

namespace schedopt::sim {

/// Who writes, through which endpoint.
struct field_writer {
  std::string manager;     // see manager_of
  std::string api_version; // "v1", "stork.libopenstorage.org/v1alpha1"
  std::string subresource; // "" or "status"
  /// The type has a /status subresource: the main resource's writes leave status
  /// alone and /status writes leave everything else (the strategies' reset fields).
  bool status_subresource = false;
};

/// The manager a request is recorded under: its fieldManager, else its User-Agent up to
/// the first "/" (non-printable characters dropped, at most 128 bytes), else "unknown".
/// Follows apiserver pkg/endpoints/handlers/create.go managerOrUserAgent and
/// managedfields/internal/buildmanagerinfo.go.
std::string manager_of(const std::string& field_manager, const std::string& user_agent);

/// Records an Update by `writer` in `updated` (the object about to be stored; `live` is
/// the stored one, {} on create): the writer takes the fields it added or changed, from
/// whoever owned them, and every manager loses the fields it removed. A client's own
/// non-empty managedFields on the main resource replace the record, as upstream allows.
void record_update(nlohmann::json& updated, const nlohmann::json& live, const field_writer& writer);

/// Server-side apply of `config` to `live` ({} when the object is new): the merged object
/// with its managedFields, the fields the writer applied last time and no longer applies
/// (and nobody else owns) removed. A 409 Conflict (FieldManagerConflict causes, upstream's
/// words) when a field another manager owns would change and `force` is false.
expected<nlohmann::json> apply_configuration(const nlohmann::json& live, const nlohmann::json& config,
                                             const field_writer& writer, bool force);

} // namespace schedopt::sim
