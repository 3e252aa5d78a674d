// The explanation reads the evaluation's own result for every decision (verdict,
// disposition, reason, targets) and re-runs only the admission rules, one by one, on
// the room the evaluation judged the VMI against; nothing here decides anew.
#include "model/kinds/vm_hyperconvergence/explanation.hpp"

#include <algorithm>
#include <tuple>

#include "model/placement/cool_off.hpp"
#include "model/placement/scoring.hpp"
#include "model/ownership_labels.hpp"
#include "model/reason.hpp"
#include "model/text_table.hpp"

namespace schedopt {

namespace {

// Rules in the order an operator reads them: the admission rules with "not the current
// node" after the node's own state.
std::vector<rule_result> rules_on(const virtual_machine_instance& vmi, const node& n,
                                  const node_usage& used, const node* source) {
  std::vector<rule_result> out;
  for (const auto& rule : admission_rules()) {
    auto why = rule.check(vmi, n, used, source);
    out.push_back({rule.name, !why, why.value_or("")});
    if (out.size() == 2) {
      bool elsewhere = n.metadata.name != vmi.node_name;
      out.push_back({"notCurrentNode", elsewhere, elsewhere ? "" : "the VMI runs here"});
    }
  }
  return out;
}

std::string result_of(const node_explanation& n, const vmi_explanation& ex) {
  if (n.target)
    return "target";
  if (n.current)
    return "current node";
  if (!n.found)
    return "refused: not found";
  for (const auto& r : n.rules)
    if (!r.passed)
      return "refused: " + r.detail;
  if (n.score <= ex.current_score)
    return "score not above the current node's";
  if (ex.target_score > n.score)
    return "allowed, below the target score " + std::to_string(ex.target_score);
  return "allowed";
}

} // namespace

explainer::explainer(const explanation_sources& sources,
                     std::optional<std::set<std::string>> only)
  : src_(sources), only_(std::move(only)) {
  for (const auto& v : src_.in.vmis)
    if (auto key = vmi_key(v->metadata.namespace_, v->metadata.name); wanted(key))
      vmis_[key] = v.get();
  int64_t position = 0; // result.vmis is in the engine's (namespace, name) order
  for (const auto& ev : src_.result.vmis) {
    auto key = vmi_key(ev.namespace_, ev.name);
    bool passed = ev.disp == disposition::eligible || ev.disp == disposition::outstanding;
    position += passed;
    if (!wanted(key))
      continue;
    evaluations_[key] = &ev;
    if (passed)
      positions_[key] = position;
  }
  for (const auto& v : src_.in.volumes)
    if (auto key = vmi_key(v.namespace_, v.name); wanted(key))
      volumes_[key] = &v;
  std::set<std::string> claims; // of the VMIs indexed, when not all are
  if (only_)
    for (const auto& [key, v] : vmis_)
      for (const auto& vol : v->volumes)
        claims.insert(vmi_key(v->metadata.namespace_, vol.claim_name));
  if (src_.pvcs)
    for (const auto& c : *src_.pvcs)
      if (auto key = vmi_key(c.metadata.namespace_, c.metadata.name); !only_ || claims.count(key))
        pvcs_[key] = &c;
  for (const auto& m : src_.vmims)
    if (!is_final_phase(m.phase) && !m.vmi_name.empty())
      if (auto key = vmi_key(m.metadata.namespace_, m.vmi_name); wanted(key))
        vmims_[key].push_back(&m);
}

vmi_explanation explainer::summary(const std::string& key,
                                   const virtual_machine_instance& vmi) const {
  const auto& in = src_.in;
  vmi_explanation ex;
  ex.namespace_ = vmi.metadata.namespace_;
  ex.name = vmi.metadata.name;
  ex.phase = vmi.phase;
  ex.node = vmi.node_name;
  ex.considered = is_considered(vmi);
  ex.verdict = "not-considered";
  ex.disposition = to_string(disposition::not_candidate);
  if (auto e = evaluations_.find(key); e != evaluations_.end()) {
    const auto& ev = *e->second;
    ex.verdict = ev.verdict;
    ex.disposition = to_string(ev.disp);
    ex.reason = ev.reason;
    ex.best_nodes = ev.best_nodes;
    ex.best_score = ev.best_score;
    ex.current_score = ev.current_score;
    ex.target_nodes = ev.target_nodes; // empty for a VM that stays, as plan shows it
    ex.target_score = ev.target_score;
  }
  const vmi_volumes* owned = nullptr;
  if (auto v = volumes_.find(key); v != volumes_.end()) {
    owned = v->second;
    ex.evaluation_error = owned->error;
  }
  auto replicas_of = [&](volume_explanation& ve) {
    if (auto err = in.replicas.errors.find(ve.persistent_volume); err != in.replicas.errors.end())
      ve.problem = err->second;
    else if (auto r = in.replicas.nodes.find(ve.persistent_volume); r != in.replicas.nodes.end())
      ve.replica_nodes.assign(r->second.begin(), r->second.end());
  };
  if (!src_.pvcs && owned) // no PVCs gathered: the driver PVs the evaluation found
    for (const auto& pv : owned->pvs) {
      volume_explanation ve;
      ve.persistent_volume = pv->metadata.name;
      ve.driver_owned = true;
      replicas_of(ve);
      ex.volumes.push_back(std::move(ve));
    }
  static const std::vector<vmi_volume> none;
  for (const auto& vol : src_.pvcs ? vmi.volumes : none) {
    std::string claim(std::string_view{vol.claim_name});
    if (claim.empty())
      continue; // containerDisk, cloudInit, ...: no PVC behind it
    volume_explanation ve;
    ve.volume = vol.name;
    ve.claim = claim;
    auto pvc = pvcs_.find(vmi_key(vmi.metadata.namespace_, claim));
    if (pvc == pvcs_.end())
      ve.problem = "PVC not found";
    else if (pvc->second->volume_name.empty())
      ve.problem = "PVC not bound";
    else
      ve.persistent_volume = pvc->second->volume_name;
    if (!ve.persistent_volume.empty() && owned) {
      ve.driver_owned = std::any_of(owned->pvs.begin(), owned->pvs.end(), [&](const auto& pv) {
        return pv->metadata.name == ve.persistent_volume;
      });
      replicas_of(ve);
    }
    ex.volumes.push_back(std::move(ve));
  }
  ex.cool_off.period = in.cool_off_period;
  if (auto last = in.last_migration.find(key); last != in.last_migration.end()) {
    ex.cool_off.last_migration = last->second;
    ex.cool_off.eligible_after = eligible_after(last->second, in.cool_off_period);
    ex.cool_off.cooling_off = is_cooling_off(last->second, in.cool_off_period, in.now);
  }
  if (auto m = vmims_.find(key); m != vmims_.end())
    for (const auto* vmim : m->second)
      ex.in_flight.push_back({vmim->metadata.name, vmim->phase, is_schedopt_migration(*vmim)});
  ex.next = src_.next;
  ex.cap.max_non_hyperconverged_per_run = in.max_non_hyperconverged_per_run;
  if (auto p = positions_.find(key); p != positions_.end())
    ex.cap.position = p->second;
  ex.cap.deferred = ex.disposition == to_string(disposition::outstanding);
  return ex;
}

std::vector<node_explanation> explainer::nodes_of(const virtual_machine_instance& vmi,
                                                  const vmi_explanation& ex) const {
  const auto& in = src_.in;
  // The room the evaluation judged this VMI against: what runs (or is migrating) there
  // plus the room held by every eligible candidate judged before it.
  auto usage = in.usage;
  auto order = std::tie(vmi.metadata.namespace_, vmi.metadata.name);
  for (const auto& e : src_.result.eligible) {
    if (std::tie(e.namespace_, e.name) >= order)
      break;
    if (auto v = vmis_.find(vmi_key(e.namespace_, e.name)); v != vmis_.end())
      hold_room(usage, *v->second, e.target_nodes);
  }
  std::vector<replica_nodes> replica_sets;
  for (const auto& ve : ex.volumes)
    if (ve.driver_owned)
      replica_sets.emplace_back(ve.replica_nodes.begin(), ve.replica_nodes.end());
  auto scores = node_scores(replica_sets);

  const node* source = nullptr;
  for (const auto& n : in.nodes)
    if (n.metadata.name == vmi.node_name)
      source = &n;
  auto out = weigh_nodes(in.nodes, scores, usage, vmi.node_name, ex,
                         [&](const node& n, const node_usage& used) {
                           return rules_on(vmi, n, used, source);
                         });
  for (auto& ne : out)
    ne.result = result_of(ne, ex);
  return out;
}

std::optional<vmi_explanation> explainer::explain(const std::string& key) const {
  auto v = vmis_.find(key);
  if (v == vmis_.end())
    return std::nullopt;
  auto ex = summary(key, *v->second);
  if (ex.considered)
    ex.nodes = nodes_of(*v->second, ex);
  return ex;
}

std::vector<vmi_explanation> explainer::explain_misplaced() const {
  std::vector<vmi_explanation> out;
  for (const auto& ev : src_.result.vmis)
    if (ev.verdict == "semi" || ev.verdict == "non" || ev.verdict == "error")
      if (auto ex = explain(vmi_key(ev.namespace_, ev.name)))
        out.push_back(std::move(*ex));
  return out;
}

std::vector<kind_detail> explainer::explained_skips() const {
  std::vector<kind_detail> out = src_.result.skipped;
  for (auto& d : out) {
    auto key = vmi_key(d.namespace_, d.name);
    auto v = vmis_.find(key);
    if (v == vmis_.end())
      continue;
    d.reason = truncate_utf8(d.reason + " | " + brief(summary(key, *v->second)),
                             max_reason_bytes);
  }
  return out;
}

std::vector<kind_detail> explained_skips(const explanation_sources& sources) {
  if (sources.result.skipped.empty())
    return {};
  std::set<std::string> skipped;
  for (const auto& d : sources.result.skipped)
    skipped.insert(vmi_key(d.namespace_, d.name));
  return explainer{sources, std::move(skipped)}.explained_skips();
}

std::string brief(const vmi_explanation& ex) {
  std::string out = ex.verdict + " on " + ex.node;
  if (ex.best_score > 0)
    out += " (score " + std::to_string(ex.current_score) + " of "
           + std::to_string(ex.best_score) + ")";
  for (const auto& v : ex.volumes) {
    if (v.persistent_volume.empty() || !v.driver_owned)
      continue;
    out += "; " + v.persistent_volume + ": "
           + (v.problem.empty() ? join(v.replica_nodes) : v.problem);
  }
  for (const auto& m : ex.in_flight)
    out += "; in flight: " + m.name + " (" + (m.phase.empty() ? "no phase" : m.phase) + ")";
  if (ex.cool_off.last_migration)
    out += "; last migration " + format_rfc3339(*ex.cool_off.last_migration);
  return out;
}

} // namespace schedopt
