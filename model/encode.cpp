// model objects -> JSON with nlohmann::json. Empty optional fields are omitted, as the
// Go types' `omitempty` tags do, so bodies look like what kubectl would send.
#include "model/encode.hpp"

#include <type_traits>

#include <nlohmann/json.hpp>

namespace schedopt {

using nlohmann::json;

namespace {

void put(json& j, const char* key, const std::string& value) {
  if (!value.empty())
    j[key] = value;
}

void put(json& j, const char* key, const string_map& value) {
  if (!value.empty())
    j[key] = value;
}

void put_nonzero(json& j, const char* key, int64_t value) {
  if (value != 0)
    j[key] = value;
}

template <class Meta>
json object(const char* api_version, const char* kind, const Meta& meta) {
  return json{{"apiVersion", api_version}, {"kind", kind}, {"metadata", to_json(meta)}};
}

json conditions_json(const std::vector<condition>& conditions) {
  json out = json::array();
  for (const auto& c : conditions)
    out.push_back(to_json(c));
  return out;
}

} // namespace

template <class Name>
json to_json(const basic_identity<Name>& meta) {
  json j = json::object();
  if constexpr (std::is_same_v<Name, pv_name>)
    put(j, "name", meta.name.str());
  else
    put(j, "name", std::string(std::string_view(meta.name)));
  put(j, "namespace", meta.namespace_);
  put(j, "resourceVersion", meta.resource_version);
  return j;
}
template json to_json(const basic_identity<std::string>&);
template json to_json(const basic_identity<short_name>&);
template json to_json(const basic_identity<pv_name>&);

namespace {

template <class Uid, class Annotations>
json lean_json(const basic_meta<Uid, Annotations>& meta) {
  json j = to_json(static_cast<const object_identity&>(meta));
  put(j, "uid", std::string(meta.uid));
  put(j, "annotations", static_cast<const string_map&>(meta.annotations));
  return j;
}

} // namespace

json to_json(const lean_meta& meta) { return lean_json(meta); }

void put_owner_references(json& meta, const std::vector<owner_reference>& owners) {
  if (owners.empty())
    return;
  json refs = json::array();
  for (const auto& r : owners) {
    json ref{{"apiVersion", r.api_version}, {"kind", r.kind}, {"name", r.name}, {"uid", r.uid}};
    if (r.controller)
      ref["controller"] = true;
    refs.push_back(std::move(ref));
  }
  meta["ownerReferences"] = std::move(refs);
}

json to_json(const object_meta& meta) {
  json j = lean_json(meta);
  put_owner_references(j, meta.owner_references);
  put(j, "generateName", meta.generate_name);
  put_nonzero(j, "generation", meta.generation);
  put(j, "creationTimestamp", meta.creation_timestamp);
  if (meta.deletion_timestamp)
    j["deletionTimestamp"] = *meta.deletion_timestamp;
  put(j, "labels", meta.labels);
  if (!meta.finalizers.empty())
    j["finalizers"] = meta.finalizers;
  return j;
}

json to_json(const condition& c) {
  json j{{"type", c.type}, {"status", c.status}};
  put(j, "reason", c.reason);
  put(j, "message", c.message);
  put(j, "lastTransitionTime", c.last_transition_time);
  return j;
}

json to_json(const migration_state& s) {
  json j = json::object();
  put(j, "migrationUid", s.migration_uid);
  put(j, "sourceNode", s.source_node);
  put(j, "targetNode", s.target_node);
  put(j, "startTimestamp", s.start_timestamp);
  put(j, "endTimestamp", s.end_timestamp);
  if (s.completed)
    j["completed"] = true;
  if (s.failed)
    j["failed"] = true;
  if (s.abort_requested)
    j["abortRequested"] = true;
  put(j, "abortStatus", s.abort_status);
  put(j, "failureReason", s.failure_reason);
  return j;
}

json to_json(const kind_detail& detail) {
  json j{{"name", detail.name},
         {"namespace", detail.namespace_},
         {"status", to_wire(detail.status)}};
  put(j, "reason", detail.reason);
  return j;
}

json to_json(const scheduling_optimization_status& status) {
  json j{{"stage", to_wire(status.stage)}, {"status", to_wire(status.status)}};
  put(j, "reason", status.reason);
  put(j, "startTimestamp", status.start_timestamp);
  put(j, "finishTimestamp", status.finish_timestamp);
  put(j, "lastUpdateTimestamp", status.last_update_timestamp);
  j["observedGeneration"] = status.observed_generation;
  for (const auto& [kind, block] : status.kinds) {
    json details = json::array(); // always an array: clients index it without a null check
    for (const auto& d : block.details)
      details.push_back(to_json(d));
    j[kind] = json{{"successful", block.successful},
                   {"skipped", block.skipped},
                   {"failed", block.failed},
                   {"details", std::move(details)}};
  }
  return j;
}

json to_json(const lease& l) {
  json j = object("coordination.k8s.io/v1", "Lease", l.metadata);
  json spec = json::object();
  put(spec, "holderIdentity", l.holder_identity);
  put_nonzero(spec, "leaseDurationSeconds", l.lease_duration_seconds);
  put(spec, "acquireTime", l.acquire_time);
  put(spec, "renewTime", l.renew_time);
  spec["leaseTransitions"] = l.lease_transitions;
  j["spec"] = std::move(spec);
  return j;
}

json to_json(const event& e) {
  json j = object("v1", "Event", e.metadata);
  json involved = json::object();
  put(involved, "apiVersion", e.involved_object.api_version);
  put(involved, "kind", e.involved_object.kind);
  put(involved, "name", e.involved_object.name);
  put(involved, "namespace", e.involved_object.namespace_);
  put(involved, "uid", e.involved_object.uid);
  put(involved, "resourceVersion", e.involved_object.resource_version);
  j["involvedObject"] = std::move(involved);
  put(j, "type", e.type);
  put(j, "reason", e.reason);
  put(j, "message", e.message);
  j["count"] = e.count;
  put(j, "firstTimestamp", e.first_timestamp);
  put(j, "lastTimestamp", e.last_timestamp);
  if (!e.source_component.empty())
    j["source"] = json{{"component", e.source_component}};
  put(j, "reportingComponent", e.reporting_component);
  return j;
}

json to_json(const virtual_machine_instance_migration& m) {
  json j = object("kubevirt.io/v1", "VirtualMachineInstanceMigration", m.metadata);
  json spec{{"vmiName", m.vmi_name}};
  put(spec, "addedNodeSelector", m.added_node_selector);
  j["spec"] = std::move(spec);
  return j;
}

json to_json_with_status(const virtual_machine_instance_migration& m) {
  json j = to_json(m);
  json status = json::object();
  put(status, "phase", m.phase);
  if (!m.phase_transition_timestamps.empty()) {
    json transitions = json::array();
    for (const auto& t : m.phase_transition_timestamps)
      transitions.push_back(json{{"phase", t.phase}, {"phaseTransitionTimestamp", t.timestamp}});
    status["phaseTransitionTimestamps"] = std::move(transitions);
  }
  if (m.migration)
    status["migrationState"] = to_json(*m.migration);
  if (!m.conditions.empty())
    status["conditions"] = conditions_json(m.conditions);
  j["status"] = std::move(status);
  return j;
}

json to_json(const virtual_machine_instance& vmi) {
  json j = object("kubevirt.io/v1", "VirtualMachineInstance", vmi.metadata);
  if (!vmi.controller_vm.empty())
    j["metadata"]["ownerReferences"] = json::array(
      {{{"apiVersion", "kubevirt.io/v1"}, {"kind", "VirtualMachine"}, {"name", std::string(std::string_view(vmi.controller_vm))},
        {"controller", true}}});
  json volumes = json::array();
  for (const auto& v : vmi.volumes) {
    json volume{{"name", v.name}};
    if (v.source == volume_source::claim)
      volume["persistentVolumeClaim"] = json{{"claimName", v.claim_name}};
    if (v.source == volume_source::data_volume)
      volume["dataVolume"] = json{{"name", v.claim_name}};
    volumes.push_back(std::move(volume));
  }
  j["spec"] = json{{"volumes", std::move(volumes)}};
  json status = json::object();
  put(status, "phase", vmi.phase);
  put(status, "nodeName", vmi.node_name);
  if (!vmi.conditions.empty())
    status["conditions"] = conditions_json(vmi.conditions);
  if (vmi.migration)
    status["migrationState"] = to_json(*vmi.migration);
  j["status"] = std::move(status);
  return j;
}

json to_json(const persistent_volume_claim& pvc) {
  json j = object("v1", "PersistentVolumeClaim", pvc.metadata);
  json spec = json::object();
  put(spec, "volumeName", pvc.volume_name.str());
  j["spec"] = std::move(spec);
  return j;
}

json to_json(const persistent_volume& pv) {
  json j = object("v1", "PersistentVolume", pv.metadata);
  json spec = json::object();
  if (!pv.csi_driver.empty() || !pv.volume_handle.empty())
    spec["csi"] = json{{"driver", pv.csi_driver}, {"volumeHandle", pv.volume_handle.str()}};
  if (const auto& hostnames = affinity_hostnames_of(pv); !hostnames.empty()) {
    json expr{{"key", "kubernetes.io/hostname"}, {"operator", "In"}, {"values", hostnames}};
    spec["nodeAffinity"] =
      json{{"required", {{"nodeSelectorTerms", json::array({{{"matchExpressions", {expr}}}})}}}};
  }
  j["spec"] = std::move(spec);
  return j;
}

json to_json(const node& n) {
  json j = object("v1", "Node", n.metadata);
  json spec = json::object();
  if (n.unschedulable)
    spec["unschedulable"] = true;
  j["spec"] = std::move(spec);
  json addresses = json::array();
  for (const auto& a : n.addresses)
    addresses.push_back(json{{"type", a.type}, {"address", a.address}});
  json ready{{"type", "Ready"}, {"status", n.ready ? "True" : "False"}};
  j["status"] = json{{"conditions", json::array({ready})}, {"addresses", std::move(addresses)}};
  return j;
}

json to_json(const api_status& s) {
  json j{{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", json::object()}};
  put(j, "status", s.status);
  put(j, "message", s.message);
  put(j, "reason", s.reason);
  json details = json::object();
  put(details, "name", s.details_name);
  put(details, "group", s.details_group);
  put(details, "kind", s.details_kind);
  put_nonzero(details, "retryAfterSeconds", s.retry_after_seconds);
  if (!details.empty())
    j["details"] = std::move(details);
  j["code"] = s.code;
  return j;
}

json to_json(const scheduling_optimization_spec& spec) {
  json j = json::object();
  for (const auto& [kind, fragment] : spec.kinds) {
    auto v = json::parse(fragment.json, nullptr, false);
    if (!v.is_object())
      v = json::object();
    v["enabled"] = fragment.enabled;
    j[kind] = std::move(v);
  }
  return j;
}

json to_json(const scheduling_optimization& so) {
  json j = object("stork.libopenstorage.org/v1alpha1", "SchedulingOptimization", so.metadata);
  j["spec"] = to_json(so.spec);
  // A new request has no status yet; writing an empty one would read as "seen".
  if (so.status.stage != request_stage::none || so.status.status != request_status::none
      || !so.status.kinds.empty())
    j["status"] = to_json(so.status);
  return j;
}

std::string status_json_patch(const scheduling_optimization_status& status, std::string_view uid) {
  auto ops = json::array();
  if (!uid.empty())
    ops.push_back({{"op", "test"}, {"path", "/metadata/uid"}, {"value", std::string{uid}}});
  ops.push_back({{"op", "add"}, {"path", "/status"}, {"value", to_json(status)}});
  // replace, not throw, should a string ever hold invalid UTF-8: a status write must not crash.
  return ops.dump(-1, ' ', false, json::error_handler_t::replace);
}

} // namespace schedopt
