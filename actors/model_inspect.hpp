// inspect() for the model structs so they can travel in CAF messages; model/ itself
// stays free of CAF. std::optional members go through optional_field (CAF 0.17 has
// no std::optional support).
#pragma once

#include <optional>
#include <utility>

#include <caf/error.hpp>
#include <caf/meta/load_callback.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/none.hpp>

#include "model/objects.hpp"
#include "model/outcome.hpp"
#include "model/placement/replica_table.hpp"

namespace schedopt {

/// Serializes an optional (std::optional<T>, or the boxed_optional<T> of a stored VMI's
/// migrationState) as (bool, T).
template <class Optional, class T>
struct optional_field {
  Optional& ref;
};

template <class Inspector, class Optional, class T>
typename Inspector::result_type inspect(Inspector& f, optional_field<Optional, T>& x) {
  bool has = x.ref.has_value();
  T value = has ? *x.ref : T{};
  return f(has, value, caf::meta::load_callback([&]() -> caf::error {
             if (has)
               x.ref = std::move(value);
             else
               x.ref.reset();
             return caf::none;
           }));
}

/// A shared_string or an object_uid travels as its text and is made again where it
/// arrives.
template <class Inspector, class Text>
typename Inspector::result_type inspect_as_text(Inspector& f, Text& x) {
  std::string value = x.str();
  return f(value, caf::meta::load_callback([&]() -> caf::error {
             x = Text(value);
             return caf::none;
           }));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, shared_string& x) {
  return inspect_as_text(f, x);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, object_uid& x) {
  return inspect_as_text(f, x);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, pv_name& x) {
  return inspect_as_text(f, x);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, decimal_text& x) {
  return inspect_as_text(f, x);
}

/// A short_name travels as the text it holds. CAF looks inspect() up by argument, and
/// finds none for a Boost type, so its fields go through this wrapper.
struct short_name_text {
  short_name& ref;
};

inline short_name_text as_text(short_name& x) {
  return {x};
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, short_name_text& x) {
  std::string value(std::string_view{x.ref});
  return f(value, caf::meta::load_callback([&]() -> caf::error {
             x.ref.assign(value.data(), value.size());
             return caf::none;
           }));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, replica_table& x) {
  return f(x.sets_, x.set_of_);
}

/// A sparse_map travels as the map it reads as.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, sparse_map& x) {
  string_map value = x.map();
  return f(value, caf::meta::load_callback([&]() -> caf::error {
             x = std::move(value);
             return caf::none;
           }));
}

template <class T>
optional_field<std::optional<T>, T> opt(std::optional<T>& x) {
  return {x};
}

template <class T>
optional_field<boxed_optional<T>, T> opt(boxed_optional<T>& x) {
  return {x};
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, owner_reference& x) {
  return f(caf::meta::type_name("owner_reference"), x.api_version, x.kind, x.name, x.uid,
           x.controller);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, object_identity& x) {
  return f(caf::meta::type_name("object_identity"), x.name, x.namespace_, x.resource_version);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, basic_identity<pv_name>& x) {
  return f(caf::meta::type_name("object_identity"), x.name, x.namespace_, x.resource_version);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, basic_identity<short_name>& x) {
  auto name = as_text(x.name);
  return f(caf::meta::type_name("object_identity"), name, x.namespace_, x.resource_version);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, lean_meta& x) {
  return f(caf::meta::type_name("lean_meta"), x.name, x.namespace_, x.uid, x.resource_version,
           x.annotations);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, object_meta& x) {
  auto deletion = opt(x.deletion_timestamp);
  return f(caf::meta::type_name("object_meta"), x.name, x.namespace_, x.uid, x.resource_version,
           x.generate_name, x.generation, x.creation_timestamp, deletion, x.labels, x.annotations,
           x.finalizers, x.owner_references);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, condition& x) {
  return f(caf::meta::type_name("condition"), x.type, x.status, x.reason, x.message,
           x.last_transition_time);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, vmi_volume& x) {
  auto claim = as_text(x.claim_name);
  return f(caf::meta::type_name("vmi_volume"), x.name, claim, x.source);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, migration_state& x) {
  return f(caf::meta::type_name("migration_state"), x.migration_uid, x.source_node,
           x.target_node, x.start_timestamp, x.end_timestamp, x.completed, x.failed,
           x.abort_requested, x.abort_status, x.failure_reason);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, virtual_machine_instance& x) {
  auto migration = opt(x.migration);
  auto controller_vm = as_text(x.controller_vm);
  return f(caf::meta::type_name("virtual_machine_instance"), x.metadata, controller_vm,
           x.volumes, x.phase, x.node_name, x.conditions, migration, x.opted_out);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, phase_transition& x) {
  return f(caf::meta::type_name("phase_transition"), x.phase, x.timestamp);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, virtual_machine& x) {
  return f(caf::meta::type_name("virtual_machine"), x.metadata, x.opted_out);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, virtual_machine_instance_migration& x) {
  auto migration = opt(x.migration);
  return f(caf::meta::type_name("virtual_machine_instance_migration"), x.metadata, x.vmi_name,
           x.added_node_selector, x.phase, x.phase_transition_timestamps, migration,
           x.conditions);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, persistent_volume_claim& x) {
  return f(caf::meta::type_name("persistent_volume_claim"), x.metadata, x.volume_name);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, persistent_volume& x) {
  auto hostnames = opt(x.affinity_hostnames);
  return f(caf::meta::type_name("persistent_volume"), x.metadata, x.csi_driver, x.volume_handle,
           hostnames);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_address& x) {
  return f(caf::meta::type_name("node_address"), x.type, x.address);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node& x) {
  return f(caf::meta::type_name("node"), x.metadata, x.ready, x.unschedulable, x.addresses);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, lease& x) {
  return f(caf::meta::type_name("lease"), x.metadata, x.holder_identity,
           x.lease_duration_seconds, x.acquire_time, x.renew_time, x.lease_transitions);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, object_reference& x) {
  return f(caf::meta::type_name("object_reference"), x.api_version, x.kind, x.name,
           x.namespace_, x.uid, x.resource_version);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, kind_spec& x) {
  return f(caf::meta::type_name("kind_spec"), x.enabled, x.json);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, scheduling_optimization_spec& x) {
  auto invalid = opt(x.invalid);
  return f(caf::meta::type_name("scheduling_optimization_spec"), x.kinds, invalid);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, kind_detail& x) {
  return f(caf::meta::type_name("kind_detail"), x.name, x.namespace_, x.status, x.reason);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, kind_status_block& x) {
  return f(caf::meta::type_name("kind_status_block"), x.successful, x.skipped, x.failed,
           x.details);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, scheduling_optimization_status& x) {
  return f(caf::meta::type_name("scheduling_optimization_status"), x.stage, x.status, x.reason,
           x.start_timestamp, x.finish_timestamp, x.last_update_timestamp, x.observed_generation,
           x.kinds);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, run_failure& x) {
  return f(caf::meta::type_name("run_failure"), x.kind, x.reason);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, scheduling_optimization& x) {
  return f(caf::meta::type_name("scheduling_optimization"), x.metadata, x.spec, x.status);
}

} // namespace schedopt
