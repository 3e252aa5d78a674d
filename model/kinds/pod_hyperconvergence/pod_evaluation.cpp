// docs/design.md §9 evaluation: volumes -> replica scores -> verdict -> filters -> cap.
#include "model/kinds/pod_hyperconvergence/pod_evaluation.hpp"

#include <algorithm>
#include <tuple>
#include <utility>

#include "model/placement/target_choice.hpp"

namespace schedopt::pod_hyperconvergence {

std::string pod_key(std::string_view namespace_, std::string_view name) {
  std::string key;
  key.reserve(namespace_.size() + 1 + name.size());
  key.append(namespace_).append(1, '/').append(name);
  return key;
}

bool is_virt_launcher(const pod& p) {
  auto label = p.metadata.labels.find("kubevirt.io");
  if (label != p.metadata.labels.end() && label->second == "virt-launcher")
    return true;
  return std::any_of(p.metadata.owner_references.begin(), p.metadata.owner_references.end(),
                     [](const owner_reference& o) { return o.kind == "VirtualMachineInstance"; });
}

bool is_considered(const pod& p) {
  return p.phase == "Running" && !p.node_name.empty() && !p.metadata.deletion_timestamp
         && !is_virt_launcher(p);
}

const char* to_string(pod_disposition d) {
  switch (d) {
    case pod_disposition::not_candidate: return "not-candidate";
    case pod_disposition::eligible: return "eligible";
    case pod_disposition::skipped: return "skipped";
    case pod_disposition::outstanding: return "outstanding";
  }
  return "unknown";
}

namespace {

bool by_key(const pod* a, const pod* b) {
  return std::tie(a->metadata.namespace_.str(), a->metadata.name)
         < std::tie(b->metadata.namespace_.str(), b->metadata.name);
}

std::vector<const pod*> considered_sorted(const shared_list<pod>& pods) {
  std::vector<const pod*> out;
  for (const auto& p : pods)
    if (is_considered(*p))
      out.push_back(p.get());
  std::sort(out.begin(), out.end(), by_key);
  return out;
}

// Claims in spec order; the first lookup that fails is the pod's error, worded as the
// API server words a failed GET so operators recognise it.
pod_volumes volumes_of(const pod& p, const sorted_objects<persistent_volume_claim>& pvcs,
                       const sorted_objects<persistent_volume>& pvs,
                       const pv_owned_predicate& owned) {
  pod_volumes out{p.metadata.namespace_, p.metadata.name, {}, {}};
  for (const auto& claim : p.claim_names) {
    auto* pvc = pvcs.find(p.metadata.namespace_, claim);
    if (!pvc) {
      out.error = "persistentvolumeclaims \"" + claim + "\" not found";
      break;
    }
    if (pvc->volume_name.empty()) {
      out.error = "persistentvolumeclaims \"" + claim + "\" is not bound to a volume";
      break;
    }
    auto pv = pvs.find_shared("", pvc->volume_name.str());
    if (!pv) {
      out.error = "persistentvolumes \"" + pvc->volume_name + "\" not found";
      break;
    }
    if (owned && owned(*pv))
      out.pvs.push_back(std::move(pv));
  }
  if (!out.error.empty())
    out.pvs.clear();
  auto by_name = [](const auto& a, const auto& b) { return a->metadata.name < b->metadata.name; };
  auto same = [](const auto& a, const auto& b) { return a->metadata.name == b->metadata.name; };
  auto& found = out.pvs.edit();
  std::sort(found.begin(), found.end(), by_name);
  found.erase(std::unique(found.begin(), found.end(), same), found.end());
  return out;
}

/// The owner's fields the filters read, whichever kind it is.
struct owner_view {
  const object_meta* meta = nullptr;
  int64_t replicas = 0;
};

struct judge {
  const evaluation_input& in;
  std::map<std::string, const pod_volumes*> volumes;
  std::map<std::string, node_readiness> readiness;
  std::map<std::string, const node*> nodes;
  std::map<std::string, node_usage> usage;
  sorted_objects<stateful_set> stateful_sets;
  sorted_objects<replica_set> replica_sets;
  int64_t cap;
  evaluation_result out;

  explicit judge(const evaluation_input& input)
      : in(input), usage(input.usage), stateful_sets(input.stateful_sets),
        replica_sets(input.replica_sets), cap(std::max<int64_t>(input.max_per_run, 0)) {
    for (const auto& v : in.volumes)
      volumes[pod_key(v.namespace_, v.name)] = &v;
    for (const auto& n : in.nodes) {
      readiness[n.metadata.name] = node_readiness{n.ready, !n.unschedulable};
      nodes[n.metadata.name] = &n;
    }
  }

  // The owner as the snapshot has it; an error when it is missing, or when its uid is
  // not the one the pod names (the owner was re-created: the pod is an orphan).
  expected<owner_view> find_owner(const workload_ref& w) const {
    owner_view v;
    const char* resource = "statefulsets.apps";
    if (w.kind == workload_kind::stateful_set) {
      if (auto* s = stateful_sets.find(w.namespace_, w.name))
        v = {&s->metadata, s->replicas};
    } else {
      resource = "replicasets.apps";
      if (auto* s = replica_sets.find(w.namespace_, w.name))
        v = {&s->metadata, s->replicas};
    }
    if (!v.meta || (!w.uid.empty() && !v.meta->uid.empty() && v.meta->uid != w.uid))
      return make_error(ec::not_found, std::string(resource) + " \"" + w.name + "\" not found");
    return v;
  }

  static std::string labelled() { return std::string("labelled ") + opt_out_label + "=true"; }

  bool is_storage_aware(std::string_view scheduler) const {
    return std::find(in.storage_aware_schedulers.begin(), in.storage_aware_schedulers.end(),
                     scheduler) != in.storage_aware_schedulers.end();
  }

  std::string schedulers() const {
    std::string out;
    for (const auto& s : in.storage_aware_schedulers)
      out += (out.empty() ? "" : ", ") + s;
    return out.empty() ? std::string("none") : out;
  }

  // The first filter that blocks the candidate, as its reason; "" when none does.
  std::string first_blocking_filter(const pod& p, pod_evaluation& ev, bool& error) {
    const std::string& ns = p.metadata.namespace_;
    if (in.excluded_namespaces.count(ns))
      return make_pod_reason(pod_reason::opted_out, "namespace " + ns + " is excluded");
    if (in.opted_out_namespaces.count(ns))
      return make_pod_reason(pod_reason::opted_out, "namespace " + ns + " " + labelled());
    if (auto l = p.metadata.labels.find(opt_out_label);
        l != p.metadata.labels.end() && l->second == "true")
      return make_pod_reason(pod_reason::opted_out, labelled());
    if (!ev.owner) {
      auto* controller = controller_of(p.metadata);
      return make_pod_reason(pod_reason::no_controller,
                             controller ? "controlled by " + controller->kind + " " + controller->name
                                        : std::string("no controller"));
    }
    const workload_ref& w = *ev.owner;
    auto owner = find_owner(w);
    if (!owner) {
      error = true;
      return make_pod_reason(pod_reason::evaluation_error, owner.err().message);
    }
    const object_meta& meta = *owner->meta;
    std::string who = std::string(to_string(w.kind)) + " " + w.name;
    if (auto l = meta.labels.find(opt_out_label); l != meta.labels.end() && l->second == "true")
      return make_pod_reason(pod_reason::opted_out, who + " " + labelled());
    if (meta.deletion_timestamp)
      return make_pod_reason(pod_reason::no_controller, who + " is being deleted");
    if (owner->replicas == 0)
      return make_pod_reason(pod_reason::no_controller, who + " is scaled to 0");
    if (!is_storage_aware(ev.scheduler))
      return make_pod_reason(pod_reason::scheduler_not_storage_aware,
                             "schedulerName " + ev.scheduler
                               + " is not storage-aware (storageAwareSchedulers: " + schedulers()
                               + ")");
    auto until = cooling_off_until(meta.annotations, in.cool_off_annotation, in.request_uid,
                                   in.cool_off_period, in.now);
    if (!until)
      out.warnings.push_back("ignoring the cool-off record of " + describe(w) + ": "
                             + until.err().message);
    else if (*until)
      return make_pod_reason(pod_reason::cooling_off, "eligible after " + format_rfc3339(**until));
    if (ev.target_nodes.empty())
      return make_pod_reason(pod_reason::no_target_node, no_target_detail(ev.refusals));
    return {};
  }

  void skip(pod_evaluation& ev, std::string reason) {
    ev.disp = pod_disposition::skipped;
    ev.reason = std::move(reason);
    out.skipped.push_back({ev.name, ev.namespace_, pod_result::skipped, ev.reason});
    ++out.counts.skipped;
  }

  // The replica sets of the pod's driver volumes, or the error that stops its scoring.
  std::string replicas_of(const pod_volumes& vols, std::vector<replica_nodes>& sets) const {
    for (const auto& pv : vols.pvs) {
      const std::string& name = pv->metadata.name;
      if (auto e = in.replica_errors.find(name); e != in.replica_errors.end())
        return e->second;
      auto found = in.replicas.find(name);
      if (found == in.replicas.end())
        return "storage driver returned no replica nodes for volume \"" + name + "\"";
      sets.push_back(found->second);
      normalize(sets.back());
    }
    return {};
  }

  void run(const std::shared_ptr<const pod>& shared) {
    const pod& p = *shared;
    auto& counts = out.counts;
    ++counts.considered;
    pod_evaluation ev;
    ev.namespace_ = p.metadata.namespace_;
    ev.name = p.metadata.name;
    ev.node = p.node_name;
    ev.scheduler = std::string(scheduler_of(p));
    ev.owner = workload_of(p);
    std::vector<replica_nodes> sets;
    std::string error;
    if (auto v = volumes.find(pod_key(ev.namespace_, ev.name)); v != volumes.end())
      error = !v->second->error.empty() ? v->second->error : replicas_of(*v->second, sets);
    if (!error.empty()) {
      ev.verdict = "error";
      ++counts.errors;
      skip(ev, make_pod_reason(pod_reason::evaluation_error, error));
      out.pods.push_back(std::move(ev));
      return;
    }
    if (sets.empty()) {
      ev.verdict = "none";
      ++counts.no_driver_volumes;
      if (in.every_pod)
        out.pods.push_back(std::move(ev));
      return;
    }
    placement_verdict placed = score_placement(sets, ev.node, readiness);
    bool candidate = is_candidate(placed);
    record_placement(std::move(placed), ev, counts);
    if (!candidate) {
      if (in.every_pod)
        out.pods.push_back(std::move(ev));
      return;
    }
    auto targets = best_targets(p, ev.best_nodes, nodes, usage);
    ev.target_nodes = std::move(targets.nodes);
    ev.refusals = std::move(targets.refusals);
    bool error_skip = false;
    if (auto reason = first_blocking_filter(p, ev, error_skip); !reason.empty()) {
      if (error_skip)
        ++counts.errors;
      skip(ev, std::move(reason));
    } else if (counts.eligible < cap) {
      ev.disp = pod_disposition::eligible;
      ++counts.eligible;
      hold_room(usage, p, ev.target_nodes);
      out.eligible.push_back({shared, *ev.owner, ev.best_nodes, ev.target_nodes});
    } else {
      ev.disp = pod_disposition::outstanding;
      ++counts.outstanding;
      out.outstanding.push_back(pod_key(ev.namespace_, ev.name));
    }
    out.pods.push_back(std::move(ev));
  }
};

} // namespace

std::vector<pod_volumes> driver_volumes_of(const shared_list<pod>& pods,
                                           const sorted_objects<persistent_volume_claim>& pvcs,
                                           const sorted_objects<persistent_volume>& pvs,
                                           const pv_owned_predicate& owned) {
  std::vector<pod_volumes> out;
  for (const pod* p : considered_sorted(pods))
    out.push_back(volumes_of(*p, pvcs, pvs, owned));
  return out;
}

shared_list<persistent_volume> volumes_to_query(const std::vector<pod_volumes>& volumes) {
  shared_list<persistent_volume>::vector_type out;
  for (const auto& v : volumes)
    out.insert(out.end(), v.pvs.begin(), v.pvs.end());
  auto by_name = [](const auto& a, const auto& b) { return a->metadata.name < b->metadata.name; };
  auto same = [](const auto& a, const auto& b) { return a->metadata.name == b->metadata.name; };
  std::sort(out.begin(), out.end(), by_name);
  out.erase(std::unique(out.begin(), out.end(), same), out.end());
  return out;
}

evaluation_result evaluate(const evaluation_input& in) {
  judge j{in};
  std::vector<std::shared_ptr<const pod>> considered;
  for (const auto& p : in.pods) {
    if (is_considered(*p)) {
      if (!in.handled.count(pod_key(p->metadata.namespace_, p->metadata.name)))
        considered.push_back(p);
    } else if (p->phase == "Running" && !p->node_name.empty() && is_virt_launcher(*p)) {
      ++j.out.counts.virt_launcher;
    }
  }
  std::sort(considered.begin(), considered.end(),
            [](const auto& a, const auto& b) { return by_key(a.get(), b.get()); });
  for (const auto& p : considered)
    j.run(p);
  return std::move(j.out);
}

} // namespace schedopt::pod_hyperconvergence
