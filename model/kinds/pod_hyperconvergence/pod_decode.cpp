// Field mapping from Kubernetes JSON to the pod kind's objects (k8s.io/api core/v1,
// apps/v1 and policy/v1 json tags). Each decoder reads only the fields the model keeps.
#include "model/kinds/pod_hyperconvergence/pod_decode.hpp"

#include "model/decode_fields.hpp"
#include "model/decode_generic.hpp" // decode<T> and the list and watch decoders, instantiated below

namespace schedopt::pod_hyperconvergence {

using detail::decode_reader;
using detail::json_object;
// The readers the VM kind's decoder shares (model/decode_fields.hpp).
using detail::read_conditions;
using detail::read_constraints;
using detail::read_object_meta;
using detail::raw_field;
using detail::read_resources;

namespace {

// The pod kind's objects keep no finalizers: nothing in the kind reads them.
void read_meta(decode_reader& r, const json_object& root, object_meta& m) {
  read_object_meta(r, root, m, detail::finalizers::skip);
}

void read_selector(decode_reader& r, const json_object& spec, label_selector& out) {
  auto sel = r.child(spec, "selector");
  if (!sel.present)
    return;
  out.present = true;
  r.read(sel, "matchLabels", out.match_labels);
  r.for_each(sel, "matchExpressions", [&](const json_object& o) {
    label_requirement req;
    r.read(o, "key", req.key);
    r.read(o, "operator", req.op);
    r.read(o, "values", req.values);
    out.match_expressions.push_back(std::move(req));
  });
}

// intstr.IntOrString as text: 2 -> "2", "50%" -> "50%".
void read_int_or_string(decode_reader& r, const json_object& obj, std::string_view key,
                        std::string& out) {
  if (auto e = raw_field(obj, key); e && e->is_int64()) {
    out = std::to_string(e->get_int64().value_unsafe());
    return;
  }
  r.read(obj, key, out); // a string, or null, or the type error naming the path
}

// A StatefulSet or a ReplicaSet: the same fields, the same tags. The API server
// defaults spec.replicas to 1 (apps/v1 defaults.go); null reads so too.
template <class Workload>
void read_workload(decode_reader& r, const json_object& root, Workload& w) {
  read_meta(r, root, w.metadata);
  auto spec = r.child(root, "spec");
  std::optional<int64_t> replicas;
  r.read(spec, "replicas", replicas);
  w.replicas = replicas.value_or(1);
  read_selector(r, spec, w.selector);
  r.read(r.child(root, "status"), "readyReplicas", w.ready_replicas);
}

} // namespace

resource_list effective_requests(const std::vector<resource_list>& containers,
                                 const std::vector<init_container_requests>& init_containers,
                                 const resource_list& pod_level, const resource_list& overhead) {
  using field = std::optional<int64_t> resource_list::*;
  resource_list out;
  for (field f : {&resource_list::cpu_millis, &resource_list::memory_bytes}) {
    auto add = [](std::optional<int64_t>& to, const std::optional<int64_t>& v) {
      if (v)
        to = to.value_or(0) + *v;
    };
    std::optional<int64_t> sum, init_floor, sidecars;
    for (const auto& c : containers)
      add(sum, c.*f);
    for (const auto& c : init_containers) {
      std::optional<int64_t> use;
      if (c.restartable) {
        add(sum, c.requests.*f);
        add(sidecars, c.requests.*f);
        use = sidecars;
      } else {
        add(use, c.requests.*f);
        add(use, sidecars);
      }
      if (use && (!init_floor || *use > *init_floor))
        init_floor = use;
    }
    if (init_floor && (!sum || *init_floor > *sum))
      sum = init_floor;
    if (pod_level.*f)
      sum = pod_level.*f;
    add(sum, overhead.*f);
    out.*f = sum;
  }
  return out;
}

void read_into(decode_reader& r, const json_object& root, pod& p) {
  read_meta(r, root, p.metadata);
  auto spec = r.child(root, "spec");
  r.read(spec, "nodeName", p.node_name);
  r.read(spec, "schedulerName", p.scheduler_name);
  r.for_each(spec, "volumes", [&](const json_object& o) {
    std::string claim;
    r.read(r.child(o, "persistentVolumeClaim"), "claimName", claim);
    if (!claim.empty())
      p.claim_names.push_back(std::move(claim));
  });
  read_constraints(r, spec, p.constraints);
  std::vector<resource_list> containers;
  r.for_each(spec, "containers", [&](const json_object& o) {
    containers.push_back(read_resources(r.child(r.child(o, "resources"), "requests")));
  });
  std::vector<init_container_requests> init_containers;
  r.for_each(spec, "initContainers", [&](const json_object& o) {
    init_container_requests c;
    c.requests = read_resources(r.child(r.child(o, "resources"), "requests"));
    std::string restart_policy;
    r.read(o, "restartPolicy", restart_policy);
    c.restartable = restart_policy == "Always";
    init_containers.push_back(std::move(c));
  });
  auto pod_level = read_resources(r.child(r.child(spec, "resources"), "requests"));
  auto overhead = read_resources(r.child(spec, "overhead"));
  p.requests = effective_requests(containers, init_containers, pod_level, overhead);
  auto status = r.child(root, "status");
  r.read(status, "phase", p.phase);
  read_conditions(r, status, p.conditions);
}

void read_into(decode_reader& r, const json_object& root, stateful_set& s) {
  read_workload(r, root, s);
}

void read_into(decode_reader& r, const json_object& root, replica_set& s) {
  read_workload(r, root, s);
}

void read_into(decode_reader& r, const json_object& root, pod_disruption_budget& b) {
  read_meta(r, root, b.metadata);
  auto spec = r.child(root, "spec");
  read_selector(r, spec, b.selector);
  read_int_or_string(r, spec, "minAvailable", b.min_available);
  read_int_or_string(r, spec, "maxUnavailable", b.max_unavailable);
  r.read(spec, "unhealthyPodEvictionPolicy", b.unhealthy_pod_eviction_policy);
  auto status = r.child(root, "status");
  r.read(status, "observedGeneration", b.observed_generation);
  r.read(status, "disruptionsAllowed", b.disruptions_allowed);
  r.read(status, "currentHealthy", b.current_healthy);
  r.read(status, "desiredHealthy", b.desired_healthy);
  r.read(status, "expectedPods", b.expected_pods);
}

expected<pod> decode_pod(std::string_view json) { return decode<pod>(json); }
expected<stateful_set> decode_stateful_set(std::string_view json) {
  return decode<stateful_set>(json);
}
expected<replica_set> decode_replica_set(std::string_view json) {
  return decode<replica_set>(json);
}
expected<pod_disruption_budget> decode_pod_disruption_budget(std::string_view json) {
  return decode<pod_disruption_budget>(json);
}

} // namespace schedopt::pod_hyperconvergence

// The generic decoders for the kind's watched types (the informers list and watch them
// with these); they find the read_into above by argument-dependent lookup.
SCHEDOPT_INSTANTIATE_DECODERS(schedopt::pod_hyperconvergence::pod)
SCHEDOPT_INSTANTIATE_DECODERS(schedopt::pod_hyperconvergence::stateful_set)
SCHEDOPT_INSTANTIATE_DECODERS(schedopt::pod_hyperconvergence::replica_set)
SCHEDOPT_INSTANTIATE_DECODERS(schedopt::pod_hyperconvergence::pod_disruption_budget)
