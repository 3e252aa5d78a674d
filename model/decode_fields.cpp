// The shared field readers (see decode_fields.hpp).
#include "model/decode_fields.hpp"

#include <cmath>

#include "model/quantity.hpp"

namespace schedopt::detail {

void read_owner_references(decode_reader& r, const json_object& meta,
                           std::vector<owner_reference>& out) {
  r.for_each(meta, "ownerReferences", [&](const json_object& o) {
    owner_reference ref;
    r.read(o, "apiVersion", ref.api_version);
    r.read(o, "kind", ref.kind);
    r.read(o, "name", ref.name);
    r.read(o, "uid", ref.uid);
    r.read(o, "controller", ref.controller);
    out.push_back(std::move(ref));
  });
}

void read_object_meta(decode_reader& r, const json_object& root, object_meta& m,
                      finalizers keep) {
  auto meta = r.child(root, "metadata");
  r.read(meta, "name", m.name);
  r.read(meta, "namespace", m.namespace_);
  r.read(meta, "resourceVersion", m.resource_version);
  r.read(meta, "uid", m.uid);
  r.read(meta, "annotations", m.annotations);
  read_owner_references(r, meta, m.owner_references);
  r.read(meta, "generateName", m.generate_name);
  r.read(meta, "generation", m.generation);
  r.read(meta, "creationTimestamp", m.creation_timestamp);
  r.read(meta, "deletionTimestamp", m.deletion_timestamp);
  r.read(meta, "labels", m.labels);
  if (keep == finalizers::read)
    r.read(meta, "finalizers", m.finalizers);
  r.require(m.name, meta, "name");
}

std::optional<simdjson::dom::element> raw_field(const json_object& obj, std::string_view key) {
  if (!obj.present)
    return std::nullopt;
  auto found = obj.value.at_key(key);
  if (found.error())
    return std::nullopt;
  return found.value_unsafe();
}

void read_conditions(decode_reader& r, const json_object& status, std::vector<condition>& out) {
  r.for_each(status, "conditions", [&](const json_object& o) {
    condition c;
    r.read(o, "type", c.type);
    r.read(o, "status", c.status);
    r.read(o, "reason", c.reason);
    r.read(o, "message", c.message);
    r.read(o, "lastTransitionTime", c.last_transition_time);
    out.push_back(std::move(c));
  });
}

void read_quantity(const json_object& obj, std::string_view key, int64_t scale,
                   std::optional<int64_t>& out) {
  auto field = raw_field(obj, key);
  if (!field)
    return;
  simdjson::dom::element e = *field;
  if (e.is_string()) {
    out = parse_quantity(e.get_string().value_unsafe(), scale);
  } else if (e.is_number()) {
    double d = e.get_double().value_unsafe(); // converts integers as well
    if (d >= 0 && d * static_cast<double>(scale) < 9.0e18)
      out = static_cast<int64_t>(std::ceil(d * static_cast<double>(scale) - 1e-9));
  }
}

resource_list read_resources(const json_object& list) {
  resource_list out;
  read_quantity(list, "cpu", 1000, out.cpu_millis);
  read_quantity(list, "memory", 1, out.memory_bytes);
  return out;
}

namespace {

void read_requirements(decode_reader& r, const json_object& term, std::string_view key,
                       std::vector<node_selector_requirement>& out) {
  r.for_each(term, key, [&](const json_object& o) {
    node_selector_requirement req;
    r.read(o, "key", req.key);
    r.read(o, "operator", req.op);
    r.read(o, "values", req.values);
    out.push_back(std::move(req));
  });
}

} // namespace

void read_constraints(decode_reader& r, const json_object& spec, scheduling_constraints& out) {
  r.read(spec, "nodeSelector", out.node_selector);
  auto required = r.child(r.child(r.child(spec, "affinity"), "nodeAffinity"),
                          "requiredDuringSchedulingIgnoredDuringExecution");
  r.for_each(required, "nodeSelectorTerms", [&](const json_object& o) {
    node_selector_term term;
    read_requirements(r, o, "matchExpressions", term.match_expressions);
    read_requirements(r, o, "matchFields", term.match_fields);
    out.required_node_affinity.push_back(std::move(term));
  });
  r.for_each(spec, "tolerations", [&](const json_object& o) {
    toleration t;
    r.read(o, "key", t.key);
    r.read(o, "operator", t.op);
    r.read(o, "value", t.value);
    r.read(o, "effect", t.effect);
    out.tolerations.push_back(std::move(t));
  });
}

} // namespace schedopt::detail
