// Readers for the Kubernetes fields more than one kind's decoder keeps — metadata,
// owner references, conditions, resource quantities, scheduling constraints, a
// metav1.Status's head, a request status block — so every decoder reads them alike
// and words their errors alike. Internal to the decoders (model/decode.cpp,
// model/kinds/*/).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/decode_reader.hpp"
#include "model/error.hpp"
#include "model/objects.hpp"

namespace schedopt::detail {

/// Parses `json` and reads it with `read(r, root, out)`: the value read, or the first
/// error (malformed JSON, a field of the wrong type).
template <class T, class Read>
expected<T> decode_document(std::string_view json, Read&& read) {
  decode_reader r;
  auto root = r.parse_root(json);
  T out;
  read(r, root, out);
  if (!r.ok())
    return r.failure();
  return out;
}

/// metadata.ownerReferences (metav1.OwnerReference), appended to `out`.
void read_owner_references(decode_reader& r, const json_object& meta,
                           std::vector<owner_reference>& out);

/// Whether an object_meta keeps metadata.finalizers: the VM side's objects do, the pod
/// kind's objects never read them.
enum class finalizers { read, skip };

/// `root`'s metadata into an object_meta; the name is required.
void read_object_meta(decode_reader& r, const json_object& root, object_meta& m,
                      finalizers keep);

/// The field's value whatever its type (null too); nullopt when `obj` is absent or has
/// no `key`. For the fields whose type varies: quantities, IntOrString.
std::optional<simdjson::dom::element> raw_field(const json_object& obj, std::string_view key);

/// status.conditions, appended to `out`.
void read_conditions(decode_reader& r, const json_object& status, std::vector<condition>& out);

/// A quantity is a string ("4Gi", "500m") or, as YAML sends it, a bare number, read as
/// units of 1/`scale` (1000: millicores). Text that is no quantity reads as absent: the
/// API server would not have stored it.
void read_quantity(const json_object& obj, std::string_view key, int64_t scale,
                   std::optional<int64_t>& out);

/// A core/v1 ResourceList's cpu (millicores) and memory (bytes).
resource_list read_resources(const json_object& list);

/// spec.nodeSelector, spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuring-
/// Execution and spec.tolerations: the PodSpec fields a VMI's spec repeats.
void read_constraints(decode_reader& r, const json_object& spec, scheduling_constraints& out);

/// The fields a metav1.Status starts with: status, message, reason, code.
template <class Status>
void read_status_head(decode_reader& r, const json_object& root, Status& s) {
  r.read(root, "status", s.status);
  r.read(root, "message", s.message);
  r.read(root, "reason", s.reason);
  r.read(root, "code", s.code);
}

/// A kind's block of a request's status (status.<kind>): the counters and the details,
/// each detail's status text turned into the kind's enum by `status_of(text)`.
template <class Block, class StatusOf>
void read_status_block(decode_reader& r, const json_object& block, Block& out,
                       StatusOf&& status_of) {
  r.read(block, "successful", out.successful);
  r.read(block, "skipped", out.skipped);
  r.read(block, "failed", out.failed);
  r.for_each(block, "details", [&](const json_object& o) {
    typename decltype(out.details)::value_type d;
    std::string status;
    r.read(o, "name", d.name);
    r.read(o, "namespace", d.namespace_);
    r.read(o, "status", status);
    r.read(o, "reason", d.reason);
    d.status = status_of(status);
    out.details.push_back(std::move(d));
  });
}

} // namespace schedopt::detail
