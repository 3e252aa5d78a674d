// The audit record: VMIM records keyed by uid (a name is reused across incarnations),
// fed by the store's change observer; writes appended by the API server.
#include "sim/audit_log.hpp"

#include <ctime>
#include <vector>

#include <spdlog/spdlog.h>

#include "sim/json_fields.hpp"
#include "sim/kubevirt_names.hpp"
#include "sim/object_store.hpp"
#include "sim/pod_facts.hpp"

namespace schedopt::sim {

namespace {

using json = nlohmann::json;

constexpr const char* request_uid_label = "schedopt.libopenstorage.org/request-uid";
// Credited for VMIMs created without an HTTP request (in-process scenario or failover code).
constexpr const char* in_process_identity = "schedopt-sim";

// Null outside an HTTP request; a request without a User-Agent names "".
thread_local const std::string* current_identity = nullptr;
// True while attach() replays the pods that already exist: they are remembered, not
// recorded as created.
thread_local bool replaying_existing_pods = false;

bool is_final(const std::string& phase) {
  return phase == kubevirt::phase_succeeded || phase == kubevirt::phase_failed;
}

} // namespace

std::string rfc3339_millis(std::chrono::system_clock::time_point t) {
  auto since_epoch = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch());
  auto seconds = static_cast<std::time_t>(since_epoch.count() / 1000);
  auto millis = static_cast<int>(since_epoch.count() % 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[40];
  auto n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof buf - n, ".%03dZ", millis);
  return buf;
}

client_identity_scope::client_identity_scope(std::string identity)
  : saved_(current_identity), identity_(std::move(identity)) {
  current_identity = &identity_;
}

client_identity_scope::~client_identity_scope() {
  current_identity = saved_;
}

audit_log::audit_log(std::size_t max_vmims, std::size_t max_writes, std::size_t max_pod_records)
  : max_vmims_(std::max<std::size_t>(max_vmims, 1)), max_writes_(std::max<std::size_t>(max_writes, 1)),
    max_pod_records_(std::max<std::size_t>(max_pod_records, 1)) {}

void audit_log::attach(object_store& store) {
  store.add_observer(kubevirt::vmim_key, [self = shared_from_this()](const object_store::change& c) {
    const auto& obj = c.object;
    std::shared_ptr<const json> vmi;
    if (c.type == "ADDED")
      vmi = c.peek(kubevirt::vmi_key, text_at(obj, "/metadata/namespace"_json_pointer),
                   text_at(obj, "/spec/vmiName"_json_pointer));
    self->observe(c.type, obj, vmi.get());
  });
  replaying_existing_pods = true;
  store.add_observer(
    pods_key, [self = shared_from_this()](const object_store::change& c) { self->observe_pod(c.type, c.object); },
    /*replay_current=*/true);
  replaying_existing_pods = false;
}

void audit_log::observe_pod(const std::string& type, const json& pod) {
  auto key = namespace_of(pod) + "/" + name_of(pod);
  pod_state now{uid_of(pod), text_at(pod, "/spec/nodeName"_json_pointer), is_pod_ready(pod), is_terminating(pod)};
  std::lock_guard<std::mutex> guard(mtx_);
  if (replaying_existing_pods) {
    pod_states_[key] = now;
    return;
  }
  auto it = pod_states_.find(key);
  pod_state before;
  bool known = it != pod_states_.end() && it->second.uid == now.uid;
  if (known)
    before = it->second;
  std::vector<const char*> steps;
  if (type == "ADDED" || !known)
    steps.push_back("created");
  if (type != "DELETED") {
    if (!now.node.empty() && before.node.empty())
      steps.push_back("scheduled");
    if (now.ready && !before.ready)
      steps.push_back("ready");
    if (now.terminating && !before.terminating)
      steps.push_back("terminating");
    pod_states_[key] = now;
  } else {
    steps.push_back("deleted");
    pod_states_.erase(key);
  }
  auto owner = controller_of(pod);
  auto time = rfc3339_millis(std::chrono::system_clock::now());
  for (const char* step : steps) {
    if (pods_.size() >= max_pod_records_) {
      if (pods_dropped_ == 0)
        spdlog::warn("audit: more than {} pod records; dropping the oldest", max_pod_records_);
      pods_.pop_front();
      ++pods_dropped_;
    }
    pods_.push_back({time, step, namespace_of(pod), name_of(pod), now.uid,
                     owner.is_object() ? owner.value("kind", std::string{}) : std::string{},
                     owner.is_object() ? owner.value("name", std::string{}) : std::string{}, now.node,
                     current_identity != nullptr ? *current_identity : in_process_identity});
  }
}

void audit_log::observe(const std::string& type, const json& object, const json* vmi) {
  auto uid = text_at(object, "/metadata/uid"_json_pointer);
  if (uid.empty())
    return;
  auto now = std::chrono::system_clock::now();
  std::lock_guard<std::mutex> guard(mtx_);
  vmim_record* record = nullptr;
  if (auto it = vmim_index_.find(uid); it != vmim_index_.end()) {
    record = &vmims_[it->second - vmims_dropped_];
  } else {
    // First sight: normally the ADDED commit; a VMIM stored before attach() is recorded
    // from its first change, without the creation details nobody saw.
    vmim_record fresh;
    fresh.ns = text_at(object, "/metadata/namespace"_json_pointer);
    fresh.name = text_at(object, "/metadata/name"_json_pointer);
    fresh.uid = uid;
    fresh.vmi = text_at(object, "/spec/vmiName"_json_pointer);
    auto labels = object.value("/metadata/labels"_json_pointer, json::object());
    if (labels.is_object())
      fresh.request_uid = labels.value(request_uid_label, std::string{});
    if (type == "ADDED") {
      fresh.created_at = rfc3339_millis(now);
      fresh.created_by = current_identity != nullptr ? *current_identity : in_process_identity;
      if (vmi != nullptr)
        fresh.source_node = text_at(*vmi, "/status/nodeName"_json_pointer);
    }
    if (vmims_.size() >= max_vmims_) {
      if (vmims_dropped_ == 0)
        spdlog::warn("audit: more than {} VMIMs recorded; dropping the oldest records", max_vmims_);
      vmim_index_.erase(vmims_.front().uid);
      vmims_.pop_front();
      ++vmims_dropped_;
    }
    vmim_index_[uid] = vmims_dropped_ + vmims_.size();
    vmims_.push_back(std::move(fresh));
    record = &vmims_.back();
  }
  // KubeVirt's own record of the nodes wins once it has one.
  if (auto source = text_at(object, "/status/migrationState/sourceNode"_json_pointer); !source.empty())
    record->source_node = source;
  if (auto target = text_at(object, "/status/migrationState/targetNode"_json_pointer); !target.empty())
    record->target_node = target;
  auto phase = text_at(object, "/status/phase"_json_pointer);
  if (!phase.empty()) {
    if (is_final(phase) && record->finished_at.empty())
      record->finished_at = rfc3339_millis(now);
    if (phase != kubevirt::phase_pending && record->handed_off_at.empty())
      record->handed_off_at = rfc3339_millis(now);
    record->phase = phase;
  }
  if (type == "DELETED")
    record->deleted = true;
}

void audit_log::record_write(audit_write write) {
  std::lock_guard<std::mutex> guard(mtx_);
  if (writes_.size() >= max_writes_) {
    if (writes_dropped_ == 0)
      spdlog::warn("audit: more than {} writes recorded; dropping the oldest records", max_writes_);
    writes_.pop_front();
    ++writes_dropped_;
  }
  writes_.push_back(std::move(write));
}

void audit_log::record_eviction(audit_eviction eviction) {
  std::lock_guard<std::mutex> guard(mtx_);
  if (evictions_.size() >= max_writes_) {
    evictions_.pop_front();
    ++evictions_dropped_;
  }
  evictions_.push_back(std::move(eviction));
}

json audit_log::to_json(uint64_t writes_since, uint64_t* next_since) const {
  std::lock_guard<std::mutex> guard(mtx_);
  json vmims = json::array();
  for (const auto& r : vmims_)
    vmims.push_back({{"namespace", r.ns},
                     {"name", r.name},
                     {"uid", r.uid},
                     {"vmi", r.vmi},
                     {"requestUid", r.request_uid},
                     {"createdAt", r.created_at},
                     {"createdBy", r.created_by},
                     {"sourceNode", r.source_node},
                     {"targetNode", r.target_node},
                     {"phase", r.phase},
                     {"handedOffAt", r.handed_off_at},
                     {"finishedAt", r.finished_at},
                     {"deleted", r.deleted}});
  json writes = json::array();
  std::size_t first = writes_since > writes_dropped_ ? static_cast<std::size_t>(writes_since - writes_dropped_) : 0;
  for (std::size_t i = first; i < writes_.size(); ++i) {
    const auto& w = writes_[i];
    writes.push_back({{"time", rfc3339_millis(w.time)},
                      {"verb", w.verb},
                      {"resource", w.resource},
                      {"subresource", w.subresource},
                      {"namespace", w.ns},
                      {"name", w.name},
                      {"identity", w.identity},
                      {"user", w.user},
                      {"code", w.code}});
  }
  if (next_since != nullptr)
    *next_since = writes_dropped_ + writes_.size();
  json evictions = json::array();
  for (const auto& e : evictions_)
    evictions.push_back({{"time", rfc3339_millis(e.time)},
                         {"identity", e.identity},
                         {"user", e.user},
                         {"namespace", e.ns},
                         {"pod", e.pod},
                         {"podUid", e.pod_uid},
                         {"node", e.node},
                         {"podReady", e.pod_ready},
                         {"code", e.code},
                         {"outcome", e.outcome},
                         {"pdb", e.pdb},
                         {"disruptionsAllowed", e.disruptions_allowed ? json(*e.disruptions_allowed) : json()},
                         {"budgetDecremented", e.budget_decremented},
                         {"dryRun", e.dry_run}});
  json pods = json::array();
  for (const auto& p : pods_)
    pods.push_back({{"time", p.time},
                    {"event", p.event},
                    {"namespace", p.ns},
                    {"name", p.name},
                    {"uid", p.uid},
                    {"ownerKind", p.owner_kind},
                    {"ownerName", p.owner_name},
                    {"node", p.node},
                    {"by", p.by}});
  return {{"vmims", std::move(vmims)},
          {"writes", std::move(writes)},
          {"evictions", std::move(evictions)},
          {"pods", std::move(pods)}};
}

uint64_t audit_log::pod_records_dropped() const {
  std::lock_guard<std::mutex> guard(mtx_);
  return pods_dropped_ + evictions_dropped_;
}

uint64_t audit_log::vmims_dropped() const {
  std::lock_guard<std::mutex> guard(mtx_);
  return vmims_dropped_;
}

uint64_t audit_log::writes_dropped() const {
  std::lock_guard<std::mutex> guard(mtx_);
  return writes_dropped_;
}

} // namespace schedopt::sim
