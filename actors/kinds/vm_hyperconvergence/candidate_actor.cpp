// Candidate actor. The VMIM body and reasons come from
// model/kinds/vm_hyperconvergence/vmim_outcome; the cool-off record from
// model/kinds/vm_hyperconvergence/cool_off.
#include "actors/kinds/vm_hyperconvergence/candidate_actor.hpp"

#include <algorithm>
#include <optional>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "actors/clock.hpp"
#include "actors/kinds/vm_hyperconvergence/vm_services.hpp"
#include "actors/kinds/vm_hyperconvergence/vmim_watch_actor.hpp"
#include "actors/logging.hpp"
#include "actors/system_config.hpp"
#include "k8s/metrics.hpp"
#include "model/decode.hpp"
#include "model/placement/cool_off.hpp"
#include "model/kinds/vm_hyperconvergence/spec.hpp"
#include "model/kinds/vm_hyperconvergence/vmim_outcome.hpp"
#include "model/kubevirt_config.hpp"

namespace schedopt {

namespace {

struct candidate_state {
  static inline const char* name = "candidate";
  controller_context ctx;
  vm_hyperconvergence_actor kind;
  supervisor_actor supervisor;
  candidate_plan plan;
  std::string target;     // the node admission pinned it to ("" unpinned)
  kubevirt_policy kubevirt; // KubeVirt's configuration at admission
  bool pin_pruned = false; // KubeVirt dropped the pin from the created VMIM (before 1.6)
  std::string vmim;                    // the VMIM followed, once created or adopted
  std::optional<timestamp> vmim_created; // its creationTimestamp
  bool record_pending = false;           // the cool-off patch is not answered yet
  // Not migrated (a failed create, a VMIM given up for a backup): the result waits for
  // the record to land, then restores it.
  std::optional<std::pair<detail_status, std::string>> finish_after_record;
  bool finished = false;
};

using candidate_pointer = candidate_actor::stateful_pointer<candidate_state>;

/// The keys of every log line about this candidate.
log_fields vm_fields(const candidate_state& st) {
  return {{"request", st.plan.request_name},
          {"namespace", st.plan.vmi.metadata.namespace_},
          {"vmi", st.plan.vmi.metadata.name},
          {"vmim", st.vmim}};
}

log_fields vm_fields(const candidate_state& st, log_fields more) {
  auto out = vm_fields(st);
  out.insert(out.end(), more.begin(), more.end());
  return out;
}

void describe_migration_metrics() {
  k8s::default_metrics().describe_once("schedopt_migration_duration_seconds", [](auto& m) {
    m.describe_histogram(
      "schedopt_migration_duration_seconds",
      "Seconds from a schedopt VMIM's creation to its final outcome, by outcome.",
      {5, 10, 30, 60, 120, 300, 600, 1800, 3600});
  });
}

/// What `kubectl describe vmi` shows: why the VM moved, or why it did not.
void record_vmi_event(candidate_pointer self, const char* type, const char* reason,
                      std::string message) {
  auto& st = self->state;
  if (!st.ctx.events)
    return;
  self->send(st.ctx.events,
             event_record{vmi_reference(st.plan.vmi), type, reason, std::move(message)});
}

/// Where the migration was meant to go, as the log and events say it.
std::string intended_target(const candidate_state& st) {
  return st.target.empty() || st.pin_pruned ? std::string{"a node KubeVirt chooses"} : st.target;
}

/// Every success is checked against where the VM landed: an unpinned migration (or a
/// KubeVirt that ignored the pin) may put it on a node holding none of its replicas.
/// Still KubeVirt's success, so still Successful; said on the VMI and counted.
void check_landing(candidate_pointer self, const std::string& landed_on) {
  auto& st = self->state;
  auto& holders = st.plan.replica_holders;
  if (landed_on.empty() || holders.empty()
      || std::binary_search(holders.begin(), holders.end(), landed_on))
    return;
  k8s::default_metrics().describe_once("schedopt_migrations_off_replica_total", [](auto& m) {
    m.describe_counter(
      "schedopt_migrations_off_replica_total",
      "Successful schedopt migrations whose VM landed on a node holding none of its "
      "replicas (unpinned: KubeVirt before 1.6).");
  });
  k8s::default_metrics().counter_add("schedopt_migrations_off_replica_total", {});
  std::string list;
  for (auto& n : holders)
    list += (list.empty() ? "" : ",") + n;
  log_kv(spdlog::level::warn, "migrated to a node holding none of its replicas",
         vm_fields(st, {{"node", landed_on}, {"replicas", list}}));
  record_vmi_event(self, "Warning", "MigratedOffReplica",
                   "live migration " + st.vmim + " for request " + st.plan.request_name
                     + " moved the VM to " + landed_on + ", which holds none of its replicas ("
                     + list + ")");
}

void finish(candidate_pointer self, detail_status status, const std::string& reason,
            const std::string& landed_on = {}) {
  auto& st = self->state;
  if (st.finished)
    return;
  st.finished = true;
  auto& vmi = st.plan.vmi.metadata;
  kind_detail detail{vmi.name, vmi.namespace_, status, reason};
  self->send(st.ctx.status, detail_result{st.plan.request_uid, vm_hyperconvergence_kind, detail});
  self->send(st.supervisor, migration_finished{vmi.namespace_, vmi.name, st.target});
  self->send(st.kind, candidate_done{vmi.namespace_, vmi.name, status});
  k8s::default_metrics().counter_add("schedopt_migrations_total", {{"outcome", to_string(status)}});
  if (st.vmim_created && status != detail_status::skipped) { // a skipped VMIM never ran
    describe_migration_metrics();
    auto took = std::chrono::duration<double>(actor_now(self) - *st.vmim_created).count();
    auto outcome = status == detail_status::successful ? "successful" : "failed";
    k8s::default_metrics().observe("schedopt_migration_duration_seconds",
                                   {{"outcome", outcome}}, std::max(0.0, took));
  }
  if (status == detail_status::failed) {
    log_kv(spdlog::level::warn, "migration failed", vm_fields(st, {{"error", reason}}));
    record_vmi_event(self, "Warning", "MigrationFailed",
                     "live migration" + (st.vmim.empty() ? std::string{} : " " + st.vmim)
                       + " for request " + st.plan.request_name + " failed: " + reason);
  } else if (status == detail_status::skipped) {
    log_kv(spdlog::level::info, st.vmim.empty() ? "skipped at admission" : "skipped; vmim given up", vm_fields(st, {{"reason", reason}}));
  } else {
    auto where = landed_on.empty() ? st.target : landed_on;
    log_kv(spdlog::level::info,
           "migrated to " + (where.empty() ? std::string{"a node KubeVirt chose"} : where),
           vm_fields(st, {{"node", where}}));
    check_landing(self, landed_on);
  }
  self->quit();
}

/// migrationTimeout when set explicitly, else the bound KubeVirt's migration monitor
/// puts on this VM (docs/design.md §3.2), else (no KubeVirt CR read) the setting's default.
duration migration_timeout(const candidate_state& st) {
  auto& cfg = st.ctx.config;
  std::optional<duration> configured;
  if (cfg.migration_timeout_explicit)
    configured = cfg.migration_timeout;
  std::optional<kubevirt_migration_limits> limits;
  if (st.kubevirt.cr_seen)
    limits = st.kubevirt.limits;
  return migration_timeout_for(st.plan.vmi, configured, limits, cfg.migration_timeout);
}

/// `known`: the VMIM as found (adopted), classified before any timeout can fire.
void start_watching(candidate_pointer self, const virtual_machine_instance_migration& vmim,
                    bool known) {
  auto& st = self->state;
  st.vmim = vmim.metadata.name;
  if (auto created = parse_rfc3339(vmim.metadata.creation_timestamp))
    st.vmim_created = *created;
  log_kv(spdlog::level::debug, "watching vmim", vm_fields(st));
  vmim_watch_target t{st.plan.vmi.metadata.namespace_, vmim.metadata.name, vmim.metadata.uid,
                      migration_timeout(st), std::nullopt};
  if (known)
    t.known = vmim;
  spawn_vmim_watch(self, st.ctx, self, std::move(t));
}

/// The cool-off holder as the record's patch answered it goes to its informer at once:
/// the next run reads this record even while the watch event is still on its way.
void feed_own_write(candidate_pointer self, const cool_off_holder& holder,
                    const std::string& body) {
  auto& ctx = self->state.ctx;
  auto same = [&](const object_identity& m) {
    return m.namespace_ == holder.namespace_ && m.name == holder.name;
  };
  if (holder.kind == "VirtualMachine") {
    auto vms = vm_informer_of(ctx);
    if (auto vm = decode<virtual_machine>(body); vms && vm && same(vm->metadata))
      self->send(vms, atom::observed_v, std::move(*vm));
  } else if (auto vmi = decode_vmi(body); ctx.vmis && vmi && same(vmi->metadata)) {
    self->send(ctx.vmis, atom::observed_v, std::move(*vmi));
  }
}

/// The VM was not migrated (the create failed for good, or its VMIM was given up), so it
/// must not cool off. The record goes back to what it was before this run wrote it, then
/// the VM is reported.
void restore_cool_off_then_finish(candidate_pointer self, detail_status status,
                                  const std::string& reason) {
  auto& st = self->state;
  if (st.record_pending) {
    // Restoring before the record lands would be undone by it.
    st.finish_after_record.emplace(status, reason);
    return;
  }
  auto holder = cool_off_holder_of(st.plan.vmi);
  auto res = holder.kind == "VirtualMachine" ? k8s::resources::vms : k8s::resources::vmis;
  auto body = cool_off_restore_patch(st.ctx.config.vm_cool_off_annotation,
                                     st.plan.cool_off_before).dump();
  k8s::patch_request req{res, holder.namespace_, holder.name, body, false, false};
  self->request(st.ctx.api, caf::infinite, std::move(req))
    .then(
      [=](const k8s::api_response& resp) {
        feed_own_write(self, holder, resp.body);
        finish(self, status, reason);
      },
          [=](caf::error& err) {
            // Costs the VM one cool-off window at most; the result is reported anyway.
            log_kv(spdlog::level::warn,
                   "cool-off record on " + holder.kind + " " + holder.name + " not restored",
                   vm_fields(self->state, {{"error", error_message(err)}}));
            finish(self, status, reason);
          });
}

/// The VMIM this candidate created is on its way: `kubectl describe vmi` says so.
void announce_migration(candidate_pointer self) {
  auto& st = self->state;
  log_kv(spdlog::level::debug, "created vmim", vm_fields(st, {{"node", st.target}}));
  record_vmi_event(self, "Normal", "Migrating",
                   "live migration " + st.vmim + " from " + st.plan.vmi.node_name + " to "
                     + intended_target(st) + " for request " + st.plan.request_name);
}

// A create that failed may still have created the VMIM: its answer was lost after the
// API server stored it, and the API client's replay (the name is fixed, so a replay is
// harmless) met 409 AlreadyExists, or admission refused the replay as a second migration
// of the VMI, or the client gave up. The name is fixed per request and VMI, so look it up
// (a GET reads the stored object, never a cache behind the create) and adopt it if it
// carries this request's uid: it is this candidate's own, and is never created again.
void adopt_or_fail(candidate_pointer self, const std::string& name, const caf::error& create_err) {
  auto& st = self->state;
  auto reason = create_failed_reason(error_message(create_err));
  self->request(st.ctx.api, caf::infinite,
                k8s::get_request{k8s::resources::vmims, st.plan.vmi.metadata.namespace_, name, {}})
    .then(
      [=](const k8s::api_response& resp) {
        auto found = decode_vmim(resp.body);
        if (found) {
          auto& l = found->metadata.labels;
          auto uid = l.find(labels::request_uid);
          if (uid != l.end() && uid->second == self->state.plan.request_uid) {
            start_watching(self, *found, true);
            log_kv(spdlog::level::info, "adopted the vmim a failed create made",
                   vm_fields(self->state, {{"error", error_message(create_err)}}));
            return announce_migration(self);
          }
        }
        restore_cool_off_then_finish(self, detail_status::failed, reason);
      },
      [=](caf::error& err) {
        // Not found: the create really failed. Any other error leaves the question open,
        // so the record stays (erring on the side of waiting).
        if (error_code(err) == ec::not_found)
          return restore_cool_off_then_finish(self, detail_status::failed, reason);
        finish(self, detail_status::failed, reason);
      });
}

void create_migration(candidate_pointer self) {
  auto& st = self->state;
  auto& vmi = st.plan.vmi;
  migration_request m{st.plan.request_name, st.plan.request_uid, vmi.metadata.namespace_,
                      vmi.metadata.name, vmi.node_name, st.target, st.ctx.config.pin_target_node};
  auto name = migration_name(vmi.metadata.name, st.plan.request_uid);
  k8s::create_request req{k8s::resources::vmims, vmi.metadata.namespace_,
                          migration_create_body(m).dump()};
  self->request(st.ctx.api, caf::infinite, std::move(req))
    .then(
      [=](const k8s::api_response& resp) {
        auto created = decode_vmim(resp.body);
        if (!created) {
          return finish(self, detail_status::failed,
                        create_failed_reason("unreadable create response: "
                                             + created.err().message));
        }
        auto& st = self->state;
        if (!st.target.empty() && st.ctx.config.pin_target_node
            && created->added_node_selector.count(labels::hostname) == 0) {
          st.pin_pruned = true;
          self->send(st.supervisor, atom::unpinned_v);
        }
        start_watching(self, *created, false);
        announce_migration(self);
      },
      [=](caf::error& err) { adopt_or_fail(self, name, err); });
}

void record_answered(candidate_pointer self) {
  auto& st = self->state;
  st.record_pending = false;
  if (st.finish_after_record)
    restore_cool_off_then_finish(self, st.finish_after_record->first, st.finish_after_record->second);
}

/// Durable cool-off record on the VM (or the VMI without owner), sent just before the
/// VMIM's create without waiting for its answer: a freed slot is refilled in one API
/// round trip, and a crash can only fall between two requests already on the wire.
void record_cool_off_and_create(candidate_pointer self) {
  auto& st = self->state;
  auto holder = cool_off_holder_of(st.plan.vmi);
  auto res = holder.kind == "VirtualMachine" ? k8s::resources::vms : k8s::resources::vmis;
  auto body = cool_off_patch(st.ctx.config.vm_cool_off_annotation, actor_now(self),
                             st.plan.request_uid).dump();
  k8s::patch_request req{res, holder.namespace_, holder.name, body, false, false};
  st.record_pending = true;
  self->request(st.ctx.api, caf::infinite, std::move(req))
    .then(
      [=](const k8s::api_response& resp) {
        feed_own_write(self, holder, resp.body);
        record_answered(self);
      },
          [=](caf::error& err) {
            log_kv(spdlog::level::warn,
                   "cannot record cool-off on " + holder.kind + " " + holder.name,
                   vm_fields(self->state, {{"error", error_message(err)}}));
            record_answered(self);
          });
  create_migration(self); // after the patch in the API client's queue
}

candidate_actor::behavior_type candidate(candidate_pointer self, controller_context ctx,
                                         vm_hyperconvergence_actor kind,
                                         supervisor_actor supervisor, candidate_plan plan) {
  auto& st = self->state;
  st.ctx = std::move(ctx);
  st.kind = std::move(kind);
  st.supervisor = std::move(supervisor);
  st.plan = std::move(plan);
  admission_request ask{st.plan.vmi.metadata.namespace_, st.plan.vmi.metadata.name,
                        st.plan.target_nodes, std::string{st.plan.vmi.node_name}, "", ""};
  if (st.plan.adopted) {
    ask.adopted_vmim = st.plan.adopted->metadata.name;
    auto& sel = st.plan.adopted->added_node_selector;
    if (auto i = sel.find(labels::hostname); i != sel.end())
      ask.adopted_target = i->second;
  }
  self->request(st.supervisor, caf::infinite, std::move(ask))
    .then(
      [=](const admission_grant& grant) {
        auto& st = self->state;
        st.target = grant.target;
        st.kubevirt = grant.kubevirt;
        if (!grant.refused.empty())
          return finish(self, detail_status::skipped,
                        to_string(reason_kind::no_target_node) + ": " + grant.refused);

        if (!st.plan.adopted)
          return record_cool_off_and_create(self);
        // Adopted: its phase first, then what is left of migrationTimeout since creation.
        start_watching(self, *st.plan.adopted, true);
      },
      [=](caf::error&) {
        // Stopped before admission (request deleted): no VMIM, no result.
        auto& st = self->state;
        st.finished = true;
        self->send(st.kind, candidate_done{st.plan.vmi.metadata.namespace_,
                                           st.plan.vmi.metadata.name, std::nullopt});
        self->quit();
      });
  return {
    [=](const migration_result& r) {
      // Given up before KubeVirt started it: the VM stays where it is, free to move later.
      if (r.status == detail_status::skipped)
        return restore_cool_off_then_finish(self, r.status, r.reason);
      finish(self, r.status, r.reason, r.landed_on);
    },
  };
}

} // namespace

candidate_actor spawn_candidate(caf::local_actor* parent, const controller_context& ctx,
                                vm_hyperconvergence_actor kind, supervisor_actor supervisor,
                                candidate_plan plan) {
  return parent->spawn<caf::linked>(candidate, ctx, std::move(kind), std::move(supervisor),
                       std::move(plan));
}

} // namespace schedopt
