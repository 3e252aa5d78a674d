// kubevirt pkg/virt-controller/watch/drain/evacuation/evacuation.go. The informers'
// event handlers become store observers that queue a node (enqueueVMI, addMigration,
// enqueueMigration, enqueueNode); tick() is the worker (execute, sync). Only VMIs marked
// for evacuation are indexed, so a node without any costs a lookup per change.
#include "sim/evacuation_controller.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "sim/event_recorder.hpp"
#include "sim/json_fields.hpp"
#include "sim/kubevirt_names.hpp"
#include "sim/object_store.hpp"
#include "sim/tick_thread.hpp"

namespace schedopt::sim {

namespace {

using json = nlohmann::json;
using clock_type = std::chrono::system_clock;
namespace kv = kubevirt;

constexpr const char* evacuation_annotation = "kubevirt.io/evacuationMigration"; // v1.EvacuationMigrationAnnotation
constexpr const char* evacuation_recorder_name = "virtualmachine-controller"; // virt-controller's recorder

/// What sync needs of a VMI marked for evacuation.
struct marked_vmi {
  std::string ns, name, uid;
  std::string node;           // status.nodeName
  std::string evacuation_node; // status.evacuationNodeName
  std::string strategy;       // spec.evictionStrategy, "" for the cluster's
  bool final_or_deleting = false;
  bool migratable = false;    // condition LiveMigratable=True
  bool migrating = false;     // migrations.go IsMigrating: started and not ended
  bool migrated_here = false; // migrationState completed, not failed, targetNode == node
  std::size_t active_pods = 0;
  bool descheduled = false;   // annotation kubevirt.io/eviction-source: descheduler
};

marked_vmi facts_of(const json& vmi) {
  marked_vmi f;
  f.ns = text_at(vmi, "/metadata/namespace"_json_pointer);
  f.name = text_at(vmi, "/metadata/name"_json_pointer);
  f.descheduled = vmi.value("/metadata/annotations"_json_pointer, json::object()).value("kubevirt.io/eviction-source", "")
                  == "descheduler";
  f.uid = text_at(vmi, "/metadata/uid"_json_pointer);
  f.node = text_at(vmi, "/status/nodeName"_json_pointer);
  f.evacuation_node = text_at(vmi, "/status/evacuationNodeName"_json_pointer);
  f.strategy = text_at(vmi, "/spec/evictionStrategy"_json_pointer);
  auto phase = text_at(vmi, "/status/phase"_json_pointer);
  f.final_or_deleting = phase == "Succeeded" || phase == "Failed"
                        || (vmi.contains("/metadata/deletionTimestamp"_json_pointer)
                            && !vmi.at("/metadata/deletionTimestamp"_json_pointer).is_null());
  for (const auto& c : vmi.value("/status/conditions"_json_pointer, json::array()))
    if (c.value("type", "") == "LiveMigratable")
      f.migratable = c.value("status", "") == "True";
  auto state = vmi.value("/status/migrationState"_json_pointer, json::object());
  if (state.is_object()) {
    // Timestamps are in the past when written, so "started" and "ended" are presence.
    f.migrating = state.contains("startTimestamp") && !state["startTimestamp"].is_null()
                  && (!state.contains("endTimestamp") || state["endTimestamp"].is_null());
    f.migrated_here = state.value("completed", false) && !state.value("failed", false)
                      && state.value("targetNode", std::string{}) == f.node;
  }
  auto pods = vmi.value("/status/activePods"_json_pointer, json::object());
  f.active_pods = pods.is_object() ? pods.size() : 0;
  return f;
}

bool vmim_final(const std::string& phase) {
  return phase == kv::phase_succeeded || phase == kv::phase_failed;
}

/// types.go VirtualMachineInstanceMigration.IsRunning: past Pending and not final.
bool vmim_running(const std::string& phase) {
  return !phase.empty() && phase != kv::phase_pending && phase != "WaitingForSync" && phase != "Synchronizing"
         && !vmim_final(phase);
}

} // namespace

/// What the observers write and the worker reads; the store keeps it alive.
struct evacuation_index {
  std::mutex mutex;
  std::map<std::string, marked_vmi> marked;                 // "ns/name"
  std::map<std::string, std::set<std::string>> by_node;     // status.nodeName -> "ns/name"
  std::set<std::string> queued;                             // nodes to sync now

  void unindex(const std::string& key) {
    auto it = marked.find(key);
    if (it == marked.end())
      return;
    auto n = by_node.find(it->second.node);
    if (n != by_node.end()) {
      n->second.erase(key);
      if (n->second.empty())
        by_node.erase(n);
    }
    marked.erase(it);
  }

  void observe_vmi(const std::string& type, const json& vmi) {
    auto f = facts_of(vmi);
    auto key = f.ns + "/" + f.name;
    std::lock_guard<std::mutex> guard{mutex};
    unindex(key);
    if (!f.node.empty())
      queued.insert(f.node); // enqueueVMI: the VMI's node
    if (type == "DELETED" || f.evacuation_node.empty())
      return;
    by_node[f.node].insert(key);
    marked.emplace(key, std::move(f));
  }
};

struct evacuation_controller::impl {
  object_store& store;
  evacuation_controller_options options;
  std::shared_ptr<evacuation_index> index = std::make_shared<evacuation_index>();
  std::map<std::string, clock_type::time_point> requeued; // Queue.AddAfter
  std::mutex tick_mutex;

  tick_thread ticker;

  impl(object_store& s, evacuation_controller_options o) : store(s), options(std::move(o)) {
    auto idx = index;
    store.add_observer(kv::vmi_key, [idx](const object_store::change& c) { idx->observe_vmi(c.type, c.object); },
                       /*replay_current=*/true);
    store.add_observer(kv::vmim_key, [idx](const object_store::change& c) {
      // addMigration queues the node an evacuation VMIM names; every other change
      // (enqueueMigration) the node of the migration's VMI.
      auto annotated = c.object.value("/metadata/annotations"_json_pointer, json::object()).value(evacuation_annotation, std::string{});
      std::string node;
      if (c.type == "ADDED" && !annotated.empty()) {
        node = annotated;
      } else if (auto vmi = c.peek(kv::vmi_key, text_at(c.object, "/metadata/namespace"_json_pointer),
                                   text_at(c.object, "/spec/vmiName"_json_pointer))) {
        node = text_at(*vmi, "/status/nodeName"_json_pointer);
      }
      if (node.empty())
        return;
      std::lock_guard<std::mutex> guard{idx->mutex};
      idx->queued.insert(node);
    });
    store.add_observer("nodes", [idx](const object_store::change& c) {
      std::lock_guard<std::mutex> guard{idx->mutex};
      idx->queued.insert(text_at(c.object, "/metadata/name"_json_pointer)); // enqueueNode
    });
  }

  void tick(clock_type::time_point now) {
    std::lock_guard<std::mutex> guard{tick_mutex};
    std::set<std::string> due;
    std::vector<marked_vmi> migrated_away;
    {
      std::lock_guard<std::mutex> index_guard{index->mutex};
      due.swap(index->queued);
      for (const auto& [key, f] : index->marked)
        if (f.node != f.evacuation_node && f.migrated_here)
          migrated_away.push_back(f);
    }
    for (auto it = requeued.begin(); it != requeued.end();) {
      if (it->second <= now) {
        due.insert(it->first);
        it = requeued.erase(it);
      } else {
        ++it;
      }
    }
    for (const auto& f : migrated_away)
      clear_mark(f);
    for (const auto& node : due)
      sync(node, now);
  }

  /// virt-handler migration-target.go ackMigrationCompletion: the target's handler
  /// clears evacuationNodeName as it takes the VMI over ("have already migrated to a
  /// new node"); the simulated migration loop moves the VMI without it.
  void clear_mark(const marked_vmi& f) {
    auto type = store.find_type(kv::vmi_key);
    store.modify(
      kv::vmi_key, f.ns, f.name,
      [&](json& vmi) {
        auto& status = vmi["status"];
        if (text_at(status, "/nodeName"_json_pointer) != f.node || !status.contains("evacuationNodeName"))
          return false;
        status.erase("evacuationNodeName");
        return true;
      },
      type && type->status_subresource);
  }

  void requeue(const std::string& node, clock_type::time_point at) {
    auto [it, fresh] = requeued.emplace(node, at);
    if (!fresh)
      it->second = std::min(it->second, at);
  }

  /// evacuation.go sync, for the drain path: the VMIs of `node` marked for eviction
  /// (getMarkedForEvictionVMIs). The deprecated nodeDrainTaintKey path, which takes every
  /// VMI of a node tainted kubevirt.io/drain, is not simulated: kubectl drain does not
  /// set that taint.
  void sync(const std::string& node, clock_type::time_point now) {
    std::vector<marked_vmi> to_migrate;
    {
      std::lock_guard<std::mutex> guard{index->mutex};
      auto on_node = index->by_node.find(node);
      if (on_node == index->by_node.end())
        return;
      for (const auto& key : on_node->second) {
        const auto& f = index->marked.at(key);
        // hasMigratedOnEviction, IsMigrating
        if (f.node == f.evacuation_node && !f.migrating)
          to_migrate.push_back(f);
      }
    }
    if (to_migrate.empty())
      return;
    auto settings = read_kubevirt_cr_settings(store, options.fallback);

    // migrations.ListUnfinishedMigrations
    std::vector<std::shared_ptr<const json>> unfinished;
    for (const auto& stored : store.list_stored(kv::vmim_key).items) {
      auto m = stored->parsed();
      if (!vmim_final(text_at(*m, "/status/phase"_json_pointer)))
        unfinished.push_back(std::move(m));
    }
    std::set<std::string> has_migration;
    for (const auto& m : unfinished)
      has_migration.insert(text_at(*m, "/metadata/namespace"_json_pointer) + "/"
                           + text_at(*m, "/spec/vmiName"_json_pointer));

    // filterRunningNonMigratingVMIs
    std::vector<marked_vmi> candidates, not_migratable;
    for (auto& f : to_migrate) {
      if (f.final_or_deleting)
        continue;
      auto strategy = f.strategy.empty() ? settings.eviction_strategy : f.strategy;
      // migrations.go VMIMigratableOnEviction
      bool wants = strategy == "LiveMigrate" || (strategy == "LiveMigrateIfPossible" && f.migratable);
      if (!wants)
        continue;
      if (!f.migratable) {
        not_migratable.push_back(f);
        continue;
      }
      if (has_migration.count(f.ns + "/" + f.name))
        continue;
      if (f.active_pods > 1)
        continue; // a previous migration's pods have not terminated yet
      candidates.push_back(f);
    }
    if (candidates.empty() && not_migratable.empty())
      return;

    // FilterRunningMigrations, numOfVMIMForThisSourceNode. Upstream matches a running
    // VMIM to this node by VMI name alone; here by namespace and name.
    int running = 0, running_from_node = 0;
    for (const auto& m : unfinished) {
      if (!vmim_running(text_at(*m, "/status/phase"_json_pointer)))
        continue;
      ++running;
      auto vmi = store.get(kv::vmi_key, text_at(*m, "/metadata/namespace"_json_pointer),
                           text_at(*m, "/spec/vmiName"_json_pointer));
      if (vmi && text_at(*vmi, "/status/nodeName"_json_pointer) == node)
        ++running_from_node;
    }
    // evacuation.go sync with the priority queue (1.7 and 1.8 with the gate, always from
    // 1.9; commit "evacuation: always create migrations"): a migration for every
    // candidate at once, the caps left to the migration controller's queue.
    if (options.kubevirt.priority_queue_always_on()
        || (options.kubevirt.has_migration_priority() && settings.lists_gate(kv::priority_queue_gate))) {
      for (const auto& f : not_migratable)
        record_event(store, kubevirt_ref("VirtualMachineInstance", f.ns, f.name, f.uid), "Normal", "FailedCreate",
                     "VirtualMachineInstance is not migrateable", evacuation_recorder_name);
      if (!not_migratable.empty())
        requeue(node, now + options.not_migratable_requeue);
      if (!candidates.empty())
        spdlog::info("evacuation: node: {}, migrations: {}, candidates: {}, selected: {}", node, unfinished.size(),
                     candidates.size(), candidates.size());
      for (const auto& f : candidates)
        create_migration(f, node, true);
      return;
    }
    int free_spots = std::min(settings.parallel_migrations_per_cluster - running,
                              settings.parallel_outbound_migrations_per_node - running_from_node);
    if (free_spots <= 0) {
      requeue(node, now + options.no_spot_requeue);
      return;
    }
    int diff = std::min<int>(free_spots, static_cast<int>(candidates.size()));
    int remaining = free_spots - diff;
    int warn_count = std::min<int>(remaining, static_cast<int>(not_migratable.size()));
    for (int i = 0; i < warn_count; ++i)
      record_event(store, kubevirt_ref("VirtualMachineInstance", not_migratable[i].ns, not_migratable[i].name, not_migratable[i].uid),
                   "Normal", "FailedCreate", "VirtualMachineInstance is not migrateable", evacuation_recorder_name);
    if (diff == 0) {
      if (warn_count > 0)
        requeue(node, now + options.not_migratable_requeue);
      return;
    }
    spdlog::info("evacuation: node: {}, migrations: {}, candidates: {}, selected: {}", node, unfinished.size(),
                 candidates.size(), diff);
    for (int i = 0; i < diff; ++i)
      create_migration(candidates[i], node);
  }

  /// GenerateNewMigration, then the Create and its event. `prioritised`: with the
  /// priority queue, system-critical, or system-maintenance for a VMI the descheduler
  /// evicted (kubevirt.io/eviction-source: descheduler).
  void create_migration(const marked_vmi& f, const std::string& node, bool prioritised = false) {
    json vmim = {{"apiVersion", "kubevirt.io/v1"},
                 {"kind", "VirtualMachineInstanceMigration"},
                 {"metadata",
                  {{"generateName", "kubevirt-evacuation-"},
                   {"namespace", f.ns},
                   {"annotations", {{evacuation_annotation, node}}}}},
                 {"spec", {{"vmiName", f.name}}}};
    if (prioritised)
      vmim["spec"]["priority"] = f.descheduled ? "system-maintenance" : "system-critical";
    auto ref = kubevirt_ref("VirtualMachineInstance", f.ns, f.name, f.uid);
    auto made = store.create(kv::vmim_key, std::move(vmim));
    if (!made) {
      record_event(store, ref, "Warning", "FailedCreate", "Error creating a Migration: " + made.err().message, evacuation_recorder_name);
      return;
    }
    record_event(store, ref, "Normal", "SuccessfulCreate",
                 "Created Migration " + text_at(*made, "/metadata/name"_json_pointer), evacuation_recorder_name);
  }

};

evacuation_controller::evacuation_controller(object_store& store, evacuation_controller_options options)
  : impl_(std::make_unique<impl>(store, std::move(options))) {}

evacuation_controller::~evacuation_controller() {
  stop();
}

void evacuation_controller::start() {
  impl_->ticker.start(impl_->options.tick_interval, [this](clock_type::time_point now) { impl_->tick(now); });
}

void evacuation_controller::stop() {
  if (impl_)
    impl_->ticker.stop();
}

void evacuation_controller::tick(std::chrono::system_clock::time_point now) {
  impl_->tick(now);
}

} // namespace schedopt::sim
