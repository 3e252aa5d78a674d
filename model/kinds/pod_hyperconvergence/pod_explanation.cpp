// The explanation reads the evaluation's own result for every decision (verdict,
// disposition, reason, targets) and re-runs only the admission rules, one by one, on the
// room the evaluation judged the pod against, and the cool-off reading, with the
// evaluation's own inputs; nothing here decides anew.
#include "model/kinds/pod_hyperconvergence/pod_explanation.hpp"

#include <algorithm>
#include <tuple>

#include "model/placement/scoring.hpp"

namespace schedopt::pod_hyperconvergence {

namespace {

bool contains(const std::vector<std::string>& items, const std::string& s) {
  return std::find(items.begin(), items.end(), s) != items.end();
}

std::vector<rule_result> rules_on(const pod& p, const node& n, const node_usage& used) {
  std::vector<rule_result> out;
  for (const auto& rule : pod_admission_rules()) {
    auto why = rule.check(p, n, used);
    out.push_back({rule.name, !why, why.value_or("")});
  }
  return out;
}

// Score tests first: best_targets() weighs only the best nodes other than the pod's own,
// so a node below them is not refused, just not in the running.
std::string result_of(const node_explanation& n, const pod_explanation& ex) {
  if (n.target)
    return "target";
  if (n.current)
    return "current node";
  if (n.score <= ex.current_score)
    return "score not above the current node's";
  if (n.score < ex.best_score)
    return "below the best score " + std::to_string(ex.best_score);
  if (!n.found)
    return "refused: not found";
  for (const auto& r : n.rules)
    if (!r.passed)
      return "refused: " + r.detail;
  return "allowed";
}

} // namespace

std::string not_considered_why(const pod& p) {
  if (p.phase != "Running")
    return "phase " + (p.phase.empty() ? std::string("unset") : p.phase);
  if (p.node_name.empty())
    return "not bound to a node";
  if (p.metadata.deletion_timestamp)
    return "terminating";
  if (is_virt_launcher(p))
    return "KubeVirt's virt-launcher pod (the VM kind moves its VM)";
  return "";
}

pod_explainer::pod_explainer(const pod_explanation_sources& sources)
  : src_(sources), stateful_sets_(sources.in.stateful_sets),
    replica_sets_(sources.in.replica_sets) {
  for (const auto& p : src_.in.pods)
    pods_[pod_key(p->metadata.namespace_, p->metadata.name)] = p.get();
  int64_t position = 0; // result.pods is in evaluate()'s (namespace, name) order
  for (const auto& ev : src_.result.pods) {
    auto key = pod_key(ev.namespace_, ev.name);
    evaluations_[key] = &ev;
    if (ev.disp == pod_disposition::eligible || ev.disp == pod_disposition::outstanding)
      positions_[key] = ++position;
  }
  for (const auto& v : src_.in.volumes)
    volumes_[pod_key(v.namespace_, v.name)] = &v;
}

const object_meta* pod_explainer::owner_meta(const workload_ref& w) const {
  if (w.kind == workload_kind::stateful_set) {
    auto* s = stateful_sets_.find(w.namespace_, w.name);
    return s ? &s->metadata : nullptr;
  }
  auto* s = replica_sets_.find(w.namespace_, w.name);
  return s ? &s->metadata : nullptr;
}

// The owner as evaluate() judges it (its find_owner and NoController tests), in words.
void pod_explainer::explain_owner(const pod& p, pod_explanation& ex) const {
  auto& o = ex.owner;
  auto w = workload_of(p);
  if (!w) {
    if (auto* c = controller_of(p.metadata)) {
      o.kind = c->kind;
      o.name = c->name;
      o.why_not = "controlled by " + c->kind + " " + c->name
                  + ": not a StatefulSet or ReplicaSet, its evicted pod may not come back";
    } else {
      o.why_not = "no controller: a bare pod is not re-created once evicted";
    }
    return;
  }
  o.kind = std::string(to_string(w->kind));
  o.name = w->name;
  const object_meta* meta = owner_meta(*w);
  if (!meta || (!w->uid.empty() && !meta->uid.empty() && meta->uid != w->uid)) {
    o.why_not = std::string(w->kind == workload_kind::stateful_set ? "statefulsets.apps"
                                                                   : "replicasets.apps")
                + " \"" + w->name + "\" not found";
    return;
  }
  if (w->kind == workload_kind::stateful_set)
    o.replicas = stateful_sets_.find(w->namespace_, w->name)->replicas;
  else
    o.replicas = replica_sets_.find(w->namespace_, w->name)->replicas;
  std::string who = o.kind + " " + o.name;
  if (meta->deletion_timestamp)
    o.why_not = who + " is being deleted";
  else if (o.replicas == 0)
    o.why_not = who + " is scaled to 0";
  o.counts = o.why_not.empty();
}

// Claims in spec order, each to its PV and, when the driver owns it, its replica nodes.
// evaluate() stops at the first failed lookup; the explanation shows every claim.
void pod_explainer::explain_volumes(const pod& p, pod_explanation& ex) const {
  const auto& in = src_.in;
  const pod_volumes* owned = nullptr;
  if (auto v = volumes_.find(pod_key(ex.namespace_, ex.name)); v != volumes_.end())
    owned = v->second;
  auto replicas_of = [&](claim_explanation& ve) {
    if (auto e = in.replica_errors.find(ve.persistent_volume); e != in.replica_errors.end())
      ve.problem = e->second;
    else if (auto r = in.replicas.find(ve.persistent_volume); r != in.replicas.end())
      ve.replica_nodes.assign(r->second.begin(), r->second.end());
    else
      ve.problem = "storage driver returned no replica nodes";
    std::sort(ve.replica_nodes.begin(), ve.replica_nodes.end());
  };
  auto is_owned = [&](const std::string& pv) {
    return owned && std::any_of(owned->pvs.begin(), owned->pvs.end(),
                                [&](const auto& x) { return x->metadata.name == pv; });
  };
  if (!src_.pvcs) { // no PVCs gathered: the driver PVs the evaluation found
    if (owned)
      for (const auto& pv : owned->pvs) {
        claim_explanation ve{{}, pv->metadata.name, true, {}, {}};
        replicas_of(ve);
        ex.volumes.push_back(std::move(ve));
      }
    return;
  }
  for (const auto& claim : p.claim_names) {
    claim_explanation ve{claim, {}, false, {}, {}};
    auto* pvc = src_.pvcs->find(p.metadata.namespace_, claim);
    if (!pvc)
      ve.problem = "PVC not found";
    else if (pvc->volume_name.empty())
      ve.problem = "PVC not bound";
    else
      ve.persistent_volume = pvc->volume_name;
    if (!ve.persistent_volume.empty() && src_.pvs && !src_.pvs->find("", ve.persistent_volume))
      ve.problem = "PV not found";
    else if (!ve.persistent_volume.empty() && is_owned(ve.persistent_volume)) {
      ve.driver_owned = true;
      replicas_of(ve);
    }
    ex.volumes.push_back(std::move(ve));
  }
}

// The owner's record read as evaluate() reads it (cooling_off_until).
void pod_explainer::explain_cool_off(pod_explanation& ex) const {
  const auto& in = src_.in;
  auto& c = ex.cool_off;
  c.period = in.cool_off_period;
  auto* pod = pods_.at(pod_key(ex.namespace_, ex.name));
  auto w = workload_of(*pod);
  const object_meta* meta = w ? owner_meta(*w) : nullptr;
  if (!meta)
    return;
  const auto& annotations = meta->annotations;
  auto record = recorded_migration_time(annotations, in.cool_off_annotation);
  if (!record) {
    c.record_error = record.err().message;
    return;
  }
  if (!*record)
    return;
  c.last_eviction = **record;
  c.eligible_after = eligible_after(**record, in.cool_off_period);
  c.this_request = cool_off_written_by(annotations, in.cool_off_annotation, in.request_uid);
  auto until =
    cooling_off_until(annotations, in.cool_off_annotation, in.request_uid, in.cool_off_period, in.now);
  c.cooling_off = until && *until;
}

pod_explanation pod_explainer::summary(const std::string& key, const pod& p) const {
  const auto& in = src_.in;
  pod_explanation ex;
  ex.namespace_ = p.metadata.namespace_;
  ex.name = p.metadata.name;
  ex.phase = p.phase;
  ex.node = p.node_name;
  ex.scheduler = std::string(scheduler_of(p));
  ex.storage_aware_scheduler =
    contains(in.storage_aware_schedulers, ex.scheduler);
  ex.not_considered_why = not_considered_why(p);
  ex.considered = ex.not_considered_why.empty();
  ex.verdict = "not-considered";
  ex.disposition = to_string(pod_disposition::not_candidate);
  if (auto e = evaluations_.find(key); e != evaluations_.end()) {
    const auto& ev = *e->second;
    ex.verdict = ev.verdict;
    ex.disposition = to_string(ev.disp);
    ex.reason = ev.reason;
    ex.best_nodes = ev.best_nodes;
    ex.best_score = ev.best_score;
    ex.current_score = ev.current_score;
    ex.target_nodes = ev.target_nodes;
    // The claim, volume, replica or owner lookup that failed, in the evaluation's words.
    static const std::string error_prefix =
      std::string(to_wire(pod_reason::evaluation_error)) + ": ";
    if (ex.reason.rfind(error_prefix, 0) == 0)
      ex.evaluation_error = ex.reason.substr(error_prefix.size());
  }
  explain_owner(p, ex);
  if (ex.considered)
    explain_volumes(p, ex);
  explain_cool_off(ex);
  if (src_.budgets)
    if (auto b = src_.budgets->find(key); b != src_.budgets->end())
      ex.budget = b->second;
  ex.cap.max_non_hyperconverged_per_run = in.max_per_run;
  if (auto pos = positions_.find(key); pos != positions_.end())
    ex.cap.position = pos->second;
  ex.cap.deferred = ex.disposition == to_string(pod_disposition::outstanding);
  return ex;
}

std::vector<node_explanation> pod_explainer::nodes_of(const pod& p,
                                                      const pod_explanation& ex) const {
  const auto& in = src_.in;
  // The room the evaluation judged this pod against: what runs there plus the room held
  // by every eligible candidate judged before it.
  auto usage = in.usage;
  for (const auto& e : src_.result.eligible) {
    const auto& m = e.target->metadata;
    if (std::tie(m.namespace_.str(), m.name) >= std::tie(p.metadata.namespace_.str(), p.metadata.name))
      break;
    hold_room(usage, *e.target, e.target_nodes);
  }
  std::vector<replica_nodes> sets;
  for (const auto& ve : ex.volumes)
    if (ve.driver_owned && ve.problem.empty())
      sets.emplace_back(ve.replica_nodes.begin(), ve.replica_nodes.end());
  for (auto& s : sets)
    normalize(s);
  auto scores = node_scores(sets);

  auto out = weigh_nodes(in.nodes, scores, usage, p.node_name, ex,
                         [&](const node& n, const node_usage& used) { return rules_on(p, n, used); });
  for (auto& ne : out)
    ne.result = result_of(ne, ex);
  return out;
}

std::optional<pod_explanation> pod_explainer::explain(const std::string& key) const {
  auto p = pods_.find(key);
  if (p == pods_.end())
    return std::nullopt;
  auto ex = summary(key, *p->second);
  if (ex.considered && !ex.volumes.empty())
    ex.nodes = nodes_of(*p->second, ex);
  return ex;
}

std::vector<pod_explanation> pod_explainer::explain_misplaced() const {
  std::vector<pod_explanation> out;
  for (const auto& ev : src_.result.pods)
    if (ev.verdict == "semi" || ev.verdict == "non" || ev.verdict == "error"
        || ev.disp == pod_disposition::skipped)
      if (auto ex = explain(pod_key(ev.namespace_, ev.name)))
        out.push_back(std::move(*ex));
  return out;
}

} // namespace schedopt::pod_hyperconvergence
