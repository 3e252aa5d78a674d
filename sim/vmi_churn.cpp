// What a write changes follows kubevirt pkg/virt-handler/vm.go updateVMIStatusFromDomain
// and its helpers (updateGuestInfoFromDomain: status.guestOSInfo; updateMemoryInfo:
// status.memory.guestCurrent; the network status: status.interfaces[].ipAddresses;
// updateGuestAgentConditions: the AgentConnected condition's lastProbeTime), each written
// with updateVMIStatus's Update of the whole VMI (a /status write when the VMI type has
// a status subresource). Every write changes a value, so each one is a MODIFIED event.
#include "sim/vmi_churn.hpp"

#include <cmath>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/timestamp.hpp"
#include "sim/json_fields.hpp"
#include "sim/kubevirt_names.hpp"
#include "sim/object_store.hpp"
#include "sim/tick_thread.hpp"

namespace schedopt::sim {

namespace {

using json = nlohmann::json;
using clock_type = std::chrono::system_clock;

/// The Running VMIs, for a uniform pick in constant time.
struct running_set {
  std::mutex mutex;
  std::vector<std::string> keys; // "ns/name"
  std::unordered_map<std::string, std::size_t> position;

  void observe(const std::string& type, const json& vmi) {
    auto key = text_at(vmi, "/metadata/namespace"_json_pointer) + "/" + text_at(vmi, "/metadata/name"_json_pointer);
    bool running = type != "DELETED" && text_at(vmi, "/status/phase"_json_pointer) == "Running"
                   && !text_at(vmi, "/status/nodeName"_json_pointer).empty();
    std::lock_guard<std::mutex> guard{mutex};
    auto it = position.find(key);
    if (running && it == position.end()) {
      position.emplace(key, keys.size());
      keys.push_back(key);
    } else if (!running && it != position.end()) {
      auto at = it->second;
      position.erase(it);
      if (at + 1 != keys.size()) {
        keys[at] = std::move(keys.back());
        position[keys[at]] = at;
      }
      keys.pop_back();
    }
  }

  std::optional<std::string> pick(std::mt19937_64& rng) {
    std::lock_guard<std::mutex> guard{mutex};
    if (keys.empty())
      return std::nullopt;
    return keys[std::uniform_int_distribution<std::size_t>{0, keys.size() - 1}(rng)];
  }
};

/// A value unlike `current` out of two.
std::string other_of(const std::string& current, const char* a, const char* b) {
  return current == a ? b : a;
}

void change_memory(json& status) {
  // A balloon resize: libvirt's currentMemory, reported as guestCurrent.
  auto& memory = status["memory"];
  memory["guestCurrent"] = other_of(memory.value("guestCurrent", std::string{}), "4Gi", "4064Mi");
}

void change_interfaces(json& status) {
  // The guest agent reporting (or dropping) the interface's link-local IPv6 address.
  auto& interfaces = status["interfaces"];
  if (!interfaces.is_array() || interfaces.empty() || !interfaces[0].is_object())
    return;
  auto& nic = interfaces[0];
  auto primary = nic.value("ipAddress", std::string{});
  json addresses = json::array({primary});
  if (nic.value("ipAddresses", json::array()).size() <= 1)
    addresses.push_back("fe80::ff:fe00:1");
  nic["ipAddresses"] = addresses;
}

void change_guest_os(json& status) {
  // The guest booted another kernel.
  auto& os = status["guestOSInfo"];
  auto release = other_of(os.value("kernelRelease", std::string{}), "6.8.5-301.fc40.x86_64", "6.9.7-200.fc40.x86_64");
  os["kernelRelease"] = release;
  os["kernelVersion"] = "#1 SMP PREEMPT_DYNAMIC";
  os["prettyName"] = "Fedora Linux 40 (Cloud Edition)";
  os["versionId"] = "40";
  os["machine"] = "x86_64";
}

void probe_agent(json& status, const std::string& when) {
  auto& conditions = status["conditions"];
  if (!conditions.is_array())
    return;
  for (auto& c : conditions)
    if (c.value("type", "") == "AgentConnected")
      c["lastProbeTime"] = when;
}

} // namespace

struct vmi_churn::impl {
  object_store& store;
  vmi_churn_options options;
  std::shared_ptr<running_set> running = std::make_shared<running_set>();
  std::mt19937_64 rng;
  std::optional<clock_type::time_point> last;
  double owed = 0; // fractional writes carried to the next tick
  uint64_t writes = 0;
  std::mutex tick_mutex;

  tick_thread ticker;

  impl(object_store& s, vmi_churn_options o) : store(s), options(o), rng(o.seed ^ 0x636875726e000000ULL) {
    if (options.per_second <= 0)
      return; // no observer: a cluster without churn pays nothing
    auto set = running;
    store.add_observer(kubevirt::vmi_key, [set](const object_store::change& c) { set->observe(c.type, c.object); },
                       /*replay_current=*/true);
  }

  std::size_t tick(clock_type::time_point now) {
    std::lock_guard<std::mutex> guard{tick_mutex};
    if (options.per_second <= 0)
      return 0;
    if (!last) {
      last = now;
      return 0;
    }
    auto elapsed = std::chrono::duration<double>(now - *last).count();
    last = now;
    owed += std::max(0.0, elapsed) * options.per_second;
    auto due = static_cast<std::size_t>(std::floor(owed));
    owed -= static_cast<double>(due);
    auto type = store.find_type(kubevirt::vmi_key);
    bool status_only = type && type->status_subresource;
    auto when = format_rfc3339(now);
    std::size_t written = 0;
    for (std::size_t i = 0; i < due; ++i) {
      auto key = running->pick(rng);
      if (!key)
        break;
      auto slash = key->find('/');
      auto kind = writes++ % 3;
      auto result = store.modify(
        kubevirt::vmi_key, key->substr(0, slash), key->substr(slash + 1),
        [&](json& vmi) {
          if (text_at(vmi, "/status/phase"_json_pointer) != "Running")
            return false;
          auto& status = vmi["status"];
          if (kind == 0)
            change_memory(status);
          else if (kind == 1)
            change_interfaces(status);
          else
            change_guest_os(status);
          probe_agent(status, when);
          return true;
        },
        status_only);
      if (result)
        ++written;
    }
    return written;
  }

};

vmi_churn::vmi_churn(object_store& store, vmi_churn_options options)
  : impl_(std::make_unique<impl>(store, options)) {}

vmi_churn::~vmi_churn() {
  stop();
}

void vmi_churn::start() {
  if (impl_->options.per_second <= 0)
    return;
  impl_->ticker.start(impl_->options.tick_interval, [this](clock_type::time_point now) { impl_->tick(now); });
}

void vmi_churn::stop() {
  if (impl_)
    impl_->ticker.stop();
}

std::size_t vmi_churn::tick(std::chrono::system_clock::time_point now) {
  return impl_->tick(now);
}

} // namespace schedopt::sim
