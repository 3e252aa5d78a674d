// The migration loop reads the VMIM's status as its state (kwok-style); only the due
// time of the next step and a FIFO sequence number live in memory.
#include "sim/kubevirt_controller.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <optional>
#include <condition_variable>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include <spdlog/spdlog.h>

#include "model/decode.hpp"
#include "model/node_admission.hpp"
#include "model/quantity.hpp"
#include "model/timestamp.hpp"
#include "sim/kubevirt_names.hpp"
#include "sim/object_store.hpp"
#include "sim/vmi_usage_index.hpp"

namespace schedopt::sim {

namespace {

using clock_type = std::chrono::system_clock;
namespace kv = kubevirt;

std::string str(const json& j, const json::json_pointer& p) {
  if (!j.contains(p) || !j.at(p).is_string())
    return {};
  return j.at(p).get<std::string>();
}

bool is_final(const std::string& phase) {
  return phase == kv::phase_succeeded || phase == kv::phase_failed;
}

bool is_deleting(const json& m) {
  return m.contains("metadata") && m["metadata"].contains("deletionTimestamp") &&
         !m["metadata"]["deletionTimestamp"].is_null();
}

uint64_t resource_version_of(const json& m) {
  try {
    return std::stoull(str(m, "/metadata/resourceVersion"_json_pointer));
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

bool node_usable(const json& node) {
  if (node.value("/spec/unschedulable"_json_pointer, false))
    return false;
  auto conds = node.value("/status/conditions"_json_pointer, json::array());
  for (const auto& c : conds)
    if (c.value("type", "") == "Ready")
      return c.value("status", "") == "True";
  return false;
}

bool matches_selector(const json& node, const json& selector) {
  if (!selector.is_object())
    return true;
  auto labels = node.value("/metadata/labels"_json_pointer, json::object());
  for (const auto& [key, value] : selector.items())
    if (!labels.contains(key) || labels[key] != value)
      return false;
  return true;
}

/// The kube-scheduler's word for a refusal (node_admission.hpp refusal()).
std::string scheduler_reason(const std::string& refusal) {
  if (refusal == "not Ready")
    return "node(s) were not ready";
  if (refusal == "cordoned")
    return "node(s) were unschedulable";
  if (refusal.rfind("nodeSelector ", 0) == 0 || refusal.rfind("required node affinity", 0) == 0)
    return "node(s) didn't match Pod's node affinity/selector";
  if (refusal.rfind("taint ", 0) == 0)
    return "node(s) had untolerated taint {" + refusal.substr(6, refusal.find(' ', 6) - 6) + "}";
  if (refusal.find(" memory free") != std::string::npos)
    return "Insufficient memory";
  if (refusal.find(" CPU free") != std::string::npos)
    return "Insufficient cpu";
  return refusal;
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

  std::thread thread;
  std::mutex stop_mutex;
  std::condition_variable stop_cv;
  bool stopping = false;

  impl(object_store& s, kubevirt_controller_options o)
    : store(s), options(std::move(o)), rng(options.seed ^ 0x6b75626576697274ULL) {
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

  void schedule_next(tracked& t, const std::string& phase, clock_type::time_point now) {
    auto stage = find_stage(options.stages, phase);
    t.due = now + (stage ? jittered_delay(*stage, rng) : std::chrono::milliseconds{0});
    t.due_set = true;
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

  /// The least-loaded node the target pod can schedule on, as the kube-scheduler would:
  /// addedNodeSelector, then the VMI's nodeSelector, required affinity, tolerations and
  /// requests against what is placed there. Empty when none; `why` then says why, worded
  /// like the scheduler's FailedScheduling message.
  std::string pick_target(const json& vmim, const std::string& source, const std::vector<json>& nodes,
                          const std::map<std::string, int>& load, const virtual_machine_instance* vmi,
                          const std::map<std::string, node>& decoded,
                          const std::map<std::string, node_usage>& usage, std::string& why) {
    auto selector = vmim.value("/spec/addedNodeSelector"_json_pointer, json::object());
    std::string best;
    int best_load = 0;
    std::map<std::string, int> refused; // scheduler reason -> nodes
    static const node_usage nothing;
    for (const auto& node : nodes) {
      auto name = str(node, "/metadata/name"_json_pointer);
      if (name == source) {
        ++refused["node(s) were the migration source"];
        continue;
      }
      if (!matches_selector(node, selector)) {
        ++refused["node(s) didn't match Pod's node affinity/selector"];
        continue;
      }
      if (!node_usable(node)) {
        ++refused[node.value("/spec/unschedulable"_json_pointer, false) ? "node(s) were unschedulable"
                                                                       : "node(s) were not ready"];
        continue;
      }
      if (auto d = decoded.find(name); vmi && d != decoded.end()) {
        auto u = usage.find(name);
        if (auto no = refusal(*vmi, d->second, u == usage.end() ? nothing : u->second)) {
          ++refused[scheduler_reason(*no)];
          continue;
        }
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

  /// A Warning FailedScheduling event on the migration, as the target pod's would read.
  void report_unschedulable(const json& m, const std::string& message, const std::string& when) {
    auto ns = str(m, "/metadata/namespace"_json_pointer);
    auto name = str(m, "/metadata/name"_json_pointer);
    json event = {{"apiVersion", "v1"},
                  {"kind", "Event"},
                  {"metadata", {{"generateName", name + "."}, {"namespace", ns}}},
                  {"involvedObject",
                   {{"apiVersion", "kubevirt.io/v1"},
                    {"kind", "VirtualMachineInstanceMigration"},
                    {"name", name},
                    {"namespace", ns},
                    {"uid", str(m, "/metadata/uid"_json_pointer)}}},
                  {"type", "Warning"},
                  {"reason", "FailedScheduling"},
                  {"message", "target pod pending: " + message},
                  {"count", 1},
                  {"firstTimestamp", when},
                  {"lastTimestamp", when},
                  {"source", {{"component", "default-scheduler"}}},
                  {"reportingComponent", "default-scheduler"}};
    spdlog::info("kubevirt: migration {}/{} stays Scheduling: {}", ns, name, message);
    if (!store.find_type("events"))
      return; // a bare store (unit tests) keeps no events
    if (auto made = store.create("events", std::move(event)); !made)
      spdlog::warn("kubevirt: FailedScheduling event for {}/{}: {}", ns, name, made.err().message);
  }

  void abort(const json& m, const std::string& when) {
    auto ns = str(m, "/metadata/namespace"_json_pointer);
    auto name = str(m, "/metadata/name"_json_pointer);
    auto vmi = str(m, "/spec/vmiName"_json_pointer);
    json state = m.value("/status/migrationState"_json_pointer, json::object());
    state["migrationUid"] = str(m, "/metadata/uid"_json_pointer);
    state["abortRequested"] = true;
    state["abortStatus"] = "Succeeded";
    state["completed"] = true;
    state["failed"] = true;
    state["failureReason"] = "Live migration aborted";
    state["endTimestamp"] = when;
    write_status(kv::vmim_key, ns, name, [&](json& status) {
      record_phase(status, kv::phase_failed, when);
      status["migrationState"] = state;
    });
    if (state.contains("sourceNode"))
      mirror_to_vmi(ns, vmi, state, {});
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
      if (!by_uid.count(str(*m, "/metadata/uid"_json_pointer)))
        fresh.push_back(m);
    std::stable_sort(fresh.begin(), fresh.end(), [](const json* a, const json* b) {
      auto ta = str(*a, "/metadata/creationTimestamp"_json_pointer);
      auto tb = str(*b, "/metadata/creationTimestamp"_json_pointer);
      return ta != tb ? ta < tb : resource_version_of(*a) < resource_version_of(*b);
    });
    for (const auto* m : fresh)
      by_uid[str(*m, "/metadata/uid"_json_pointer)].seq = next_seq++;
    std::sort(vmims.begin(), vmims.end(), [this](const json* a, const json* b) {
      return by_uid[str(*a, "/metadata/uid"_json_pointer)].seq < by_uid[str(*b, "/metadata/uid"_json_pointer)].seq;
    });

    // Idle clusters with thousands of VMIs should cost nothing per tick.
    bool busy = std::any_of(vmims.begin(), vmims.end(), [](const json* m) {
      return is_deleting(*m) || !is_final(str(*m, "/status/phase"_json_pointer)) ||
             m->value("/metadata/finalizers"_json_pointer, json::array()).size() > 0;
    });
    if (!busy) {
      garbage_collect(vmims);
      return;
    }
    auto nodes = store.list("nodes").items;
    std::map<std::string, int> load; // VMIs per node, plus migrations heading there
    std::map<std::string, node_usage> usage; // requests per node, target pods included
    std::map<std::string, node> decoded;     // nodes as the admission rules read them
    bool load_counted = false;
    auto count_load = [&] {
      if (load_counted)
        return;
      load_counted = true;
      // Target pods of migrations past Scheduling hold their VMI's requests there.
      std::map<std::string, std::vector<std::string>> targets_of; // VMI ns/name -> nodes
      for (const auto* mp : vmims) {
        auto phase = str(*mp, "/status/phase"_json_pointer);
        auto target = str(*mp, "/status/migrationState/targetNode"_json_pointer);
        if (target.empty() || is_final(phase) || is_deleting(*mp))
          continue;
        targets_of[str(*mp, "/metadata/namespace"_json_pointer) + "/" + str(*mp, "/spec/vmiName"_json_pointer)]
          .push_back(target);
      }
      auto add = [&](const std::string& node, const node_usage& r) {
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
      for (const auto& n : nodes)
        if (auto d = decode_node(n.dump()))
          decoded[d->metadata.name] = std::move(*d);
    };

    int active = 0;
    std::map<std::string, int> outbound;
    for (const auto* mp : vmims) {
      const auto& m = *mp;
      auto phase = str(m, "/status/phase"_json_pointer);
      if (phase == kv::phase_pending && !is_deleting(m)) {
        auto t = by_uid.find(str(m, "/metadata/uid"_json_pointer));
        if (t != by_uid.end() && t->second.admitted) {
          ++active;
          ++outbound[t->second.admitted_source];
        }
        continue;
      }
      if (phase.empty() || is_final(phase) || is_deleting(m))
        continue;
      ++active;
      ++outbound[str(m, "/status/migrationState/sourceNode"_json_pointer)];
      auto target = str(m, "/status/migrationState/targetNode"_json_pointer);
      if (!target.empty())
        ++load[target];
    }

    std::set<std::string> seen;
    for (const auto* mp : vmims) {
      const auto& m = *mp;
      auto uid = str(m, "/metadata/uid"_json_pointer);
      seen.insert(uid);
      auto& t = by_uid[uid];
      auto ns = str(m, "/metadata/namespace"_json_pointer);
      auto name = str(m, "/metadata/name"_json_pointer);
      auto vmi = str(m, "/spec/vmiName"_json_pointer);
      auto phase = str(m, "/status/phase"_json_pointer);

      if (is_deleting(m)) {
        if (!is_final(phase)) {
          abort(m, when);
          if (phase == kv::phase_pending && t.admitted) {
            --active;
            --outbound[t.admitted_source];
          } else if (phase != kv::phase_pending && !phase.empty()) {
            --active;
            --outbound[str(m, "/status/migrationState/sourceNode"_json_pointer)];
          }
        }
        release_finalizer(ns, name);
        store.remove(kv::vmim_key, ns, name); // gone now that no finalizer holds it
        continue;
      }
      if (is_final(phase)) {
        auto finalizers = m.value("/metadata/finalizers"_json_pointer, json::array());
        if (std::find(finalizers.begin(), finalizers.end(), kv::migration_finalizer) != finalizers.end())
          release_finalizer(ns, name);
        continue;
      }
      if (phase.empty()) {
        write_status(kv::vmim_key, ns, name, [&](json& status) { record_phase(status, kv::phase_pending, when); });
        schedule_next(t, kv::phase_pending, now);
        continue;
      }
      if (!t.due_set)
        schedule_next(t, phase, now); // adopted after a restart
      if (phase == kv::phase_pending && !t.admitted) {
        auto current = store.get(kv::vmi_key, ns, vmi);
        auto source = current ? str(*current, "/status/nodeName"_json_pointer) : std::string{};
        if (!current || str(*current, "/status/phase"_json_pointer) != "Running" || source.empty()) {
          fail(m, "VMI " + vmi + " is not running", when, {});
          continue;
        }
        if (active >= options.parallel_migrations_per_cluster ||
            outbound[source] >= options.parallel_outbound_migrations_per_node)
          continue; // KubeVirt leaves the excess Pending
        ++active;
        ++outbound[source];
        t.admitted = true;
        t.admitted_source = source;
        schedule_next(t, kv::phase_pending, now); // the target pod's creation starts now
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
        schedule_next(t, kv::phase_scheduling, now);
        continue;
      }
      if (phase == kv::phase_scheduling) {
        auto source = str(m, "/status/migrationState/sourceNode"_json_pointer);
        count_load();
        std::optional<virtual_machine_instance> subject;
        if (auto current = store.get(kv::vmi_key, ns, vmi))
          if (auto d = decode_vmi(current->dump()))
            subject = std::move(*d);
        std::string why;
        auto target = pick_target(m, source, nodes, load, subject ? &*subject : nullptr, decoded, usage, why);
        if (target.empty()) {
          // The target pod stays Pending, and so the migration stays Scheduling.
          if (why != t.unschedulable)
            report_unschedulable(m, why, when);
          t.unschedulable = why;
          continue;
        }
        ++load[target];
        if (subject) {
          usage[target].cpu_millis += subject->requests.cpu_millis.value_or(0);
          usage[target].memory_bytes += subject->requests.memory_bytes.value_or(0);
        }
        json state = m.value("/status/migrationState"_json_pointer, json::object());
        state["targetNode"] = target;
        state["targetPod"] = "virt-launcher-" + vmi + "-" + uid.substr(0, std::min<std::size_t>(5, uid.size()));
        write_status(kv::vmim_key, ns, name, [&](json& status) {
          record_phase(status, kv::phase_scheduled, when);
          status["migrationState"] = state;
        });
        mirror_to_vmi(ns, vmi, state, {});
        schedule_next(t, kv::phase_scheduled, now);
        continue;
      }
      if (phase == kv::phase_running) {
        std::uniform_real_distribution<double> coin{0.0, 1.0};
        if (options.migration_failure_rate > 0.0 && coin(rng) < options.migration_failure_rate) {
          std::uniform_int_distribution<std::size_t> pick{0, std::size(failure_reasons) - 1};
          fail(m, failure_reasons[pick(rng)], when, {});
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
      schedule_next(t, next, now);
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
    auto ns = str(m, "/metadata/namespace"_json_pointer);
    auto name = str(m, "/metadata/name"_json_pointer);
    json state = m.value("/status/migrationState"_json_pointer, json::object());
    state["completed"] = true;
    state["endTimestamp"] = when;
    write_status(kv::vmim_key, ns, name, [&](json& status) {
      record_phase(status, kv::phase_succeeded, when);
      status["migrationState"] = state;
    });
    auto vmi = str(m, "/spec/vmiName"_json_pointer);
    if (options.vmi_update_lag.count() > 0)
      pending_ends.push_back({now + options.vmi_update_lag, ns, vmi, state.value("targetNode", ""), state});
    else
      mirror_to_vmi(ns, vmi, state, state.value("targetNode", ""));
    release_finalizer(ns, name);
  }

  void fail(const json& m, const std::string& reason, const std::string& when, const std::string&) {
    auto ns = str(m, "/metadata/namespace"_json_pointer);
    auto name = str(m, "/metadata/name"_json_pointer);
    json state = m.value("/status/migrationState"_json_pointer, json::object());
    state["migrationUid"] = str(m, "/metadata/uid"_json_pointer);
    state["completed"] = true;
    state["failed"] = true;
    state["failureReason"] = reason;
    state["endTimestamp"] = when;
    write_status(kv::vmim_key, ns, name, [&](json& status) {
      record_phase(status, kv::phase_failed, when);
      status["migrationState"] = state;
      status["conditions"] = json::array({{{"type", "Failed"},
                                           {"status", "True"},
                                           {"reason", "MigrationFailed"},
                                           {"message", reason},
                                           {"lastProbeTime", nullptr},
                                           {"lastTransitionTime", when}}});
    });
    if (state.contains("sourceNode"))
      mirror_to_vmi(ns, str(m, "/spec/vmiName"_json_pointer), state, {});
    release_finalizer(ns, name);
  }

  /// KubeVirt keeps a buffer of finished VMIMs per VMI and deletes the oldest beyond it.
  void garbage_collect(const std::vector<const json*>& vmims) {
    std::map<std::string, std::vector<const json*>> finished;
    for (const auto* mp : vmims) {
      const auto& m = *mp;
      if (is_deleting(m))
        continue;
      // Phases as of this tick's snapshot: a VMIM finished just now is counted next tick.
      if (!is_final(str(m, "/status/phase"_json_pointer)))
        continue;
      finished[str(m, "/metadata/namespace"_json_pointer) + "/" + str(m, "/spec/vmiName"_json_pointer)].push_back(&m);
    }
    for (auto& [vmi, list] : finished) {
      if (list.size() <= options.finished_kept_per_vmi)
        continue;
      // `vmims` is already in creation (FIFO) order: the first ones are the oldest.
      for (std::size_t i = 0; i + options.finished_kept_per_vmi < list.size(); ++i) {
        auto ns = str(*list[i], "/metadata/namespace"_json_pointer);
        auto name = str(*list[i], "/metadata/name"_json_pointer);
        release_finalizer(ns, name);
        store.remove(kv::vmim_key, ns, name);
      }
    }
  }

  void run() {
    for (;;) {
      tick(clock_type::now());
      std::unique_lock<std::mutex> lock{stop_mutex};
      if (stop_cv.wait_for(lock, options.tick_interval, [this] { return stopping; }))
        return;
    }
  }
};

kubevirt_controller::kubevirt_controller(object_store& store, kubevirt_controller_options options)
  : impl_(std::make_unique<impl>(store, std::move(options))) {}

kubevirt_controller::~kubevirt_controller() {
  stop();
}

void kubevirt_controller::start() {
  if (impl_->thread.joinable())
    return;
  {
    std::lock_guard<std::mutex> guard{impl_->stop_mutex};
    impl_->stopping = false;
  }
  impl_->thread = std::thread{[this] { impl_->run(); }};
}

void kubevirt_controller::stop() {
  if (!impl_ || !impl_->thread.joinable())
    return;
  {
    std::lock_guard<std::mutex> guard{impl_->stop_mutex};
    impl_->stopping = true;
  }
  impl_->stop_cv.notify_all();
  impl_->thread.join();
}

void kubevirt_controller::tick(std::chrono::system_clock::time_point now) {
  impl_->tick(now);
}

} // namespace schedopt::sim
