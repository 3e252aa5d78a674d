// The Kubernetes, KubeVirt and schedopt objects schedopt reads and writes, reduced to
// the fields it uses. Decoders (model/decode.hpp) ignore every other field.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/container/string.hpp>

#include "model/boxed_optional.hpp"
#include "model/object_uid.hpp"
#include "model/pv_name.hpp"
#include "model/shared_list.hpp"
#include "model/shared_string.hpp"
#include "model/sparse_map.hpp"
#include "model/decimal_text.hpp"
#include "model/wire_enums.hpp"

namespace schedopt {

using string_map = std::map<std::string, std::string>;

/// "<namespace>/<name>", the key every per-object map of a run uses (VMIs, pods, details).
std::string vmi_key(std::string_view namespace_, std::string_view name);

/// Wraps values into a shared_list (tests, and callers that built their own objects).
template <class T>
shared_list<T> share_all(std::vector<T> values) {
  shared_list<T> out;
  out.reserve(values.size());
  for (auto& v : values)
    out.push_back(std::make_shared<const T>(std::move(v)));
  return out;
}

/// Copies out of a shared_list, for the few objects a caller needs as values (requests,
/// nodes, VMIMs).
template <class T>
std::vector<T> values_of(const shared_list<T>& shared) {
  std::vector<T> out;
  out.reserve(shared.size());
  for (const auto& p : shared)
    out.push_back(*p);
  return out;
}

struct owner_reference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
};

/// The identity every stored object keeps: the store keys on name and namespace and
/// diffs a relist by resourceVersion. PVCs and PVs keep nothing more; there are a few of
/// them per VMI, so every byte of metadata is paid many times over. Their uid
/// is not kept: no decision tells a recreated PVC from an updated one, and its
/// resourceVersion changes either way.
template <class Name = std::string>
struct basic_identity {
  Name name;
  shared_string namespace_; // empty for cluster-scoped objects
  decimal_text resource_version;
};
using object_identity = basic_identity<>;

/// A name held by the hundreds of thousands (PVC names, and VMI volumes' claim names,
/// which repeat them): Boost's string is 24 bytes and keeps up to 22 characters inline,
/// where std::string is 32 bytes and 15 — a DataVolume's PVC, "<vm>-<volume>", is
/// usually longer than 15 characters, and each such name was a heap block.
using short_name = boost::container::string;

/// What VMIs and VirtualMachines keep beyond identity: their uid (a recreated VMI is
/// another VM) and the cool-off record in annotations. Theirs is `lean_meta`, its uid 16
/// bytes (model/object_uid.hpp) and its annotations on the heap only when it has any
/// (model/sparse_map.hpp); the kinds held by the handful keep the uid's text and a map.
template <class Uid, class Annotations = string_map>
struct basic_meta : object_identity {
  Uid uid;
  Annotations annotations;
};
using lean_meta = basic_meta<object_uid, sparse_map>;

/// The uid generic code (informer stores) compares: none for kinds that keep only their
/// identity.
template <class Name>
const object_uid& uid_of(const basic_identity<Name>&) {
  static const object_uid none;
  return none;
}
template <class Uid, class Annotations>
const Uid& uid_of(const basic_meta<Uid, Annotations>& m) {
  return m.uid;
}

/// Full metadata, for the kinds held by the handful (requests, VMIMs, nodes, leases,
/// events).
struct object_meta : basic_meta<std::string> {
  std::vector<owner_reference> owner_references;
  std::string generate_name;
  int64_t generation = 0;
  std::string creation_timestamp; // RFC 3339 as sent by the server
  std::optional<std::string> deletion_timestamp;
  string_map labels;
  std::vector<std::string> finalizers;
};

struct condition {
  std::string type;
  std::string status; // "True", "False", "Unknown"
  std::string reason;
  std::string message;
  std::string last_transition_time;
};

// -- KubeVirt ---------------------------------------------------------------

/// Where a VMI volume's disk comes from, of the sources that can be a driver's volume.
enum class volume_source : uint8_t { other, claim, data_volume };

struct vmi_volume {
  shared_string name; // "rootdisk", "datadisk1": VMIs made from one template repeat them
  /// The PVC: spec.volumes[].persistentVolumeClaim.claimName, or dataVolume.name (a
  /// DataVolume's PVC has its name); empty for other sources.
  short_name claim_name;
  volume_source source = volume_source::other;
};

struct migration_state {
  std::string migration_uid;
  std::string source_node;
  std::string target_node;
  std::string start_timestamp;
  std::string end_timestamp;
  bool completed = false;
  bool failed = false;
  bool abort_requested = false;
  std::string abort_status;
  std::string failure_reason;
};

/// A Kubernetes quantity as the model keeps it: CPU in millicores, memory in bytes;
/// nullopt when the object does not say.
struct resource_list {
  std::optional<int64_t> cpu_millis;
  std::optional<int64_t> memory_bytes;
};

/// One requirement of a node selector term (matchExpressions or matchFields).
struct node_selector_requirement {
  std::string key;
  std::string op; // In, NotIn, Exists, DoesNotExist, Gt, Lt
  std::vector<std::string> values;
};

/// Terms are ORed; inside a term every requirement must hold.
struct node_selector_term {
  std::vector<node_selector_requirement> match_expressions;
  std::vector<node_selector_requirement> match_fields; // key metadata.name only
};

struct toleration {
  std::string key;
  std::string op; // Equal (default) or Exists
  std::string value;
  std::string effect; // empty: every effect
};

/// Where a VMI may run besides its replicas (spec.nodeSelector, required node affinity,
/// tolerations). Most VMIs say nothing of it: the ones that do hold it on the heap, the
/// others 8 bytes instead of 96 (virtual_machine_instance::constraints).
struct scheduling_constraints {
  string_map node_selector; // spec.nodeSelector
  /// spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution terms;
  /// empty: no required node affinity.
  std::vector<node_selector_term> required_node_affinity;
  std::vector<toleration> tolerations; // spec.tolerations
};

struct virtual_machine_instance {
  lean_meta metadata;
  /// The VirtualMachine controlling it (metadata.ownerReferences: controller, kind
  /// VirtualMachine), which holds its cool-off record; empty for a VMI of its own. The
  /// only owner reference a decision reads.
  short_name controller_vm;
  std::vector<vmi_volume> volumes;
  boxed_optional<scheduling_constraints> constraints; // none: no constraint
  resource_list requests;              // spec.domain.resources.requests
  /// spec.domain.memory.guest: what KubeVirt migrates when set (else the memory request).
  std::optional<int64_t> guest_memory_bytes;
  /// spec.domain.cpu sockets × cores × threads (each at least 1): KubeVirt's
  /// virt-launcher overhead grows with it.
  int32_t vcpus = 1;
  /// Labelled schedopt.libopenstorage.org/exclude=true: never migrated by schedopt
  /// (read for a VMI without a VirtualMachine; else the VirtualMachine's label counts).
  /// Beside vcpus, in the padding after it: 8 bytes less per VMI at the end.
  bool opted_out = false;
  /// spec.domain.cpu.model; empty: KubeVirt's default, host-model.
  shared_string cpu_model;
  shared_string phase;     // status.phase
  shared_string node_name; // status.nodeName
  /// status.evacuationNodeName: KubeVirt is draining this VMI off that node.
  shared_string evacuation_node_name;
  std::vector<condition> conditions;
  boxed_optional<migration_state> migration; // status.migrationState
};

/// A VMI's scheduling constraints (an empty set when it has none), and the same for
/// changing them (boxing them first).
const scheduling_constraints& constraints_of(const virtual_machine_instance& vmi);
scheduling_constraints& edit_constraints(virtual_machine_instance& vmi);

/// A VirtualMachine: schedopt only reads its metadata (the cool-off annotation).
struct virtual_machine {
  lean_meta metadata;
  bool opted_out = false; // labelled schedopt.libopenstorage.org/exclude=true
};

/// A Namespace: only its name and whether it carries the opt-out label are read.
struct kube_namespace {
  lean_meta metadata;
  bool opted_out = false; // labelled schedopt.libopenstorage.org/exclude=true
};

/// The label a VM, an owner-less VMI or a namespace carries to keep schedopt away.
constexpr const char* opt_out_label = "schedopt.libopenstorage.org/exclude";

struct phase_transition {
  std::string phase;
  std::string timestamp;
};

struct virtual_machine_instance_migration {
  object_meta metadata;
  std::string vmi_name;             // spec.vmiName
  string_map added_node_selector;   // spec.addedNodeSelector
  std::string phase;                // status.phase
  std::vector<phase_transition> phase_transition_timestamps;
  std::optional<migration_state> migration;
  std::vector<condition> conditions;
};

/// Final VMIM phases per KubeVirt: Succeeded and Failed.
bool is_final_phase(const std::string& phase);

// -- core -------------------------------------------------------------------

/// A PVC as a decision reads it: which PV it is bound to (none: not bound). Its storage
/// class and phase are not kept: no decision reads them, and every PVC would carry them.
struct persistent_volume_claim {
  basic_identity<short_name> metadata;
  pv_name volume_name; // spec.volumeName (model/pv_name.hpp)
};

struct persistent_volume {
  basic_identity<pv_name> metadata; // model/pv_name.hpp: "pvc-<uid>" in 16 bytes
  shared_string csi_driver; // spec.csi.driver
  decimal_text volume_handle; // spec.csi.volumeHandle (Portworx: the volume's numeric id)
  /// Values of `kubernetes.io/hostname` In-terms of spec.nodeAffinity.required: only
  /// local and topology-bound volumes have any, so the others pay 8 bytes, not 24
  /// (read through affinity_hostnames_of()).
  boxed_optional<std::vector<std::string>> affinity_hostnames;
};

/// A PV's affinity hostnames (none when it has no such term).
const std::vector<std::string>& affinity_hostnames_of(const persistent_volume& pv);

struct node_address {
  std::string type; // Hostname, InternalIP, ExternalIP
  std::string address;
};

struct taint {
  std::string key;
  std::string value;
  std::string effect; // NoSchedule, PreferNoSchedule, NoExecute
};

struct node {
  object_meta metadata;
  bool ready = false;         // condition Ready == True
  bool unschedulable = false; // spec.unschedulable
  std::vector<node_address> addresses;
  std::vector<taint> taints; // spec.taints
  resource_list allocatable; // status.allocatable; absent: not checked
  /// Not decoded: set by mark_evacuating_nodes (node_admission.hpp) when a VMI on it
  /// carries status.evacuationNodeName naming it.
  bool evacuating = false;
};

struct lease {
  object_meta metadata;
  std::string holder_identity;
  int64_t lease_duration_seconds = 0;
  std::string acquire_time; // MicroTime
  std::string renew_time;   // MicroTime
  int64_t lease_transitions = 0;
};

struct object_reference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string namespace_;
  std::string uid;
  std::string resource_version;
};

struct event {
  object_meta metadata;
  object_reference involved_object;
  std::string type; // Normal, Warning
  std::string reason;
  std::string message;
  int64_t count = 1;
  std::string first_timestamp;
  std::string last_timestamp;
  std::string source_component;
  std::string reporting_component;
};

/// metav1.Status, as the API server shapes its errors.
struct api_status {
  std::string status; // "Failure" / "Success"
  std::string message;
  std::string reason; // NotFound, AlreadyExists, Conflict, Expired, ...
  int64_t code = 0;
  std::string details_name;
  std::string details_group;
  std::string details_kind;
  int64_t retry_after_seconds = 0;
};

// -- SchedulingOptimization ---------------------------------------------------
//
// The request model names no optimization kind: the spec and the status hold one entry per
// kind, keyed by the kind's spec field name. A kind reads its own spec
// fields with its own model code (model/kinds/<kind>/); every kind's status block has the
// same shape and rules (docs/design.md §3.7).

/// One kind's part of the spec (`spec.<kind>`). `enabled` is every kind's; the rest of
/// the fragment is the kind's to read, so it is kept as the request carried it.
struct kind_spec {
  bool enabled = false;
  std::string json = "{}"; // the whole fragment (enabled included), minified
};

struct scheduling_optimization_spec {
  /// By spec field name; null fields are not listed, nor are non-object ones (those make
  /// the spec invalid).
  std::map<std::string, kind_spec> kinds;
  /// The first spec field of the wrong type ("spec.<kind>.enabled: expected boolean, got
  /// string"): the request still decodes, so it can be failed with this
  /// reason instead of being skipped by the informer and never answered.
  std::optional<std::string> invalid;
};

/// One item a kind judged (a VM, a pod) as its status block lists it.
struct kind_detail {
  std::string name;
  std::string namespace_;
  detail_status status = detail_status::unknown;
  std::string reason; // "<Kind>: <detail>" (model/reason.hpp), empty when Successful
};

/// A kind's block of the status (`status.<kind>`): exact counters, capped details.
struct kind_status_block {
  int64_t successful = 0;
  int64_t skipped = 0;
  int64_t failed = 0;
  std::vector<kind_detail> details;
};

struct scheduling_optimization_status {
  request_stage stage = request_stage::none;
  request_status status = request_status::none;
  std::string reason;
  std::string start_timestamp;
  std::string finish_timestamp;
  std::string last_update_timestamp;
  int64_t observed_generation = 0;
  /// By kind name: the blocks written so far (a kind not yet run has none).
  std::map<std::string, kind_status_block> kinds;
};

/// The status block of `kind`, nullptr when the status has none.
const kind_status_block* block_of(const scheduling_optimization_status& status,
                                  const std::string& kind);

struct scheduling_optimization {
  object_meta metadata;
  scheduling_optimization_spec spec;
  scheduling_optimization_status status;
};

} // namespace schedopt
