// Label selectors, conditions and owners of the pod kind's objects.
#include "model/kinds/pod_hyperconvergence/pod_objects.hpp"

#include <algorithm>

namespace schedopt::pod_hyperconvergence {

namespace {

/// apimachinery labels.NewRequirement's validation, for the operators a LabelSelector
/// may use.
bool valid(const label_requirement& r) {
  if (r.op == "In" || r.op == "NotIn")
    return !r.values.empty();
  if (r.op == "Exists" || r.op == "DoesNotExist")
    return r.values.empty();
  return false;
}

bool holds(const label_requirement& r, const string_map& labels) {
  auto it = labels.find(r.key);
  bool has = it != labels.end();
  auto listed = [&] {
    return has && std::find(r.values.begin(), r.values.end(), it->second) != r.values.end();
  };
  if (r.op == "In")
    return listed();
  if (r.op == "NotIn")
    return !listed();
  if (r.op == "Exists")
    return has;
  return !has; // DoesNotExist
}

} // namespace

bool is_empty(const label_selector& s) {
  return s.match_labels.empty() && s.match_expressions.empty();
}

bool selects(const label_selector& s, const string_map& labels) {
  if (!s.present)
    return false;
  for (const auto& r : s.match_expressions)
    if (!valid(r))
      return false;
  for (const auto& [key, value] : s.match_labels) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value)
      return false;
  }
  return std::all_of(s.match_expressions.begin(), s.match_expressions.end(),
                     [&](const label_requirement& r) { return holds(r, labels); });
}

std::string_view scheduler_of(const pod& p) {
  if (p.scheduler_name.empty())
    return default_scheduler_name;
  return p.scheduler_name;
}

const condition* find_condition(const pod& p, std::string_view type) {
  for (const auto& c : p.conditions)
    if (c.type == type)
      return &c;
  return nullptr;
}

bool is_ready(const pod& p) {
  auto* c = find_condition(p, "Ready");
  return c && c->status == "True";
}

const owner_reference* controller_of(const object_meta& meta) {
  for (const auto& ref : meta.owner_references)
    if (ref.controller)
      return &ref;
  return nullptr;
}

std::string_view to_string(workload_kind k) {
  return k == workload_kind::stateful_set ? "StatefulSet" : "ReplicaSet";
}

std::optional<workload_ref> workload_of(const pod& p) {
  auto* owner = controller_of(p.metadata);
  if (!owner || owner->api_version != "apps/v1")
    return std::nullopt;
  workload_ref out;
  if (owner->kind == "StatefulSet")
    out.kind = workload_kind::stateful_set;
  else if (owner->kind == "ReplicaSet")
    out.kind = workload_kind::replica_set;
  else
    return std::nullopt;
  out.namespace_ = p.metadata.namespace_;
  out.name = owner->name;
  out.uid = owner->uid;
  return out;
}

std::string describe(const workload_ref& w) {
  return std::string(to_string(w.kind)) + " " + w.namespace_ + "/" + w.name;
}

std::vector<const pod_disruption_budget*>
covering_budgets(const pod& p, const std::vector<pod_disruption_budget>& budgets) {
  std::vector<const pod_disruption_budget*> out;
  for (const auto& b : budgets)
    if (b.metadata.namespace_ == p.metadata.namespace_ && !is_empty(b.selector)
        && selects(b.selector, p.metadata.labels))
      out.push_back(&b);
  return out;
}

} // namespace schedopt::pod_hyperconvergence
