// The migration loop reads the VMIM's status as its state (kwok-style); only the due
// time of the next step and a FIFO sequence number live in memory.
#include "sim/kubevirt_controller.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <optional>
#include <map>
#include <mutex>
#include <random>
#include <set>

#include <spdlog/spdlog.h>

#include "model/quantity.hpp"
#include "model/timestamp.hpp"
#include "sim/event_recorder.hpp"
#include "sim/json_fields.hpp"
#include "sim/kubevirt_cr_settings.hpp"
#include "sim/kubevirt_names.hpp"
#include "sim/migration_transfer.hpp"
#include "sim/object_store.hpp"
#include "sim/tick_thread.hpp"
#include "sim/target_pod_scheduler.hpp"
#include "sim/vmi_usage_index.hpp"

namespace schedopt::sim {

namespace {

using clock_type = std::chrono::system_clock;
namespace kv = kubevirt;

bool is_final(const std::string& phase) {
  return phase == kv::phase_succeeded || phase == kv::phase_failed;
}

bool is_deleting(const json& m) {
  return m.contains("metadata") && m["metadata"].contains("deletionTimestamp") &&
         !m["metadata"]["deletionTimestamp"].is_null();
}

uint64_t resource_version_of(const json& m) {
  try {
    return std::stoull(text_at(m, "/metadata/resourceVersion"_json_pointer));
  } catch (...) {
    return 0;
  }
}

void record_phase(json& status, const std::string& phase, const std::string& when) {
  status["phase"] = phase;
  if (!status["phaseTransitionTimestamps"].is_array())
    status["phaseTransitionTimestamps"] = json::array();
  status["phaseTransitionTimestamps"].push_back({{"phase", phase}, {"phaseTransitionTimestamp", when}});
}

const char* failure_reasons[] = {
    "Live migration failed error encountered during MigrateToURI3 libvirt api call: virError(Code=1, "
    "Domain=7, Message='internal error: unable to attach volume on target')",
    "Live migration failed: unable to attach volume",
    "Live migration failed: target virt-launcher pod exited unexpectedly",
};

} // namespace

struct kubevirt_controller::impl {
  object_store& store;
  kubevirt_controller_options options;
  std::mt19937_64 rng;
  std::mutex tick_mutex; // the thread and a test's direct tick() never interleave
  std::shared_ptr<vmi_usage_index> usage_index = std::make_shared<vmi_usage_index>();
  migration_config_reader config_reader;
  migration_config config; // as read at the start of this tick

  struct tracked {
    uint64_t seq = 0;
    clock_type::time_point due;
    bool due_set = false;
    std::string unschedulable; // the FailedScheduling message last reported
    // Pending and let through the cluster and per-node caps: KubeVirt checks them while a
    // migration is Pending, before it creates the target pod, so the Pending step's
    // delay (that pod's creation) runs from here, and the migration holds a slot.
    bool admitted = false;
    std::string admitted_source;
    // The target pod: when it was made (KubeVirt times a pending pod from its
    // creationTimestamp), whether it was reported unschedulable, and whether the
    // timeout deleted it (the VMIM fails on the reconcile after).
    clock_type::time_point pod_created;
    bool pod_created_set = false;
    bool pod_reported_unschedulable = false;
    bool pod_deleted = false;
    // Held back by the caps: not looked at again before `held_until` unless the VMIM or
    // its VMI changed (their resourceVersions as of the hold).
    bool held = false;
    clock_type::time_point held_until;
    std::string held_vmim_rv, held_vmi_rv;
    // The configuration handed to virt-handler at hand-off (migration.go
    // handleTargetPodHandoff puts it in the VMI's migrationState.migrationConfiguration).
    std::optional<migration_config> handoff_config;
    // The Running step ends in virt-launcher's completion-timeout abort, after this many
    // seconds (0: it ends in success or a seeded failure).
    int64_t aborted_after_s = 0;
    // A delete after hand-off: when the abort reaches virt-launcher.
    bool abort_set = false;
    clock_type::time_point abort_at;
  };
  std::map<std::string, tracked> by_uid;
  uint64_t next_seq = 0;

  /// A migration's end on its VMI, held back by options.vmi_update_lag.
  struct pending_end {
    clock_type::time_point due;
    std::string ns, vmi, target;
    json state;
  };
  std::vector<pending_end> pending_ends;

  tick_thread ticker;

  impl(object_store& s, kubevirt_controller_options o)
    : store(s), options(std::move(o)), rng(options.seed ^ 0x6b75626576697274ULL),
      config_reader(options.kubevirt, options.migrations), config(options.migrations) {
    usage_index->attach(store);
  }

  bool has_status_subresource(const std::string& key) const {
    auto type = store.find_type(key);
    return type && type->status_subresource;
  }

  void write_status(const std::string& key, const std::string& ns, const std::string& name,
                    const std::function<void(json&)>& edit) {
    auto result = store.modify(
        key, ns, name,
        [&](json& obj) {
          edit(obj["status"]);
          return true;
        },
        has_status_subresource(key));
    if (!result && result.err().code != ec::not_found)
      spdlog::warn("kubevirt: status write on {}/{} failed: {}", ns, name, result.err().message);
  }

  void write_meta(const std::string& key, const std::string& ns, const std::string& name,
                  const std::function<bool(json&)>& edit) {
    auto result = store.modify(key, ns, name, [&](json& obj) { return edit(obj["metadata"]); }, false);
    if (!result && result.err().code != ec::not_found)
      spdlog::warn("kubevirt: metadata write on {}/{} failed: {}", ns, name, result.err().message);
  }

  void schedule_next(tracked& t, const std::string& phase, clock_type::time_point now, const json& m) {
    auto stage = find_stage(options.stages, phase);
    auto delay = stage ? jittered_delay(*stage, rng) : std::chrono::milliseconds{0};
    t.aborted_after_s = 0;
    if (phase == kv::phase_running)
      delay = plan_running(t, m, delay);
    t.due = now + delay;
    t.due_set = true;
  }

  /// The Running step: the VMI's memory at the effective rate (the stage table's delay
  /// when no rate is set), cut short by virt-launcher's completion timeout
  /// (live-migration-source.go migrationMonitor), with the configuration of hand-off.
  std::chrono::milliseconds plan_running(tracked& t, const json& m, std::chrono::milliseconds table_delay) {
    const auto& cfg = t.handoff_config ? *t.handoff_config : config;
    auto vmi = store.get(kv::vmi_key, text_at(m, "/metadata/namespace"_json_pointer), text_at(m, "/spec/vmiName"_json_pointer));
    auto memory = vmi ? vmi_migration_memory_bytes(*vmi) : 0;
    auto rate = effective_bandwidth(options.migration_bandwidth, cfg);
    auto transfer = rate > 0 && memory > 0 ? transfer_time(memory, rate) : table_delay;
    auto plan = plan_transfer(transfer, memory, cfg);
    t.aborted_after_s = plan.aborted_after_s;
    return plan.running;
  }

  void release_finalizer(const std::string& ns, const std::string& name) {
    write_meta(kv::vmim_key, ns, name, [](json& meta) {
      auto& f = meta["finalizers"];
      if (!f.is_array())
        return false;
      auto before = f.size();
      f.erase(std::remove(f.begin(), f.end(), kv::migration_finalizer), f.end());
      return f.size() != before;
    });
  }

  /// Copies the VMIM's migrationState onto its VMI while the VMI still points at it.
  void mirror_to_vmi(const std::string& ns, const std::string& vmi, const json& state,
                     const std::string& move_to) {
    write_status(kv::vmi_key, ns, vmi, [&](json& status) {
      auto current = status.value("/migrationState/migrationUid"_json_pointer, std::string{});
      if (!current.empty() && current != state.value("migrationUid", "") && !status["migrationState"].value("completed", false))
        return;
      status["migrationState"] = state;
      if (!move_to.empty())
        status["nodeName"] = move_to;
    });
    if (!move_to.empty())
      write_meta(kv::vmi_key, ns, vmi, [&](json& meta) {
        meta["labels"][kv::node_name_label] = move_to;
        return true;
      });
  }

  /// The least-loaded node the target pod can schedule on, as the kube-scheduler would
  /// (sim/target_pod_scheduler): the pod KubeVirt builds from the VMI and the VMIM,
  /// against every node but the source with what is requested there. Empty when none;
  /// `why` then says why, worded like the scheduler's FailedScheduling message.
  std::string pick_target(const target_pod& pod, const std::string& source, const std::vector<json>& nodes,
                          const std::map<std::string, int>& load,
                          const std::map<std::string, pod_resources>& usage, std::string& why) {
    std::string best;
    int best_load = 0;
    std::map<std::string, int> refused; // scheduler reason -> nodes
    for (const auto& node : nodes) {
      auto name = text_at(node, "/metadata/name"_json_pointer);
      if (name == source) {
        // The target pod's anti-affinity to the source pod (template.go).
        ++refused["node(s) didn't match pod anti-affinity rules"];
        continue;
      }
      pod_resources used;
      if (auto u = usage.find(name); u != usage.end())
        used = {u->second.cpu_millis, u->second.memory_bytes};
      if (auto no = scheduler_refusal(pod, node, used)) {
        ++refused[*no];
        continue;
      }
      auto it = load.find(name);
      int l = it == load.end() ? 0 : it->second;
      if (best.empty() || l < best_load) {
        best = name;
        best_load = l;
      }
    }
    if (best.empty()) {
      why = "0/" + std::to_string(nodes.size()) + " nodes are available:";
      bool first = true;
      for (const auto& [reason, count] : refused) {
        why += (first ? " " : ", ") + std::to_string(count) + " " + reason;
        first = false;
      }
      why += ".";
    }
    return best;
  }

  /// An Event as client-go's recorder writes it for `component` (virt-controller's
  /// migration controller records as "virtualmachine-controller": pkg/virt-controller/
  /// watch/application.go, vmiRecorder).
  void emit_event(const json& involved, const std::string& type, const std::string& reason,
                  const std::string& message, const std::string& when,
                  const std::string& component = "virtualmachine-controller") {
    record_event(store, involved, type, reason, message, component, when);
  }

  static json vmim_ref(const json& m) {
    return {{"apiVersion", "kubevirt.io/v1"},
            {"kind", "VirtualMachineInstanceMigration"},
            {"name", text_at(m, "/metadata/name"_json_pointer)},
            {"namespace", text_at(m, "/metadata/namespace"_json_pointer)},
            {"uid", text_at(m, "/metadata/uid"_json_pointer)}};
  }

  json vmi_ref(const std::string& ns, const std::string& name) {
    json ref = {{"apiVersion", "kubevirt.io/v1"}, {"kind", "VirtualMachineInstance"},
                {"name", name}, {"namespace", ns}};
    if (auto vmi = store.get(kv::vmi_key, ns, name))
      ref["uid"] = text_at(*vmi, "/metadata/uid"_json_pointer);
    return ref;
  }

  /// The scheduler's FailedScheduling (on the target pod upstream; the simulator has no
  /// pods, so it lands on the VMIM) and, once, the migration controller's own warning
  /// (migration.go handlePendingPodTimeout: migrationTargetPodUnschedulable).
  void report_unschedulable(const json& m, tracked& t, const std::string& message, const std::string& when) {
    auto ns = text_at(m, "/metadata/namespace"_json_pointer);
    auto name = text_at(m, "/metadata/name"_json_pointer);
    spdlog::info("kubevirt: migration {}/{} stays Scheduling: {}", ns, name, message);
    emit_event(vmim_ref(m), "Warning", "FailedScheduling", "target pod pending: " + message, when,
               "default-scheduler");
    if (!t.pod_reported_unschedulable) {
      t.pod_reported_unschedulable = true;
      emit_event(vmim_ref(m), "Warning", "migrationTargetPodUnschedulable",
                 "Migration target pod for VMI [" + ns + "/" + text_at(m, "/spec/vmiName"_json_pointer)
                     + "] is currently unschedulable.",
                 when);
    }
  }

  /// KubeVirt's pending-pod timeouts (migration.go getUnschedulablePendingTimeoutSeconds,
  /// getCatchAllPendingTimeoutSeconds): 5 and 15 minutes unless the VMIM's annotation,
  /// integer seconds, says otherwise; a value that does not parse keeps the default.
  static std::chrono::seconds pod_timeout(const json& m, const char* annotation, std::chrono::seconds fallback) {
    auto text = m.value("/metadata/annotations"_json_pointer, json::object()).value(annotation, std::string{});
    if (text.empty())
      return fallback;
    try {
      std::size_t used = 0;
      long long v = std::stoll(text, &used);
      if (used == text.size())
        return std::chrono::seconds{v};
    } catch (...) {
    }
    return fallback;
  }

  /// migration.go isMigrationHandedOff, by phase: the target virt-handler has it from
  /// PreparingTarget on.
  static bool is_handed_off(const std::string& phase) {
    return phase != kv::phase_pending && phase != kv::phase_scheduling && phase != kv::phase_scheduled
           && !phase.empty();
  }

  static bool has_abort_condition(const json& m) {
    for (const auto& c : m.value("/status/conditions"_json_pointer, json::array()))
      if (c.value("type", std::string{}) == "migrationAbortRequested")
        return true;
    return false;
  }

  /// A delete of a VMIM after hand-off only asks for an abort. migration.go updateStatus
  /// adds condition migrationAbortRequested at once; only in Running does
  /// markMigrationAbortInVmiStatus set the VMI's migrationState.abortRequested, which
  /// virt-handler passes to virt-launcher's cancelMigration. Until that lands
  /// (options.abort_latency: a reconcile, a VMI watch event and a gRPC call, no upstream
  /// constant) the migration runs on and may still complete.
  void request_abort(const json& m, tracked& t, const std::string& phase, const std::string& when,
                     clock_type::time_point now) {
    auto ns = text_at(m, "/metadata/namespace"_json_pointer);
    auto name = text_at(m, "/metadata/name"_json_pointer);
    if (!has_abort_condition(m))
      write_status(kv::vmim_key, ns, name, [&](json& status) {
        if (!status["conditions"].is_array())
          status["conditions"] = json::array();
        status["conditions"].push_back(
            {{"type", "migrationAbortRequested"}, {"status", "True"}, {"lastProbeTime", when}});
      });
    if (phase != kv::phase_running || t.abort_set)
      return;
    t.abort_set = true;
    t.abort_at = now + options.abort_latency;
    json state = m.value("/status/migrationState"_json_pointer, json::object());
    state["abortRequested"] = true;
    write_status(kv::vmim_key, ns, name, [&](json& status) { status["migrationState"] = state; });
    mirror_to_vmi(ns, text_at(m, "/spec/vmiName"_json_pointer), state, {});
    emit_event(vmim_ref(m), "Normal", "SuccessfulAbortMigration", "Migration is ready to be canceled by virt-handler.",
               when);
  }

  /// A delete of a VMIM not final. Before hand-off (Pending, Scheduling, Scheduled)
  /// migration.go updateStatus fails it "due to being canceled" with condition
  /// migrationAbortRequested (no reason, no message); after hand-off, once the abort
  /// lands, virt-launcher's asyncMigrationAbort aborts the job and reports "Live
  /// migration aborted " (its trailing space included, live-migration-source.go) with
  /// abortStatus Succeeded.
  void abort(const json& m, const std::string& when) {
    auto ns = text_at(m, "/metadata/namespace"_json_pointer);
    auto name = text_at(m, "/metadata/name"_json_pointer);
    auto vmi = text_at(m, "/spec/vmiName"_json_pointer);
    auto phase = text_at(m, "/status/phase"_json_pointer);
    bool handed_off = is_handed_off(phase);
    bool had_condition = has_abort_condition(m);
    json condition = {{"type", "migrationAbortRequested"}, {"status", "True"}, {"lastProbeTime", when}};
    json state = m.value("/status/migrationState"_json_pointer, json::object());
    if (handed_off) {
      state["migrationUid"] = text_at(m, "/metadata/uid"_json_pointer);
      state["abortRequested"] = true;
      state["abortStatus"] = "Succeeded";
      state["completed"] = true;
      state["failed"] = true;
      state["failureReason"] = "Live migration aborted ";
      state["endTimestamp"] = when;
    }
    write_status(kv::vmim_key, ns, name, [&](json& status) {
      record_phase(status, kv::phase_failed, when);
      if (handed_off)
        status["migrationState"] = state;
      if (!status["conditions"].is_array())
        status["conditions"] = json::array();
      if (!had_condition)
        status["conditions"].push_back(condition);
    });
    emit_event(vmim_ref(m), "Warning", "FailedMigration",
               handed_off ? "source node reported migration failed" : "Migration failed due to being canceled",
               when);
    if (handed_off)
      mirror_to_vmi(ns, vmi, state, {});
    else
      mark_failed_on_vmi(m, when);
  }

  void tick(clock_type::time_point now) {
    std::lock_guard<std::mutex> guard{tick_mutex};
    auto when = format_rfc3339(now);
    write_due_ends(now);
    // Zero-copy snapshot: with thousands of objects, copying them every tick is the cost.
    auto snapshot = store.list_stored(kv::vmim_key);
    std::vector<std::shared_ptr<const json>> parsed; // VMIMs keep their trees: no parse
    std::vector<const json*> vmims;
    parsed.reserve(snapshot.items.size());
    vmims.reserve(snapshot.items.size());
    for (const auto& stored : snapshot.items) {
      parsed.push_back(stored->parsed());
      vmims.push_back(parsed.back().get());
    }

    // FIFO order by creation, as KubeVirt's queue sees them.
    std::vector<const json*> fresh;
    for (const auto* m : vmims)
      if (!by_uid.count(text_at(*m, "/metadata/uid"_json_pointer)))
        fresh.push_back(m);
    std::stable_sort(fresh.begin(), fresh.end(), [](const json* a, const json* b) {
      auto ta = text_at(*a, "/metadata/creationTimestamp"_json_pointer);
      auto tb = text_at(*b, "/metadata/creationTimestamp"_json_pointer);
      return ta != tb ? ta < tb : resource_version_of(*a) < resource_version_of(*b);
    });
    for (const auto* m : fresh)
      by_uid[text_at(*m, "/metadata/uid"_json_pointer)].seq = next_seq++;
    std::sort(vmims.begin(), vmims.end(), [this](const json* a, const json* b) {
      return by_uid[text_at(*a, "/metadata/uid"_json_pointer)].seq < by_uid[text_at(*b, "/metadata/uid"_json_pointer)].seq;
    });

    // Idle clusters with thousands of VMIs should cost nothing per tick.
    bool busy = std::any_of(vmims.begin(), vmims.end(), [](const json* m) {
      return is_deleting(*m) || !is_final(text_at(*m, "/status/phase"_json_pointer)) ||
             m->value("/metadata/finalizers"_json_pointer, json::array()).size() > 0;
    });
    if (!busy) {
      garbage_collect(vmims);
      return;
    }
    config = config_reader.read(store); // live: a patched KubeVirt CR applies from this tick
    // With the priority queue (1.7 on, gate permitting) the highest priority is
    // dequeued first, ties in arrival order. Read here, past the idle return: an idle
    // tick has nothing queued.
    bool priority_queue = options.kubevirt.priority_queue_always_on()
                          || (options.kubevirt.has_migration_priority()
                              && read_kubevirt_cr_settings(store).lists_gate(kv::priority_queue_gate));
    if (priority_queue)
      std::stable_sort(vmims.begin(), vmims.end(),
                       [](const json* a, const json* b) { return queue_priority(*a) > queue_priority(*b); });
    if (priority_queue && a_migration_finished)
      requeue_highest_pending(vmims);
    a_migration_finished = false;
    // migration.go: a capped migration is looked at again after the priority's delay
    // with the queue, after 5 s (held_requeue) without.
    auto requeue_after = [&](const json& m) {
      return now + (priority_queue ? requeue_delay(queue_priority(m)) : options.held_requeue);
    };
    auto nodes = store.list("nodes").items;
    std::map<std::string, int> load; // VMIs per node, plus migrations heading there
    std::map<std::string, pod_resources> usage; // requests per node, target pods included
    bool load_counted = false;
    auto count_load = [&] {
      if (load_counted)
        return;
      load_counted = true;
      // Target pods of migrations past Scheduling hold their VMI's requests there.
      std::map<std::string, std::vector<std::string>> targets_of; // VMI ns/name -> nodes
      for (const auto* mp : vmims) {
        auto phase = text_at(*mp, "/status/phase"_json_pointer);
        auto target = text_at(*mp, "/status/migrationState/targetNode"_json_pointer);
        if (target.empty() || is_final(phase))
          continue; // a deleted migration's target pod stays until it is final
        targets_of[text_at(*mp, "/metadata/namespace"_json_pointer) + "/" + text_at(*mp, "/spec/vmiName"_json_pointer)]
          .push_back(target);
      }
      auto add = [&](const std::string& node, const pod_resources& r) {
        usage[node].cpu_millis += r.cpu_millis;
        usage[node].memory_bytes += r.memory_bytes;
      };
      usage_index->for_each([&](const std::string& vmi_name, const vmi_usage& v) {
        if (v.node.empty())
          return;
        ++load[v.node];
        if (v.phase == "Succeeded" || v.phase == "Failed")
          return;
        add(v.node, v.requests);
        auto t = targets_of.find(vmi_name);
        if (t != targets_of.end())
          for (const auto& target : t->second)
            if (target != v.node)
              add(target, v.requests);
      });
    };

    int active = 0;
    std::map<std::string, int> outbound;
    for (const auto* mp : vmims) {
      const auto& m = *mp;
      auto phase = text_at(m, "/status/phase"_json_pointer);
      // migration.go findRunningMigrations counts every non-final migration past target
      // pod creation, being deleted or not.
      if (phase == kv::phase_pending) {
        auto t = by_uid.find(text_at(m, "/metadata/uid"_json_pointer));
        if (t != by_uid.end() && t->second.admitted) {
          ++active;
          ++outbound[t->second.admitted_source];
        }
        continue;
      }
      if (phase.empty() || is_final(phase))
        continue;
      ++active;
      ++outbound[text_at(m, "/status/migrationState/sourceNode"_json_pointer)];
      auto target = text_at(m, "/status/migrationState/targetNode"_json_pointer);
      if (!target.empty())
        ++load[target];
    }

    std::set<std::string> seen;
    for (const auto* mp : vmims) {
      const auto& m = *mp;
      auto uid = text_at(m, "/metadata/uid"_json_pointer);
      seen.insert(uid);
      auto& t = by_uid[uid];
      auto ns = text_at(m, "/metadata/namespace"_json_pointer);
      auto name = text_at(m, "/metadata/name"_json_pointer);
      auto vmi = text_at(m, "/spec/vmiName"_json_pointer);
      auto phase = text_at(m, "/status/phase"_json_pointer);

      if (is_deleting(m) && !is_final(phase) && is_handed_off(phase)) {
        request_abort(m, t, phase, when, now);
        // The abort wins unless the migration is done by then (a tie goes to completion:
        // asyncMigrationAbort finds no job left to abort).
        if (t.abort_set && now >= t.abort_at && !(phase == kv::phase_running && now >= t.due)) {
          abort(m, when);
          continue; // final now; the finalizer goes on the next reconcile
        }
      } else if (is_deleting(m)) {
        if (!is_final(phase)) {
          abort(m, when);
          if (phase == kv::phase_pending && t.admitted) {
            --active;
            --outbound[t.admitted_source];
          } else if (phase != kv::phase_pending && !phase.empty()) {
            --active;
            --outbound[text_at(m, "/status/migrationState/sourceNode"_json_pointer)];
          }
        }
        // The object stays (deletionTimestamp set) until it is final and the finalizer
        // goes; the store then removes it, as kube-apiserver does.
        release_finalizer(ns, name);
        store.remove(kv::vmim_key, ns, name);
        continue;
      }
      if (is_final(phase)) {
        if (phase == kv::phase_failed)
          copy_state_from_vmi(m);
        auto finalizers = m.value("/metadata/finalizers"_json_pointer, json::array());
        if (std::find(finalizers.begin(), finalizers.end(), kv::migration_finalizer) != finalizers.end())
          release_finalizer(ns, name);
        continue;
      }
      if (phase.empty()) {
        write_status(kv::vmim_key, ns, name, [&](json& status) { record_phase(status, kv::phase_pending, when); });
        schedule_next(t, kv::phase_pending, now, m);
        continue;
      }
      if (!t.due_set)
        schedule_next(t, phase, now, m); // adopted after a restart
      if (phase == kv::phase_pending && !t.admitted) {
        auto current = store.get(kv::vmi_key, ns, vmi);
        auto source = current ? text_at(*current, "/status/nodeName"_json_pointer) : std::string{};
        if (!current) {
          // migration.go execute(): a VMIM whose VMI is gone is deleted ("Deleting
          // migration for deleted vmi"). Upstream its finalizer can then stay behind
          // when it was not final; the simulator releases it.
          release_finalizer(ns, name);
          store.remove(kv::vmim_key, ns, name);
          continue;
        }
        if (text_at(*current, "/status/phase"_json_pointer) != "Running" || source.empty()) {
          fail(m, "Migration failed vmi shutdown during migration.", when);
          continue;
        }

        // migration.go handleTargetPodCreation: a migration over a cap stays Pending and is
        // requeued After 5s (1.6: AddWithOpts at lowPriority; 1.3-1.5: AddAfter), so it is
        // not looked at again until then, unless an update of it or of its VMI enqueues it
        // sooner (updateMigration, updateVMI). A slot freed meanwhile goes to whichever
        // migration is looked at first: not strict FIFO.
        auto vmim_rv = text_at(m, "/metadata/resourceVersion"_json_pointer);
        auto vmi_rv = text_at(*current, "/metadata/resourceVersion"_json_pointer);
        if (t.held && now < t.held_until && vmim_rv == t.held_vmim_rv && vmi_rv == t.held_vmi_rv)
          continue;
        if (options.kubevirt.has_backup_block() && held_by_backup(m, *current, when)) {
          // Requeued as a capped one is; the condition it just got wakes it once more.
          t.held = true;
          t.held_until = requeue_after(m);
          t.held_vmim_rv = vmim_rv;
          t.held_vmi_rv = vmi_rv;
          continue;
        }
        if (active >= config.parallel_migrations_per_cluster
            || outbound[source] >= config.parallel_outbound_migrations_per_node) {
          t.held = true;
          t.held_until = requeue_after(m);
          t.held_vmim_rv = vmim_rv;
          t.held_vmi_rv = vmi_rv;
          continue;
        }
        t.held = false;
        ++active;
        ++outbound[source];
        t.admitted = true;
        t.admitted_source = source;
        schedule_next(t, kv::phase_pending, now, m); // the target pod's creation starts now
      }
      if (now < t.due)
        continue;

      if (phase == kv::phase_pending) {
        auto source = t.admitted_source;
        json state = {{"migrationUid", uid}, {"sourceNode", source}, {"mode", "PreCopy"}};
        write_status(kv::vmim_key, ns, name, [&](json& status) {
          record_phase(status, kv::phase_scheduling, when);
          status["migrationState"] = state;
        });
        mirror_to_vmi(ns, vmi, state, {});
        schedule_next(t, kv::phase_scheduling, now, m);
        continue;
      }
      if (phase == kv::phase_scheduling) {
        if (!t.pod_created_set) {
          t.pod_created = now; // the target pod was made as the VMIM entered Scheduling
          t.pod_created_set = true;
        }
        if (t.pod_deleted) {
          // migration.go updateStatus: TargetIsCreated() && !podExists.
          fail(m, "Migration target pod was removed during active migration.", when);
          continue;
        }
        auto source = text_at(m, "/status/migrationState/sourceNode"_json_pointer);
        count_load();
        auto current = store.get(kv::vmi_key, ns, vmi);
        const json* source_node = nullptr;
        for (const auto& n : nodes)
          if (text_at(n, "/metadata/name"_json_pointer) == source)
            source_node = &n;
        auto pod = target_pod_for(current ? *current : json::object(), m, source_node);
        std::string why;
        auto target = pick_target(pod, source, nodes, load, usage, why);
        if (target.empty()) {
          // The target pod stays Pending (PodScheduled=False, Unschedulable), and so the
          // migration stays Scheduling until handlePendingPodTimeout deletes the pod.
          if (why != t.unschedulable)
            report_unschedulable(m, t, why, when);
          t.unschedulable = why;
          auto pending_for = now - t.pod_created;
          auto unschedulable_limit = pod_timeout(m, "kubevirt.io/migrationUnschedulablePodTimeoutSeconds",
                                                 std::chrono::seconds{300});
          auto catch_all_limit = pod_timeout(m, "kubevirt.io/migrationPendingPodTimeoutSeconds",
                                             std::chrono::seconds{900});
          auto pod = text_at(m, "/status/migrationState/targetPod"_json_pointer);
          if (pod.empty())
            pod = target_pod_name(vmi, uid);
          if (pending_for >= unschedulable_limit || pending_for >= catch_all_limit) {
            t.pod_deleted = true;
            emit_event(vmim_ref(m), "Normal", "SuccessfulDelete",
                       std::string{pending_for >= unschedulable_limit ? "unschedulable" : "pending"} + " pod "
                           + ns + "/" + pod + " timeout period exceeded",
                       when);
          }
          continue;
        }
        ++load[target];
        usage[target].cpu_millis += pod.requests.cpu_millis;
        usage[target].memory_bytes += pod.requests.memory_bytes;
        json state = m.value("/status/migrationState"_json_pointer, json::object());
        state["targetNode"] = target;
        state["targetPod"] = target_pod_name(vmi, uid);
        write_status(kv::vmim_key, ns, name, [&](json& status) {
          record_phase(status, kv::phase_scheduled, when);
          status["migrationState"] = state;
        });
        mirror_to_vmi(ns, vmi, state, {});
        schedule_next(t, kv::phase_scheduled, now, m);
        continue;
      }
      if (phase == kv::phase_running) {
        if (t.aborted_after_s != 0) {
          // processInflightMigration: shouldTriggerTimeout → AbortJob, then
          // setMigrationResult(failed, message, MigrationAbortSucceeded).
          fail_after_handoff(m, completion_timeout_reason(t.aborted_after_s), when, "Succeeded");
          continue;
        }
        std::uniform_real_distribution<double> coin{0.0, 1.0};
        if (options.migration_failure_rate > 0.0 && coin(rng) < options.migration_failure_rate) {
          std::uniform_int_distribution<std::size_t> pick{0, std::size(failure_reasons) - 1};
          fail_after_handoff(m, failure_reasons[pick(rng)], when);
        } else {
          succeed(m, when, now);
        }
        continue;
      }
      // Scheduled, PreparingTarget, TargetReady: plain timed steps.
      auto stage = find_stage(options.stages, phase);
      if (!stage)
        continue;
      auto next = stage->next;
      json state = m.value("/status/migrationState"_json_pointer, json::object());
      if (next == kv::phase_target_ready)
        state["targetNodeAddress"] = state.value("targetNode", "");
      if (next == kv::phase_running) {
        state["startTimestamp"] = when;
        state["targetNodeDomainDetected"] = true;
      }
      write_status(kv::vmim_key, ns, name, [&](json& status) {
        record_phase(status, next, when);
        status["migrationState"] = state;
      });
      mirror_to_vmi(ns, vmi, state, {});
      if (next == kv::phase_preparing_target)
        t.handoff_config = config;
      schedule_next(t, next, now, m);
    }
    for (auto it = by_uid.begin(); it != by_uid.end();)
      it = seen.count(it->first) ? std::next(it) : by_uid.erase(it);

    garbage_collect(vmims);
  }

  void write_due_ends(clock_type::time_point now) {
    auto due = std::stable_partition(pending_ends.begin(), pending_ends.end(),
                                     [&](const pending_end& e) { return e.due > now; });
    for (auto i = due; i != pending_ends.end(); ++i)
      mirror_to_vmi(i->ns, i->vmi, i->state, i->target);
    pending_ends.erase(due, pending_ends.end());
  }

  void succeed(const json& m, const std::string& when, clock_type::time_point now) {
    auto ns = text_at(m, "/metadata/namespace"_json_pointer);
    auto name = text_at(m, "/metadata/name"_json_pointer);
    json state = m.value("/status/migrationState"_json_pointer, json::object());
    state["completed"] = true;
    state["endTimestamp"] = when;
    // migration.go updateStatus: the VMIM turns Succeeded once its VMI reports the
    // migration completed (virt-handler wrote it, with the new node), so the VMI's write
    // goes first; vmi_update_lag instead models a client seeing the VMI late.
    auto vmi = text_at(m, "/spec/vmiName"_json_pointer);
    if (options.vmi_update_lag.count() == 0)
      mirror_to_vmi(ns, vmi, state, state.value("targetNode", ""));
    write_status(kv::vmim_key, ns, name, [&](json& status) {
      record_phase(status, kv::phase_succeeded, when);
      status["migrationState"] = state;
    });
    a_migration_finished = true;
    if (options.vmi_update_lag.count() > 0)
      pending_ends.push_back({now + options.vmi_update_lag, ns, vmi, state.value("targetNode", ""), state});
    release_finalizer(ns, name);
  }

  static std::string target_pod_name(const std::string& vmi, const std::string& uid) {
    return "virt-launcher-" + vmi + "-" + uid.substr(0, std::min<std::size_t>(5, uid.size()));
  }

  /// migration.go handleVMBackup (1.8 on): while the VMI's backup runs
  /// (migrations.go IsBackupInProgress: status.changedBlockTracking.backupStatus names a
  /// backup not completed) a Pending migration stays Pending with the condition
  /// migrationBlockedByBackup; a system-critical one first aborts the backup. The
  /// condition goes once the backup ends. Upstream may still create the target pod
  /// meanwhile; here nothing of the migration starts.
  bool held_by_backup(const json& m, const json& vmi, const std::string& when) {
    auto ns = text_at(m, "/metadata/namespace"_json_pointer);
    auto name = text_at(m, "/metadata/name"_json_pointer);
    auto backup = vmi.value("/status/changedBlockTracking/backupStatus"_json_pointer, json::object());
    auto backup_name = backup.value("backupName", std::string{});
    bool running = !backup_name.empty() && !backup.value("completed", false);
    bool has_condition = false;
    for (const auto& c : m.value("/status/conditions"_json_pointer, json::array()))
      has_condition = has_condition || c.value("type", "") == kv::blocked_by_backup_condition;
    if (!running) {
      if (has_condition)
        write_status(kv::vmim_key, ns, name, [](json& status) {
          auto& conditions = status["conditions"];
          conditions.erase(std::remove_if(conditions.begin(), conditions.end(),
                                          [](const json& c) {
                                            return c.value("type", "") == kv::blocked_by_backup_condition;
                                          }),
                           conditions.end());
        });
      return false;
    }
    bool critical = text_at(m, "/spec/priority"_json_pointer) == "system-critical";
    if (critical && !has_condition) {
      // abortBackupForCriticalMigration: virt-handler ends the backup, failed.
      write_status(kv::vmi_key, ns, text_at(vmi, "/metadata/name"_json_pointer), [&](json& status) {
        auto& b = status["changedBlockTracking"]["backupStatus"];
        b["completed"] = true;
        b["failed"] = true;
        b["endTimestamp"] = when;
      });
      emit_event(vmim_ref(m), "Normal", "BackupAbortedForMigration",
                 "Aborting backup " + backup_name + " for system-critical migration", when);
    }
    if (!has_condition)
      write_status(kv::vmim_key, ns, name, [&](json& status) {
        auto& conditions = status["conditions"];
        if (!conditions.is_array())
          conditions = json::array();
        conditions.push_back({{"type", kv::blocked_by_backup_condition},
                              {"status", "True"},
                              {"reason", "BackupInProgress"},
                              {"message", (critical ? "Aborting backup " + backup_name + " for system-critical migration"
                                                    : "Waiting for backup " + backup_name + " to complete")},
                              {"lastTransitionTime", when}});
      });
    return true;
  }

  /// Set when a migration turns final: the priority queue then looks at the pending
  /// migrations again at once.
  bool a_migration_finished = false;

  /// pkg/util/migrations/migrations.go PriorityFromMigration (1.7 on): the queue
  /// priority of spec.priority; none, or a value it does not know, is 0.
  static int queue_priority(const json& m) {
    auto priority = text_at(m, "/spec/priority"_json_pointer);
    return priority == "system-critical"      ? 100
           : priority == "user-triggered"     ? 50
           : priority == "system-maintenance" ? 20
                                              : 0;
  }

  /// migration.go getRequeueDelayForPriority: a capped migration is looked at again
  /// after 1 s (system-critical), 3 s (user-triggered) or 5 s.
  static std::chrono::milliseconds requeue_delay(int priority) {
    return std::chrono::seconds(priority >= 100 ? 1 : priority >= 50 ? 3 : 5);
  }

  /// migration.go reEnqueueHighestPriorityPendingMigrations: when a migration ends, the
  /// parallelMigrationsPerCluster highest-priority Pending migrations are enqueued again
  /// at once. `vmims` is already in priority order.
  void requeue_highest_pending(const std::vector<const json*>& vmims) {
    int left = config.parallel_migrations_per_cluster;
    for (const auto* mp : vmims) {
      if (left <= 0)
        break;
      if (text_at(*mp, "/status/phase"_json_pointer) != kv::phase_pending || is_deleting(*mp))
        continue;
      auto t = by_uid.find(text_at(*mp, "/metadata/uid"_json_pointer));
      if (t != by_uid.end())
        t->second.held = false;
      --left;
    }
  }

  /// A failure the migration controller decides itself (migration.go updateStatus): it
  /// writes phase=Failed and a Warning FailedMigration event with `message`, and nothing
  /// in migrationState: KubeVirt's words are only in that event.
  void fail(const json& m, const std::string& message, const std::string& when) {
    auto ns = text_at(m, "/metadata/namespace"_json_pointer);
    auto name = text_at(m, "/metadata/name"_json_pointer);
    write_status(kv::vmim_key, ns, name, [&](json& status) { record_phase(status, kv::phase_failed, when); });
    a_migration_finished = true;
    emit_event(vmim_ref(m), "Warning", "FailedMigration", message, when);
    mark_failed_on_vmi(m, when);
    // The finalizer goes on the next reconcile, in the is_final branch of tick().
  }

  /// The simulator hands the migration to the VMI's migrationState already at Scheduling;
  /// a migration that fails before it ran ends there as migration.go
  /// handleMarkMigrationFailedOnVMI ends it: failed and completed, start and end now,
  /// and no failureReason (upstream assigns "Target pod is down" after the patch, so it
  /// is never stored).
  void mark_failed_on_vmi(const json& m, const std::string& when) {
    auto uid = text_at(m, "/metadata/uid"_json_pointer);
    write_status(kv::vmi_key, text_at(m, "/metadata/namespace"_json_pointer), text_at(m, "/spec/vmiName"_json_pointer),
                 [&](json& status) {
                   auto& state = status["migrationState"];
                   if (!state.is_object() || state.value("migrationUid", std::string{}) != uid
                       || state.value("completed", false))
                     return;
                   state["completed"] = true;
                   state["failed"] = true;
                   if (!state.contains("startTimestamp"))
                     state["startTimestamp"] = when;
                   state["endTimestamp"] = when;
                 });
  }

  /// A failure after hand-off. virt-launcher (setMigrationResult) and virt-handler
  /// (setMigrationProgressStatus, a Warning "Migrated" event on the VMI) put the cause in
  /// the VMI's migrationState; the migration controller then writes phase=Failed with
  /// "source node reported migration failed", and copies the VMI's migrationState onto
  /// the VMIM only on a later reconcile (copy_state_from_vmi).
  void fail_after_handoff(const json& m, const std::string& reason, const std::string& when,
                          const std::string& abort_status = {}) {
    auto ns = text_at(m, "/metadata/namespace"_json_pointer);
    auto vmi = text_at(m, "/spec/vmiName"_json_pointer);
    auto uid = text_at(m, "/metadata/uid"_json_pointer);
    json state = m.value("/status/migrationState"_json_pointer, json::object());
    state["migrationUid"] = uid;
    state["completed"] = true;
    state["failed"] = true;
    state["failureReason"] = reason;
    state["endTimestamp"] = when;
    if (!abort_status.empty())
      state["abortStatus"] = abort_status;
    mirror_to_vmi(ns, vmi, state, {});
    emit_event(vmi_ref(ns, vmi), "Warning", "Migrated",
               "VirtualMachineInstance migration uid " + uid + " failed. reason:" + reason, when, "virt-handler");
    fail(m, "source node reported migration failed", when);
  }

  /// migration.go updateStatus, `if migration.IsFinal()`: the VMI's migrationState is
  /// copied onto a final VMIM. From 1.4 only when it names this migration's uid (1.3
  /// copies whatever the VMI holds; the simulator models 1.4 on).
  void copy_state_from_vmi(const json& m) {
    auto ns = text_at(m, "/metadata/namespace"_json_pointer);
    auto vmi = store.get(kv::vmi_key, ns, text_at(m, "/spec/vmiName"_json_pointer));
    if (!vmi)
      return;
    auto state = vmi->value("/status/migrationState"_json_pointer, json::object());
    if (state.value("migrationUid", std::string{}) != text_at(m, "/metadata/uid"_json_pointer))
      return;
    if (m.value("/status/migrationState"_json_pointer, json::object()) == state)
      return;
    write_status(kv::vmim_key, ns, text_at(m, "/metadata/name"_json_pointer),
                 [&](json& status) { status["migrationState"] = state; });
  }

  /// KubeVirt keeps a buffer of finished VMIMs per VMI and deletes the oldest beyond it.
  void garbage_collect(const std::vector<const json*>& vmims) {
    std::map<std::string, std::vector<const json*>> finished;
    for (const auto* mp : vmims) {
      const auto& m = *mp;
      if (is_deleting(m))
        continue;
      // Phases as of this tick's snapshot: a VMIM finished just now is counted next tick.
      if (!is_final(text_at(m, "/status/phase"_json_pointer)))
        continue;
      finished[text_at(m, "/metadata/namespace"_json_pointer) + "/" + text_at(m, "/spec/vmiName"_json_pointer)].push_back(&m);
    }
    for (auto& [vmi, list] : finished) {
      if (list.size() <= options.finished_kept_per_vmi)
        continue;
      // `vmims` is already in creation (FIFO) order: the first ones are the oldest.
      for (std::size_t i = 0; i + options.finished_kept_per_vmi < list.size(); ++i) {
        auto ns = text_at(*list[i], "/metadata/namespace"_json_pointer);
        auto name = text_at(*list[i], "/metadata/name"_json_pointer);
        release_finalizer(ns, name);
        store.remove(kv::vmim_key, ns, name);
      }
    }
  }

};

kubevirt_controller::kubevirt_controller(object_store& store, kubevirt_controller_options options)
  : impl_(std::make_unique<impl>(store, std::move(options))) {}

kubevirt_controller::~kubevirt_controller() {
  stop();
}

void kubevirt_controller::start() {
  impl_->ticker.start(impl_->options.tick_interval, [this](clock_type::time_point now) { impl_->tick(now); });
}

void kubevirt_controller::stop() {
  if (impl_)
    impl_->ticker.stop();
}

void kubevirt_controller::tick(std::chrono::system_clock::time_point now) {
  impl_->tick(now);
}

} // namespace schedopt::sim
