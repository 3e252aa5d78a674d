// Replacement pods of an eviction and the outcome they make (see replacement.hpp).
#include "model/kinds/pod_hyperconvergence/replacement.hpp"

#include <algorithm>

#include "model/kinds/pod_hyperconvergence/pod_reason.hpp"

namespace schedopt::pod_hyperconvergence {

const char* to_string(replacement_state s) {
  switch (s) {
    case replacement_state::waiting: return "waiting";
    case replacement_state::successful: return "successful";
    case replacement_state::failed: return "failed";
  }
  return "unknown";
}

namespace {

bool controlled_by(const pod& p, const workload_ref& w) {
  auto owner = workload_of(p);
  return owner && owner->kind == w.kind && owner->name == w.name
         && (w.uid.empty() || owner->uid.empty() || owner->uid == w.uid);
}

// creationTimestamp has whole seconds: a pod created in the second of the eviction
// counts as created after it.
bool created_since(const pod& p, timestamp since) {
  auto created = parse_rfc3339(p.metadata.creation_timestamp);
  return created && *created >= std::chrono::floor<std::chrono::seconds>(since);
}

const pod* old_pod(const evicted_pod& e, const shared_list<pod>& pods) {
  for (const auto& p : pods)
    if (p->metadata.namespace_ == e.namespace_ && p->metadata.name == e.name
        && p->metadata.uid == e.uid)
      return p.get();
  return nullptr;
}

std::string waited(duration timeout) { return " after " + format_go_duration(timeout); }

std::string not_ready_detail(const evicted_pod& e, const pod* replacement, const pod* old,
                             duration timeout) {
  if (!replacement) {
    if (old)
      return e.name + " still terminating" + waited(timeout) + ", no replacement yet";
    return "no replacement of " + e.name + waited(timeout);
  }
  std::string who = replacement->metadata.name;
  if (replacement->metadata.deletion_timestamp)
    return who + " terminating" + waited(timeout);
  if (replacement->node_name.empty()) {
    std::string out = who + " not scheduled" + waited(timeout);
    if (auto* c = find_condition(*replacement, "PodScheduled"); c && c->status != "True") {
      if (!c->reason.empty())
        out += ": " + c->reason;
      if (!c->message.empty())
        out += (c->reason.empty() ? ": " : " (") + c->message + (c->reason.empty() ? "" : ")");
    }
    return out;
  }
  std::string out = who + " on " + replacement->node_name + " not Ready" + waited(timeout);
  out += ": phase " + (replacement->phase.empty() ? std::string("unknown") : replacement->phase);
  if (auto* c = find_condition(*replacement, "Ready"); c && !c->reason.empty())
    out += ", " + c->reason + (c->message.empty() ? "" : " (" + c->message + ")");
  return out;
}

} // namespace

evicted_pod eviction_record(const eviction_candidate& c, timestamp first_attempt) {
  evicted_pod e;
  e.namespace_ = c.target->metadata.namespace_;
  e.name = c.target->metadata.name;
  e.uid = c.target->metadata.uid;
  e.owner = c.owner;
  e.evicted_at = first_attempt;
  e.best_nodes = c.best_nodes;
  return e;
}

const pod* find_replacement(const evicted_pod& e, const shared_list<pod>& pods,
                            const std::set<std::string>& claimed_uids) {
  const pod* best = nullptr;
  for (const auto& shared : pods) {
    const pod& p = *shared;
    if (p.metadata.namespace_ != e.namespace_ || p.metadata.uid == e.uid)
      continue;
    if (e.owner.kind == workload_kind::stateful_set) {
      if (p.metadata.name == e.name && controlled_by(p, e.owner))
        return &p;
      continue;
    }
    if (!controlled_by(p, e.owner) || claimed_uids.count(p.metadata.uid)
        || !created_since(p, e.evicted_at))
      continue;
    auto key = [](const pod* x) {
      return std::tie(x->metadata.creation_timestamp, x->metadata.name);
    };
    if (!best || key(&p) < key(best))
      best = &p;
  }
  return best;
}

replacement_verdict judge_replacement(const evicted_pod& e, const shared_list<pod>& pods,
                                      timestamp now, duration ready_timeout,
                                      const std::set<std::string>& claimed_uids) {
  replacement_verdict out;
  const pod* r = find_replacement(e, pods, claimed_uids);
  if (r) {
    out.pod_name = r->metadata.name;
    out.pod_uid = r->metadata.uid;
    out.node = r->node_name;
    if (is_ready(*r) && !r->node_name.empty() && !r->metadata.deletion_timestamp) {
      bool on_best = std::find(e.best_nodes.begin(), e.best_nodes.end(), r->node_name)
                     != e.best_nodes.end();
      out.state = on_best ? replacement_state::successful : replacement_state::failed;
      if (!on_best)
        out.reason = make_pod_reason(pod_reason::rescheduled_off_replica, r->node_name);
      return out;
    }
  }
  auto deadline = e.evicted_at + std::chrono::duration_cast<timestamp::duration>(ready_timeout);
  if (now < deadline)
    return out;
  out.state = replacement_state::failed;
  out.reason = make_pod_reason(pod_reason::replacement_not_ready,
                               not_ready_detail(e, r, old_pod(e, pods), ready_timeout));
  return out;
}

} // namespace schedopt::pod_hyperconvergence
