// Field mapping from Kubernetes JSON to the pod kind's objects (k8s.io/api core/v1,
// apps/v1 and policy/v1 json tags). Each decoder reads only the fields the model keeps.
#include "model/kinds/pod_hyperconvergence/pod_decode.hpp"

#include <cmath>

#include "model/quantity.hpp"

namespace schedopt::pod_hyperconvergence {

using detail::decode_reader;
using detail::json_object;

namespace {

void read_meta(decode_reader& r, const json_object& root, object_meta& m) {
  auto meta = r.child(root, "metadata");
  r.read(meta, "name", m.name);
  r.read(meta, "namespace", m.namespace_);
  r.read(meta, "resourceVersion", m.resource_version);
  r.read(meta, "uid", m.uid);
  r.read(meta, "annotations", m.annotations);
  r.read(meta, "labels", m.labels);
  r.for_each(meta, "ownerReferences", [&](const json_object& o) {
    owner_reference ref;
    r.read(o, "apiVersion", ref.api_version);
    r.read(o, "kind", ref.kind);
    r.read(o, "name", ref.name);
    r.read(o, "uid", ref.uid);
    r.read(o, "controller", ref.controller);
    m.owner_references.push_back(std::move(ref));
  });
  r.read(meta, "generateName", m.generate_name);
  r.read(meta, "generation", m.generation);
  r.read(meta, "creationTimestamp", m.creation_timestamp);
  r.read(meta, "deletionTimestamp", m.deletion_timestamp);
  r.require(m.name, meta, "name");
}

// A quantity is a string ("4Gi", "500m") or, as YAML sends it, a bare number; text that
// is no quantity reads as unset (the API server would not have stored it).
void read_quantity(const json_object& obj, std::string_view key, int64_t scale,
                   std::optional<int64_t>& out) {
  if (!obj.present)
    return;
  auto found = obj.value.at_key(key);
  if (found.error())
    return;
  simdjson::dom::element e = found.value_unsafe();
  if (e.is_string()) {
    out = parse_quantity(e.get_string().value_unsafe(), scale);
  } else if (e.is_number()) {
    double d = e.get_double().value_unsafe();
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
  if (!obj.present)
    return;
  auto found = obj.value.at_key(key);
  if (found.error())
    return;
  simdjson::dom::element e = found.value_unsafe();
  if (e.is_int64()) {
    out = std::to_string(e.get_int64().value_unsafe());
    return;
  }
  r.read(obj, key, out); // a string, or null, or the type error naming the path
}

// The API server defaults spec.replicas to 1 (apps/v1 defaults.go); null reads so too.
void read_replicas(decode_reader& r, const json_object& spec, int64_t& out) {
  std::optional<int64_t> replicas;
  r.read(spec, "replicas", replicas);
  out = replicas.value_or(1);
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
  r.for_each(status, "conditions", [&](const json_object& o) {
    condition c;
    r.read(o, "type", c.type);
    r.read(o, "status", c.status);
    r.read(o, "reason", c.reason);
    r.read(o, "message", c.message);
    r.read(o, "lastTransitionTime", c.last_transition_time);
    p.conditions.push_back(std::move(c));
  });
}

void read_into(decode_reader& r, const json_object& root, stateful_set& s) {
  read_meta(r, root, s.metadata);
  auto spec = r.child(root, "spec");
  read_replicas(r, spec, s.replicas);
  read_selector(r, spec, s.selector);
  r.read(r.child(root, "status"), "readyReplicas", s.ready_replicas);
}

void read_into(decode_reader& r, const json_object& root, replica_set& s) {
  read_meta(r, root, s.metadata);
  auto spec = r.child(root, "spec");
  read_replicas(r, spec, s.replicas);
  read_selector(r, spec, s.selector);
  r.read(r.child(root, "status"), "readyReplicas", s.ready_replicas);
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

namespace {

template <class T>
expected<T> decode_one(std::string_view json) {
  decode_reader r;
  auto root = r.parse_root(json);
  T out;
  read_into(r, root, out);
  if (!r.ok())
    return r.failure();
  return out;
}

} // namespace

expected<pod> decode_pod(std::string_view json) { return decode_one<pod>(json); }
expected<stateful_set> decode_stateful_set(std::string_view json) {
  return decode_one<stateful_set>(json);
}
expected<replica_set> decode_replica_set(std::string_view json) {
  return decode_one<replica_set>(json);
}
expected<pod_disruption_budget> decode_pod_disruption_budget(std::string_view json) {
  return decode_one<pod_disruption_budget>(json);
}

} // namespace schedopt::pod_hyperconvergence
