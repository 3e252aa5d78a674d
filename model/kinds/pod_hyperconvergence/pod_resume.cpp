// Resume accounting for the pod kind (see pod_resume.hpp).
#include "model/kinds/pod_hyperconvergence/pod_resume.hpp"

#include <algorithm>
#include <map>

#include "model/kinds/pod_hyperconvergence/pod_evaluation.hpp"

namespace schedopt::pod_hyperconvergence {

namespace {

template <class Owner>
void read_ledgers(const shared_list<Owner>& owners, workload_kind kind,
                  const std::string& request_uid, const std::string& key,
                  std::vector<std::pair<workload_ref, ledger_entry>>& out) {
  for (const auto& o : owners) {
    auto entries = read_eviction_ledger(o->metadata.annotations, key, request_uid);
    if (entries.empty())
      continue;
    workload_ref w{kind, o->metadata.namespace_, o->metadata.name, std::string(o->metadata.uid)};
    for (auto& e : entries)
      out.emplace_back(w, std::move(e));
  }
}

} // namespace

resume_plan plan_resume(const pod_hyperconvergence_status& recorded,
                        const shared_list<pod>& pods,
                        const shared_list<stateful_set>& stateful_sets,
                        const shared_list<replica_set>& replica_sets,
                        const std::string& request_uid, const std::string& cool_off_key) {
  resume_plan plan;
  // The engine's outcomes: Successful, Failed, and the DisruptionBudget skips (its own,
  // though counted in skipped like the evaluator's). They took slots of the run.
  std::set<std::string> engine_done;
  int64_t named_skips = 0;
  const std::string budget = std::string(to_wire(pod_reason::disruption_budget));
  for (const auto& d : recorded.details) {
    auto key = pod_key(d.namespace_, d.name);
    plan.handled.insert(key);
    if (d.status == pod_result::skipped)
      ++named_skips;
    if (d.status != pod_result::skipped || d.reason.rfind(budget, 0) == 0)
      engine_done.insert(key);
  }
  plan.unnamed_skips = std::max<int64_t>(0, recorded.skipped - named_skips);

  std::vector<std::pair<workload_ref, ledger_entry>> ledger;
  read_ledgers(stateful_sets, workload_kind::stateful_set, request_uid, cool_off_key, ledger);
  read_ledgers(replica_sets, workload_kind::replica_set, request_uid, cool_off_key, ledger);
  std::map<std::string, const pod*> by_key;
  for (const auto& p : pods)
    by_key.emplace(pod_key(p->metadata.namespace_, p->metadata.name), p.get());
  std::set<std::string> adopted;
  for (auto& [owner, entry] : ledger) {
    auto key = pod_key(owner.namespace_, entry.name);
    if (engine_done.count(key) || plan.handled.count(key))
      continue;
    auto i = by_key.find(key);
    const pod* now = i == by_key.end() ? nullptr : i->second;
    if (now && std::string(now->metadata.uid) == entry.uid && !now->metadata.deletion_timestamp) {
      plan.not_evicted.emplace_back(owner, entry.name);
      continue;
    }
    plan.in_flight.push_back(evicted_from_ledger(entry, owner));
    adopted.insert(key);
  }
  // Replacements already there: a ReplicaSet's has a new name and must not be judged a
  // candidate of its own (it would be evicted in turn); the oldest unclaimed new pod of
  // the ReplicaSet answers for each adopted eviction, as the engine will judge it.
  std::set<std::string> claimed;
  for (const auto& e : plan.in_flight) {
    plan.handled.insert(pod_key(e.namespace_, e.name));
    if (e.owner.kind != workload_kind::replica_set)
      continue;
    if (const pod* r = find_replacement(e, pods, claimed)) {
      claimed.insert(std::string(r->metadata.uid));
      plan.handled.insert(pod_key(r->metadata.namespace_, r->metadata.name));
    }
  }
  std::set<std::string> used = engine_done;
  used.insert(adopted.begin(), adopted.end());
  plan.slots_used = static_cast<int64_t>(used.size());
  return plan;
}

std::vector<pod_detail> new_skips(const std::vector<pod_detail>& skips, int64_t unnamed_skips) {
  auto already = static_cast<std::size_t>(
    std::clamp<int64_t>(unnamed_skips, 0, static_cast<int64_t>(skips.size())));
  // Which of them were the unnamed ones cannot be known and does not matter: they have
  // no detail (the details were full), only the count has to be exact.
  return {skips.begin() + static_cast<std::ptrdiff_t>(already), skips.end()};
}

} // namespace schedopt::pod_hyperconvergence
