// Field mapping from Kubernetes/KubeVirt JSON to model objects. Every decoder reads
// only the fields the model keeps; anything else in the document is ignored.
#include "model/decode.hpp"

#include <algorithm>
#include <type_traits>

#include "model/decode_fields.hpp"
#include "model/decode_generic.hpp"
#include "model/decode_reader.hpp"
#include "model/kubevirt_config.hpp"
#include "model/longhorn.hpp"
#include "model/watched_types.hpp"

namespace schedopt {

namespace detail {
// Defined in model/longhorn.cpp.
void read_longhorn_replica(decode_reader& r, const json_object& root, longhorn_replica& out);
// Defined in model/kubevirt_config.cpp.
void read_kubevirt_cr(decode_reader& r, const json_object& root, kubevirt_cr& out);
} // namespace detail

namespace {

using detail::decode_reader;
using detail::json_object;
// The readers the pod kind's decoder shares (model/decode_fields.hpp).
using detail::read_conditions;
using detail::read_constraints;
using detail::read_object_meta;
using detail::read_owner_references;
using detail::read_quantity;
using detail::read_resources;
using detail::read_status_block;
using detail::read_status_head;

// One reader per metadata level: each kind decodes only the fields it keeps, so a PVC's
// labels and CDI annotations are skipped, never copied and then dropped.
template <class Name>
void read_identity(decode_reader& r, const json_object& meta, basic_identity<Name>& m) {
  r.read(meta, "name", m.name);
  r.read(meta, "namespace", m.namespace_);
  r.read(meta, "resourceVersion", m.resource_version);
}

void read_lean(decode_reader& r, const json_object& meta, lean_meta& m) {
  read_identity(r, meta, m);
  r.read(meta, "uid", m.uid);
  string_map annotations; // an empty std::map takes no heap; a sparse_map's edit() would
  r.read(meta, "annotations", annotations);
  m.annotations = std::move(annotations);
}

template <class Name>
void read_meta(decode_reader& r, const json_object& obj, basic_identity<Name>& m) {
  auto meta = r.child(obj, "metadata");
  read_identity(r, meta, m);
  if constexpr (std::is_same_v<Name, pv_name>) // only its emptiness is read: no text written
    r.require(m.name.empty() ? std::string_view() : std::string_view("pv"), meta, "name");
  else
    r.require(m.name, meta, "name");
}

void read_meta(decode_reader& r, const json_object& obj, lean_meta& m) {
  auto meta = r.child(obj, "metadata");
  read_lean(r, meta, m);
  r.require(m.name, meta, "name");
}

void read_meta(decode_reader& r, const json_object& obj, object_meta& m) {
  read_object_meta(r, obj, m, detail::finalizers::read);
}

/// A string field naming an enum (model/wire_enums.hpp); text this build does not name
/// reads as the enum's `unknown`, so the object still decodes.
template <class Enum>
void read_wire(decode_reader& r, const json_object& obj, std::string_view key, Enum& out) {
  std::string text;
  r.read(obj, key, text);
  out = from_wire<Enum>(text);
}

template <class Optional>
void read_migration_state(decode_reader& r, const json_object& status, Optional& out) {
  auto o = r.child(status, "migrationState");
  if (!o.present)
    return;
  migration_state s;
  r.read(o, "migrationUid", s.migration_uid);
  r.read(o, "sourceNode", s.source_node);
  r.read(o, "targetNode", s.target_node);
  r.read(o, "startTimestamp", s.start_timestamp);
  r.read(o, "endTimestamp", s.end_timestamp);
  r.read(o, "completed", s.completed);
  r.read(o, "failed", s.failed);
  r.read(o, "abortRequested", s.abort_requested);
  r.read(o, "abortStatus", s.abort_status);
  r.read(o, "failureReason", s.failure_reason);
  out = std::move(s);
}

/// Whether metadata.labels holds the opt-out label set to "true"; only that one label is
/// read, the others are never copied.
bool read_opt_out(decode_reader& r, const json_object& root) {
  std::string value;
  r.read(r.child(r.child(root, "metadata"), "labels"), opt_out_label, value);
  return value == "true";
}

/// A kind's status block (status.<kind>): the same fields for every kind.
kind_status_block read_kind_block(decode_reader& r, const json_object& block) {
  kind_status_block out;
  read_status_block(r, block, out, from_wire<detail_status>);
  return out;
}

} // namespace

// One reader per watched or listed type, in namespace schedopt (not the unnamed one)
// so that model/decode_generic.hpp's templates find them by argument-dependent lookup
// where they are instantiated, at the end of this file.

void read_into(decode_reader& r, const json_object& root, virtual_machine_instance& vmi) {
  read_meta(r, root, vmi.metadata);
  vmi.opted_out = read_opt_out(r, root);
  std::vector<owner_reference> owners;
  read_owner_references(r, r.child(root, "metadata"), owners);
  for (auto& ref : owners)
    if (ref.controller && ref.kind == "VirtualMachine") {
      vmi.controller_vm.assign(ref.name.data(), ref.name.size());
      break;
    }
  auto spec = r.child(root, "spec");
  scheduling_constraints rules;
  read_constraints(r, spec, rules);
  if (!rules.node_selector.empty() || !rules.required_node_affinity.empty()
      || !rules.tolerations.empty())
    vmi.constraints = std::move(rules);
  vmi.requests = read_resources(r.child(r.child(r.child(spec, "domain"), "resources"), "requests"));
  read_quantity(r.child(r.child(spec, "domain"), "memory"), "guest", 1, vmi.guest_memory_bytes);
  {
    auto cpu = r.child(r.child(spec, "domain"), "cpu");
    int64_t sockets = 1, cores = 1, threads = 1;
    r.read(cpu, "sockets", sockets);
    r.read(cpu, "cores", cores);
    r.read(cpu, "threads", threads);
    r.read(cpu, "model", vmi.cpu_model);
    auto at_least_one = [](int64_t v) { return std::clamp<int64_t>(v, 1, 1024); };
    vmi.vcpus = static_cast<int32_t>(at_least_one(sockets) * at_least_one(cores) * at_least_one(threads));
  }
  r.for_each(spec, "volumes", [&](const json_object& o) {
    vmi_volume v;
    r.read(o, "name", v.name);
    r.read(r.child(o, "persistentVolumeClaim"), "claimName", v.claim_name);
    if (!v.claim_name.empty()) {
      v.source = volume_source::claim;
    } else {
      r.read(r.child(o, "dataVolume"), "name", v.claim_name);
      if (!v.claim_name.empty())
        v.source = volume_source::data_volume;
    }
    vmi.volumes.push_back(std::move(v));
  });
  auto status = r.child(root, "status");
  r.read(status, "phase", vmi.phase);
  r.read(status, "nodeName", vmi.node_name);
  r.read(status, "evacuationNodeName", vmi.evacuation_node_name);
  read_conditions(r, status, vmi.conditions);
  read_migration_state(r, status, vmi.migration);
}

void read_into(decode_reader& r, const json_object& root,
               virtual_machine_instance_migration& m) {
  read_meta(r, root, m.metadata);
  auto spec = r.child(root, "spec");
  r.read(spec, "vmiName", m.vmi_name);
  r.read(spec, "addedNodeSelector", m.added_node_selector);
  auto status = r.child(root, "status");
  r.read(status, "phase", m.phase);
  r.for_each(status, "phaseTransitionTimestamps", [&](const json_object& o) {
    phase_transition t;
    r.read(o, "phase", t.phase);
    r.read(o, "phaseTransitionTimestamp", t.timestamp);
    m.phase_transition_timestamps.push_back(std::move(t));
  });
  read_migration_state(r, status, m.migration);
  read_conditions(r, status, m.conditions);
}

void read_into(decode_reader& r, const json_object& root, virtual_machine& vm) {
  read_meta(r, root, vm.metadata);
  vm.opted_out = read_opt_out(r, root);
}

void read_into(decode_reader& r, const json_object& root, kube_namespace& ns) {
  read_meta(r, root, ns.metadata);
  ns.opted_out = read_opt_out(r, root);
}

void read_into(decode_reader& r, const json_object& root, persistent_volume_claim& pvc) {
  read_meta(r, root, pvc.metadata);
  auto spec = r.child(root, "spec");
  r.read(spec, "volumeName", pvc.volume_name);
}

void read_into(decode_reader& r, const json_object& root, persistent_volume& pv) {
  read_meta(r, root, pv.metadata);
  auto spec = r.child(root, "spec");
  auto csi = r.child(spec, "csi");
  r.read(csi, "driver", pv.csi_driver);
  r.read(csi, "volumeHandle", pv.volume_handle);
  auto required = r.child(r.child(spec, "nodeAffinity"), "required");
  r.for_each(required, "nodeSelectorTerms", [&](const json_object& term) {
    r.for_each(term, "matchExpressions", [&](const json_object& expr) {
      std::string key, op;
      std::vector<std::string> values;
      r.read(expr, "key", key);
      r.read(expr, "operator", op);
      r.read(expr, "values", values);
      if (key != "kubernetes.io/hostname" || op != "In")
        return;
      if (!values.empty() && !pv.affinity_hostnames)
        pv.affinity_hostnames = std::vector<std::string>();
      for (auto& v : values)
        if (std::find(pv.affinity_hostnames->begin(), pv.affinity_hostnames->end(), v)
            == pv.affinity_hostnames->end())
          pv.affinity_hostnames->push_back(std::move(v));
    });
  });
}

void read_into(decode_reader& r, const json_object& root, node& n) {
  read_meta(r, root, n.metadata);
  auto spec = r.child(root, "spec");
  r.read(spec, "unschedulable", n.unschedulable);
  r.for_each(spec, "taints", [&](const json_object& o) {
    taint t;
    r.read(o, "key", t.key);
    r.read(o, "value", t.value);
    r.read(o, "effect", t.effect);
    n.taints.push_back(std::move(t));
  });
  auto status = r.child(root, "status");
  n.allocatable = read_resources(r.child(status, "allocatable"));
  std::vector<condition> conditions;
  read_conditions(r, status, conditions);
  for (const auto& c : conditions)
    if (c.type == "Ready")
      n.ready = c.status == "True";
  r.for_each(status, "addresses", [&](const json_object& o) {
    node_address a;
    r.read(o, "type", a.type);
    r.read(o, "address", a.address);
    n.addresses.push_back(std::move(a));
  });
}

void read_into(decode_reader& r, const json_object& root, lease& l) {
  read_meta(r, root, l.metadata);
  auto spec = r.child(root, "spec");
  r.read(spec, "holderIdentity", l.holder_identity);
  r.read(spec, "leaseDurationSeconds", l.lease_duration_seconds);
  r.read(spec, "acquireTime", l.acquire_time);
  r.read(spec, "renewTime", l.renew_time);
  r.read(spec, "leaseTransitions", l.lease_transitions);
}

void read_into(decode_reader& r, const json_object& root, event& e) {
  read_meta(r, root, e.metadata);
  auto involved = r.child(root, "involvedObject");
  r.read(involved, "apiVersion", e.involved_object.api_version);
  r.read(involved, "kind", e.involved_object.kind);
  r.read(involved, "name", e.involved_object.name);
  r.read(involved, "namespace", e.involved_object.namespace_);
  r.read(involved, "uid", e.involved_object.uid);
  r.read(involved, "resourceVersion", e.involved_object.resource_version);
  r.read(root, "type", e.type);
  r.read(root, "reason", e.reason);
  r.read(root, "message", e.message);
  r.read(root, "count", e.count);
  r.read(root, "firstTimestamp", e.first_timestamp);
  r.read(root, "lastTimestamp", e.last_timestamp);
  r.read(r.child(root, "source"), "component", e.source_component);
  r.read(root, "reportingComponent", e.reporting_component);
}

// metav1.Status carries no name: it is not an object in the store.
void read_into(decode_reader& r, const json_object& root, api_status& s) {
  read_status_head(r, root, s);
  auto details = r.child(root, "details");
  r.read(details, "name", s.details_name);
  r.read(details, "group", s.details_group);
  r.read(details, "kind", s.details_kind);
  r.read(details, "retryAfterSeconds", s.retry_after_seconds);
}

void detail::read_api_status(decode_reader& r, const json_object& root, api_status& s) {
  read_into(r, root, s);
}

void read_into(decode_reader& r, const json_object& root, scheduling_optimization& so) {
  read_meta(r, root, so.metadata);
  bool meta_ok = r.ok();
  // Every spec field is a kind's fragment: its `enabled` is read here, the rest by the
  // kind (model/kinds/<kind>/), which words its own errors the same way.
  r.for_each_object_member(r.child(root, "spec"), true,
                           [&](std::string_view name, const json_object& fragment) {
                             kind_spec k;
                             r.read(fragment, "enabled", k.enabled);
                             k.json = decode_reader::minified(fragment);
                             so.spec.kinds.emplace(std::string{name}, std::move(k));
                           });
  if (meta_ok && !r.ok()) {
    // The user's spec is wrong, not the object: keep it, to fail the request with it.
    // Relative to the object: a list item's path starts "items[5].", a watch event's "object.".
    auto message = r.failure().message;
    if (!root.path.empty() && message.rfind(root.path + ".", 0) == 0)
      message.erase(0, root.path.size() + 1);
    so.spec.invalid = std::move(message);
    so.spec.kinds.clear();
    r.clear_failure();
  }
  auto status = r.child(root, "status");
  auto& st = so.status;
  read_wire(r, status, "stage", st.stage);
  read_wire(r, status, "status", st.status);
  r.read(status, "reason", st.reason);
  r.read(status, "startTimestamp", st.start_timestamp);
  r.read(status, "finishTimestamp", st.finish_timestamp);
  r.read(status, "lastUpdateTimestamp", st.last_update_timestamp);
  r.read(status, "observedGeneration", st.observed_generation);
  // Every object in the status is a kind's block (its other fields are scalars).
  r.for_each_object_member(status, false, [&](std::string_view name, const json_object& block) {
    st.kinds.emplace(std::string{name}, read_kind_block(r, block));
  });
}

void read_into(decode_reader& r, const json_object& root, longhorn_replica& replica) {
  read_meta(r, root, replica.metadata);
  detail::read_longhorn_replica(r, root, replica);
}

void read_into(decode_reader& r, const json_object& root, kubevirt_cr& cr) {
  read_meta(r, root, cr.metadata);
  detail::read_kubevirt_cr(r, root, cr);
}

// Each field on its own: one of the wrong type must not hide the others.
void detail::read_identity(decode_reader& r, const json_object& obj, undecodable_object& out) {
  r.clear_failure();
  auto meta = r.child(obj, "metadata");
  if (!r.ok()) {
    r.clear_failure();
    return;
  }
  for (auto [key, field] : {std::pair{"namespace", &out.namespace_}, std::pair{"name", &out.name},
                            std::pair{"resourceVersion", &out.resource_version}}) {
    r.read(meta, key, *field);
    if (!r.ok())
      field->clear();
    r.clear_failure();
  }
}

undecodable_object identify_watch_event(std::string_view json, error why) {
  undecodable_object out;
  out.why = std::move(why);
  decode_reader r;
  auto root = r.parse_root(json);
  if (!r.ok())
    return out;
  r.read(root, "type", out.type);
  r.clear_failure();
  detail::read_identity(r, r.child(root, "object"), out);
  return out;
}

} // namespace schedopt

// The core's types; each kind instantiates its own (model/kinds/<kind>/).
SCHEDOPT_FOR_EACH_WATCHED_TYPE(SCHEDOPT_INSTANTIATE_DECODERS)
// Read by a list or a get, never watched.
SCHEDOPT_INSTANTIATE_DECODERS(schedopt::kube_namespace)
SCHEDOPT_INSTANTIATE_DECODERS(schedopt::lease)
SCHEDOPT_INSTANTIATE_DECODERS(schedopt::event)
SCHEDOPT_INSTANTIATE_DECODERS(schedopt::api_status)

namespace schedopt {

expected<virtual_machine_instance> decode_vmi(std::string_view json) {
  return decode<virtual_machine_instance>(json);
}
expected<virtual_machine_instance_migration> decode_vmim(std::string_view json) {
  return decode<virtual_machine_instance_migration>(json);
}
expected<persistent_volume_claim> decode_pvc(std::string_view json) {
  return decode<persistent_volume_claim>(json);
}
expected<persistent_volume> decode_pv(std::string_view json) {
  return decode<persistent_volume>(json);
}
expected<node> decode_node(std::string_view json) { return decode<node>(json); }
expected<lease> decode_lease(std::string_view json) { return decode<lease>(json); }
expected<event> decode_event(std::string_view json) { return decode<event>(json); }
expected<api_status> decode_status(std::string_view json) { return decode<api_status>(json); }
expected<scheduling_optimization> decode_scheduling_optimization(std::string_view json) {
  return decode<scheduling_optimization>(json);
}

} // namespace schedopt
