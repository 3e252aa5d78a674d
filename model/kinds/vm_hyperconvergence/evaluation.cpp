// docs/design.md §2 evaluation: volumes → replica scores → verdict → filters → cap.
#include "model/kinds/vm_hyperconvergence/evaluation.hpp"

#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <tuple>
#include <utility>

#include "model/hashed_names.hpp"
#include "model/placement/cool_off.hpp"
#include "model/placement/target_choice.hpp"
#include "model/reason.hpp"

namespace schedopt {

bool is_considered(const virtual_machine_instance& vmi) {
  return vmi.phase == "Running" && !vmi.node_name.empty();
}

const char* to_string(disposition d) {
  switch (d) {
    case disposition::not_candidate: return "not-candidate";
    case disposition::eligible: return "eligible";
    case disposition::skipped: return "skipped";
    case disposition::outstanding: return "outstanding";
  }
  return "unknown";
}

namespace {

template <class T>
bool by_namespace_name(const T& a, const T& b) {
  return std::tie(a.metadata.namespace_, a.metadata.name)
         < std::tie(b.metadata.namespace_, b.metadata.name);
}

std::vector<const virtual_machine_instance*>
considered_sorted(const shared_list<virtual_machine_instance>& vmis) {
  std::vector<const virtual_machine_instance*> out;
  for (const auto& v : vmis)
    if (is_considered(*v))
      out.push_back(v.get());
  // A store's snapshot is nearly always in this order already (its key order differs
  // only where one namespace is a prefix of another): checked in one pass, not sorted
  // again in n log n string comparisons.
  auto order = [](auto* a, auto* b) { return by_namespace_name(*a, *b); };
  if (!std::is_sorted(out.begin(), out.end(), order))
    std::sort(out.begin(), out.end(), order);
  return out;
}

// Volumes in spec order; the first lookup failure is the VMI's evaluation error, worded
// as the API server words a failed GET so operators recognise it.
vmi_volumes volumes_of(const virtual_machine_instance& vmi,
                       const sorted_objects<persistent_volume_claim>& pvcs,
                       std::size_t& pvc_hint, const name_hash_index<persistent_volume>& pvs,
                       const pv_owned_predicate& owned) {
  vmi_volumes out{vmi.metadata.namespace_, vmi.metadata.name, {}, {}};
  out.pvs.reserve(vmi.volumes.size());
  for (const auto& vol : vmi.volumes) {
    std::string_view claim = vol.claim_name;
    if (claim.empty())
      continue; // containerDisk, cloudInit, ...: no PVC behind it
    auto* pvc = pvcs.find_near(pvc_hint, vmi.metadata.namespace_, claim);
    if (!pvc) {
      out.error = "persistentvolumeclaims \"" + std::string(claim) + "\" not found";
      break;
    }
    const pv_name& bound_to = pvc->volume_name; // found as it is kept: no text written
    if (bound_to.empty()) {
      out.error = "persistentvolumeclaims \"" + std::string(claim) + "\" is not bound to a volume";
      break;
    }
    auto pv = pvs.find_shared(bound_to);
    if (!pv) {
      out.error = "persistentvolumes \"" + bound_to.str() + "\" not found";
      break;
    }
    if (owned && owned(*pv))
      out.pvs.push_back(std::move(pv));
  }
  if (!out.error.empty())
    out.pvs.clear();
  auto by_name = [](const auto& a, const auto& b) { return a->metadata.name < b->metadata.name; };
  auto same = [](const auto& a, const auto& b) { return a->metadata.name == b->metadata.name; };
  std::sort(out.pvs.begin(), out.pvs.end(), by_name);
  out.pvs.erase(std::unique(out.pvs.begin(), out.pvs.end(), same), out.pvs.end());
  out.pvs.shrink_to_fit();
  return out;
}

// Whether `node` holds as many of the volumes' replicas as any node does: score_placement's
// hyperconverged verdict, without its maps. Node names are shared strings (one copy per
// name), so they compare by address.
bool on_a_best_node(const std::vector<const replica_nodes*>& sets, const shared_string& node) {
  auto score = [&](const shared_string& n) {
    int s = 0;
    for (auto* set : sets)
      s += std::find(set->begin(), set->end(), n) != set->end() ? 1 : 0;
    return s;
  };
  int current = score(node);
  for (auto* set : sets)
    for (const auto& n : *set)
      if (score(n) > current)
        return false;
  return true;
}

const condition* find_condition(const virtual_machine_instance& vmi, const char* type) {
  for (const auto& c : vmi.conditions)
    if (c.type == type)
      return &c;
  return nullptr;
}

// Returns the skip reason, or "" when every filter lets the candidate through.
std::string first_blocking_filter(const virtual_machine_instance& vmi,
                                  const target_set& targets, const evaluation_input& in) {
  std::string key = vmi_key(vmi.metadata.namespace_, vmi.metadata.name);
  if (in.excluded_namespaces.count(vmi.metadata.namespace_))
    return make_reason(reason_kind::opted_out, "namespace " + vmi.metadata.namespace_ + " is excluded");
  if (in.opted_out_namespaces.count(vmi.metadata.namespace_))
    return make_reason(reason_kind::opted_out, "namespace " + vmi.metadata.namespace_ + " labelled " +
                                                 opt_out_label + "=true");
  if (vmi.controller_vm.empty() ? vmi.opted_out
                                : in.opted_out_vms.count(vmi_key(vmi.metadata.namespace_, vmi.controller_vm)) > 0)
    return make_reason(reason_kind::opted_out, std::string("labelled ") + opt_out_label + "=true");
  if (auto* c = find_condition(vmi, "LiveMigratable"); c && c->status == "False")
    return make_reason(reason_kind::not_live_migratable,
                       !c->reason.empty() ? c->reason : c->message);
  if (auto it = in.in_flight.find(key); it != in.in_flight.end())
    return make_reason(reason_kind::migration_in_progress,
                       "vmim=" + vmi.metadata.namespace_ + "/" + it->second);
  if (auto it = in.last_migration.find(key);
      it != in.last_migration.end() && is_cooling_off(it->second, in.cool_off_period, in.now))
    return make_reason(reason_kind::cooling_off,
                       "eligible after "
                         + format_rfc3339(eligible_after(it->second, in.cool_off_period)));
  if (targets.nodes.empty())
    return make_reason(reason_kind::no_target_node, no_target_detail(targets.best_refusals));
  return {};
}

} // namespace

volume_mapper::volume_mapper(sorted_objects<persistent_volume_claim> pvcs,
                             sorted_objects<persistent_volume> pvs, pv_owned_predicate owned)
    : pvcs_(std::move(pvcs)), pvs_(std::move(pvs)), pvs_by_name_(pvs_), owned_(std::move(owned)) {}

// VMIs come in key order and their claims mostly follow it ("<vm>-rootdisk"): each PVC
// is searched from where the last one was. PVs are found by a hash of their name.
vmi_volumes volume_mapper::map(const virtual_machine_instance& vmi) {
  return volumes_of(vmi, pvcs_, pvc_hint_, pvs_by_name_, owned_);
}

std::vector<vmi_volumes> driver_volumes_of(const shared_list<virtual_machine_instance>& vmis,
                                           const sorted_objects<persistent_volume_claim>& pvcs,
                                           const sorted_objects<persistent_volume>& pvs,
                                           const pv_owned_predicate& owned) {
  auto considered = considered_sorted(vmis);
  std::vector<vmi_volumes> out;
  out.reserve(considered.size()); // one per VMI: growing would hold up to 1.5 times as many
  volume_mapper mapper{pvcs, pvs, owned};
  for (auto* vmi : considered)
    out.push_back(mapper.map(*vmi));
  return out;
}

void replica_map::index_positions(shared_list<persistent_volume> asked) {
  if (asked.size() > UINT32_MAX)
    throw std::length_error("replica_map: more PVs asked than positions fit");
  asked_ = std::move(asked);
  by_address_.resize(asked_.size());
  for (std::size_t i = 0; i < by_address_.size(); ++i)
    by_address_[i] = static_cast<uint32_t>(i);
  std::sort(by_address_.begin(), by_address_.end(), [this](uint32_t a, uint32_t b) {
    return std::less<const persistent_volume*>()(asked_[a].get(), asked_[b].get());
  });
}

void replica_map::clear_positions() {
  asked_.clear();
  by_address_ = {};
}

std::optional<std::size_t> replica_map::position_of(const persistent_volume& pv) const {
  auto before = [this](uint32_t i, const persistent_volume* p) {
    return std::less<const persistent_volume*>()(asked_[i].get(), p);
  };
  auto at = std::lower_bound(by_address_.begin(), by_address_.end(), &pv, before);
  if (at == by_address_.end() || asked_[*at].get() != &pv)
    return std::nullopt;
  return *at;
}

std::map<std::string, std::string>
in_flight_migrations_by_vmi(const std::vector<virtual_machine_instance_migration>& vmims) {
  std::map<std::string, std::string> out;
  for (const auto& m : vmims)
    if (!is_final_phase(m.phase) && !m.vmi_name.empty())
      out.emplace(vmi_key(m.metadata.namespace_, m.vmi_name), m.metadata.name);
  return out;
}

void hold_room(std::map<std::string, node_usage>& usage, const virtual_machine_instance& vmi,
               const std::vector<std::string>& targets) {
  // The engine may send it to any of its targets: each keeps room for it, so no
  // migration of this run waits in Scheduling for room another one took.
  auto asked = pod_requests(vmi);
  for (const auto& t : targets) {
    usage[t].cpu_millis += asked.cpu_millis.value_or(0);
    usage[t].memory_bytes += asked.memory_bytes.value_or(0);
  }
}

// The evaluation's working state: what evaluate() kept in locals, kept between batches.
struct evaluator::state {
  const evaluation_input& in;
  // in.volumes is in the order VMIs are judged in: read in step with them, not indexed.
  std::vector<const vmi_volumes*> volumes;
  std::vector<const vmi_volumes*>::const_iterator next_volumes;
  std::map<std::string, node_readiness> readiness;
  std::map<std::string, const node*> nodes;
  std::map<std::string, node_usage> usage; // in.usage plus what eligible candidates may take
  int64_t cap;
  std::vector<const virtual_machine_instance*> considered;
  std::size_t next = 0; // the next of `considered` to judge
  // The driver's answer found by PV name through a hash, one entry per PV, where a
  // binary search of the flat map read a key's heap block per probe.
  hashed_names answered;
  std::vector<const replica_nodes*> found_sets; // reused: no allocation per VMI
  vmi_volumes mapped;                           // in.mapper's answer for the VMI judged
  evaluation_result out;
  std::vector<const virtual_machine_instance*> eligible_vmis;

  explicit state(const evaluation_input& input);
  std::optional<std::string_view> answer_pv(std::size_t i) const {
    return std::string_view(in.replicas.nodes.nth(i)->first);
  }
  hashed_names index_answer() const {
    return hashed_names(in.replicas.nodes.size(), [this](std::size_t i) { return answer_pv(i); });
  }
  const vmi_volumes* volumes_of_vmi(std::string_view ns, std::string_view name);
  const replica_nodes* replicas_of(const persistent_volume& pv) const;
  void skip(vmi_evaluation& ev, std::string reason);
  void judge(const virtual_machine_instance& vmi);
};

namespace {

auto volumes_key(const vmi_volumes* v) { return std::tie(v->namespace_, v->name); }

} // namespace

evaluator::state::state(const evaluation_input& input)
    : in(input), usage(input.usage),
      cap(std::max<int64_t>(input.max_non_hyperconverged_per_run, 0)),
      considered(considered_sorted(input.vmis)),
      answered(index_answer()) {
  volumes.reserve(in.volumes.size());
  for (const auto& v : in.volumes)
    volumes.push_back(&v);
  auto volume_order = [](const vmi_volumes* a, const vmi_volumes* b) {
    return volumes_key(a) < volumes_key(b);
  };
  if (!std::is_sorted(volumes.begin(), volumes.end(), volume_order))
    std::sort(volumes.begin(), volumes.end(), volume_order);
  next_volumes = volumes.begin();
  for (const auto& n : in.nodes) {
    readiness[n.metadata.name] = node_readiness{n.ready, !n.unschedulable};
    nodes[n.metadata.name] = &n;
  }
  if (in.every_vmi)
    out.vmis.reserve(considered.size());
}

const vmi_volumes* evaluator::state::volumes_of_vmi(std::string_view ns, std::string_view name) {
  auto key = std::tie(ns, name);
  while (next_volumes != volumes.end() && volumes_key(*next_volumes) < key)
    ++next_volumes;
  if (next_volumes != volumes.end() && volumes_key(*next_volumes) == key)
    return *next_volumes;
  return nullptr;
}

// The driver's answer for one PV, by position when it answered so, else by name.
const replica_nodes* evaluator::state::replicas_of(const persistent_volume& pv) const {
  const auto& r = in.replicas;
  if (r.has_positions()) {
    auto at = r.position_of(pv);
    if (!at || *at >= r.by_position.size())
      return nullptr;
    return &r.by_position[*at];
  }
  auto at = answered.find(pv.metadata.name.str(), [this](std::size_t i) { return answer_pv(i); });
  return at ? &r.nodes.nth(*at)->second : nullptr;
}

void evaluator::state::skip(vmi_evaluation& ev, std::string reason) {
  ev.disp = disposition::skipped;
  ev.reason = std::move(reason);
  out.skipped.push_back({ev.name, ev.namespace_, detail_status::skipped, ev.reason});
  ++out.counts.skipped;
}

void evaluator::state::judge(const virtual_machine_instance& vmi) {
  auto& counts = out.counts;
  ++counts.considered;
  const vmi_volumes* vols = in.mapper ? &(mapped = in.mapper->map(vmi))
                                      : volumes_of_vmi(vmi.metadata.namespace_, vmi.metadata.name);
  std::string error = vols ? vols->error : std::string();
  found_sets.clear();
  if (error.empty() && vols) {
    for (const auto& owned : vols->pvs) {
      if (!in.replicas.errors.empty()) { // a PV's name is text only when asked for
        auto e = in.replicas.errors.find(owned->metadata.name.str());
        if (e != in.replicas.errors.end()) {
          error = e->second;
          break;
        }
      }
      auto* set = replicas_of(*owned);
      if (!set) {
        error = "storage driver returned no replica nodes for volume \"" + owned->metadata.name.str()
                + "\"";
        break;
      }
      found_sets.push_back(set);
    }
  }
  // A controller run reports nothing of a VMI already on a best node (nearly all of them
  // in a large fleet): it is counted without building its scores and strings.
  if (!in.every_vmi && error.empty() && !found_sets.empty()
      && on_a_best_node(found_sets, vmi.node_name)) {
    ++counts.hyperconverged;
    return;
  }
  vmi_evaluation ev;
  ev.namespace_ = vmi.metadata.namespace_;
  ev.name = vmi.metadata.name;
  ev.node = vmi.node_name;
  std::vector<replica_nodes> replica_sets;
  replica_sets.reserve(found_sets.size());
  for (auto* set : found_sets)
    replica_sets.push_back(*set);
  if (!error.empty()) {
    ev.verdict = "error";
    ++counts.errors;
    skip(ev, make_reason(reason_kind::evaluation_error, error));
    out.vmis.push_back(std::move(ev));
    return;
  }
  if (replica_sets.empty()) {
    ev.verdict = "none";
    ++counts.no_driver_volumes;
    if (in.every_vmi)
      out.vmis.push_back(std::move(ev));
    return;
  }
  placement_verdict pv = score_placement(replica_sets, ev.node, readiness);
  bool candidate = is_candidate(pv);
  record_placement(std::move(pv), ev, counts);
  target_set targets;
  if (candidate) {
    for (auto& set : replica_sets)
      for (auto& n : set)
        ev.replica_holders.push_back(n.str());
    std::sort(ev.replica_holders.begin(), ev.replica_holders.end());
    ev.replica_holders.erase(std::unique(ev.replica_holders.begin(), ev.replica_holders.end()),
                             ev.replica_holders.end());
    targets = admissible_targets(vmi, replica_sets, nodes, usage);
    ev.target_nodes = targets.nodes;
    ev.target_score = targets.score;
    ev.refusals = targets.best_refusals;
  }
  if (candidate) {
    if (auto reason = first_blocking_filter(vmi, targets, in); !reason.empty()) {
      skip(ev, std::move(reason));
    } else if (counts.eligible < cap) {
      ev.disp = disposition::eligible;
      ++counts.eligible;
      hold_room(usage, vmi, ev.target_nodes);
      out.eligible.push_back(ev);
      eligible_vmis.push_back(&vmi);
    } else {
      ev.disp = disposition::outstanding;
      ++counts.outstanding;
      out.outstanding.push_back(vmi_key(ev.namespace_, ev.name));
    }
  }
  if (in.every_vmi || ev.disp != disposition::not_candidate)
    out.vmis.push_back(std::move(ev));
}

evaluator::evaluator(const evaluation_input& in) : s_(std::make_unique<state>(in)) {}

evaluator::~evaluator() = default;

bool evaluator::advance(std::size_t n) {
  auto& s = *s_;
  for (; n > 0 && s.next < s.considered.size(); --n)
    s.judge(*s.considered[s.next++]);
  return !done();
}

bool evaluator::done() const { return s_->next == s_->considered.size(); }

const virtual_machine_instance* evaluator::upcoming() const {
  return done() ? nullptr : s_->considered[s_->next];
}

void evaluator::replicas_replaced() {
  s_->answered = s_->index_answer();
}

const evaluation_result& evaluator::result() const { return s_->out; }

const virtual_machine_instance& evaluator::eligible_vmi(std::size_t i) const {
  return *s_->eligible_vmis.at(i);
}

evaluation_result evaluator::take_result() {
  s_->next = s_->considered.size();
  return std::move(s_->out);
}

evaluation_result evaluate(const evaluation_input& in) {
  evaluator e{in};
  e.advance(std::numeric_limits<std::size_t>::max());
  return e.take_result();
}

} // namespace schedopt
