// KubeVirt policy actor: the decisions live in model/kubevirt_config; the actor keeps the
// CRs and the waiting count and tells subscribers when what they enforce changes.
#include "actors/kubevirt_policy_actor.hpp"

#include <map>
#include <set>

#include <caf/actor_cast.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/logging.hpp"
#include "actors/system_config.hpp"
#include "k8s/metrics.hpp"
#include "model/kubevirt_config.hpp"

namespace schedopt {

namespace {

struct kubevirt_policy_state {
  static inline const char* name = "kubevirt-policy";
  std::map<std::string, kubevirt_cr> crs; // by namespace/name; in practice kubevirt/kubevirt
  kubevirt_waiting_migrations waiting;
  std::set<std::string> closed; // nodes cordoned or carrying KubeVirt's drain taint
  kubevirt_policy current;
  std::vector<kubevirt_policy_listener> subscribers;
};

using policy_pointer = kubevirt_policy_actor::stateful_pointer<kubevirt_policy_state>;

std::string key_of(const object_meta& m) {
  return m.namespace_ + "/" + m.name;
}

kubevirt_policy policy_of(const kubevirt_policy_state& st) {
  kubevirt_policy p;
  // One KubeVirt per cluster is what its operator allows; should there be more, the
  // first by namespace/name is followed, the same one every time.
  if (!st.crs.empty()) {
    p.cr_seen = true;
    p.limits = migration_limits_of(st.crs.begin()->second);
  }
  p.kubevirt_waiting = static_cast<int64_t>(st.waiting.count());
  p.closed_nodes.assign(st.closed.begin(), st.closed.end());
  return p;
}

void publish(policy_pointer self) {
  auto& st = self->state;
  auto next = policy_of(st);
  bool limits_changed = next.cr_seen != st.current.cr_seen || next.limits != st.current.limits;
  bool closed_changed = next.closed_nodes != st.current.closed_nodes;
  bool yielding = next.kubevirt_waiting > 0;
  bool was_yielding = st.current.kubevirt_waiting > 0;
  k8s::default_metrics().gauge_set("schedopt_kubevirt_waiting_migrations", {},
                                   static_cast<double>(next.kubevirt_waiting));
  st.current = next;
  if (limits_changed) {
    auto& l = next.limits;
    log_kv(spdlog::level::info, "following KubeVirt's migration configuration",
           {{"version", l.version.empty() ? std::string{"unknown"} : l.version},
            {"parallelMigrationsPerCluster", std::to_string(l.parallel_migrations_per_cluster)},
            {"parallelOutboundMigrationsPerNode",
             std::to_string(l.parallel_outbound_migrations_per_node)},
            {"completionTimeoutPerGiB", std::to_string(l.completion_timeout_per_gib)},
            {"progressTimeout", std::to_string(l.progress_timeout_seconds)}});
  }
  if (yielding != was_yielding)
    log_kv(spdlog::level::info,
           yielding ? "KubeVirt's own migrations wait for a slot: no new VMIM until they start"
                    : "no KubeVirt migration waits: VMIMs are created again",
           {{"waiting", std::to_string(next.kubevirt_waiting)}});
  if (closed_changed)
    log_kv(spdlog::level::info, "nodes closed to migration targets (cordoned or draining)",
           {{"nodes", std::to_string(next.closed_nodes.size())}});
  if (!limits_changed && !closed_changed && yielding == was_yielding)
    return; // the count moved but what a listener enforces did not
  for (auto& s : st.subscribers)
    self->send(s, next);
}

void describe_metrics(k8s::metrics_registry& m) {
  m.describe_gauge(
    "schedopt_kubevirt_waiting_migrations",
    "VMIMs KubeVirt itself created (evacuations, workload updates) with no phase yet or "
    "Pending; while above zero schedopt creates no VMIM.");
}

kubevirt_policy_actor::behavior_type kubevirt_policy_behavior(policy_pointer self,
                                                              kubevirt_informer_actor crs,
                                                              vmim_informer_actor vmims,
                                                              node_informer_actor nodes) {
  k8s::default_metrics().describe_once("schedopt_kubevirt_waiting_migrations", describe_metrics);
  self->send(crs, atom::subscribe_v,
             caf::actor_cast<informer_subscriber_actor<kubevirt_cr>>(self));
  self->send(vmims, atom::subscribe_v,
             caf::actor_cast<informer_subscriber_actor<virtual_machine_instance_migration>>(self));
  if (nodes)
    self->send(nodes, atom::subscribe_v, caf::actor_cast<informer_subscriber_actor<node>>(self));
  self->set_down_handler([=](const caf::down_msg& down) {
    auto& subs = self->state.subscribers;
    subs.erase(std::remove_if(subs.begin(), subs.end(),
                              [&](const kubevirt_policy_listener& s) { return s.address() == down.source; }),
               subs.end());
  });
  auto vmim_changed = [=](const virtual_machine_instance_migration& m) {
    if (self->state.waiting.observe(key_of(m.metadata), m))
      publish(self);
  };
  auto node_changed = [=](const node& n) {
    auto& closed = self->state.closed;
    bool was = closed.count(n.metadata.name) > 0;
    bool is = closed_to_migrations(n);
    if (is == was)
      return;
    if (is)
      closed.insert(n.metadata.name);
    else
      closed.erase(n.metadata.name);
    publish(self);
  };
  auto cr_changed = [=](const kubevirt_cr& cr) {
    self->state.crs[key_of(cr.metadata)] = cr;
    publish(self);
  };
  return {
    [=](const object_added<kubevirt_cr>& x) { cr_changed(x.object); },
    [=](const object_updated<kubevirt_cr>& x) { cr_changed(x.object); },
    [=](const object_deleted<kubevirt_cr>& x) {
      self->state.crs.erase(key_of(x.object.metadata));
      publish(self);
    },
    [=](const informer_synced<kubevirt_cr>&) {},
    [=](const object_added<virtual_machine_instance_migration>& x) { vmim_changed(x.object); },
    [=](const object_updated<virtual_machine_instance_migration>& x) { vmim_changed(x.object); },
    [=](const object_deleted<virtual_machine_instance_migration>& x) {
      if (self->state.waiting.erase(key_of(x.object.metadata)))
        publish(self);
    },
    [=](const informer_synced<virtual_machine_instance_migration>&) {},
    [=](const object_added<node>& x) { node_changed(x.object); },
    [=](const object_updated<node>& x) { node_changed(x.object); },
    [=](const object_deleted<node>& x) {
      if (self->state.closed.erase(x.object.metadata.name))
        publish(self);
    },
    [=](const informer_synced<node>&) {},
    [=](atom::subscribe, const kubevirt_policy_listener& s) {
      self->monitor(s);
      self->state.subscribers.push_back(s);
      self->send(s, self->state.current);
    },
  };
}

} // namespace

kubevirt_policy_actor spawn_kubevirt_policy(caf::actor_system& sys, kubevirt_informer_actor crs,
                                            vmim_informer_actor vmims, node_informer_actor nodes) {
  return sys.spawn(kubevirt_policy_behavior, std::move(crs), std::move(vmims), std::move(nodes));
}

} // namespace schedopt
