// Follows kubernetes pkg/controller/disruption/disruption.go: trySync, getPodsForPdb,
// getExpectedPodCount, getExpectedScale (finders for ReplicationController, Deployment,
// ReplicaSet, StatefulSet, then the scale subresource, which no other simulated kind
// implements), countHealthyPods, buildDisruptedPodMap, updatePdbStatus and failSafe, and
// component-helpers apps/poddisruptionbudget UpdateDisruptionAllowedCondition.
#include "sim/disruption_controller.hpp"

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/timestamp.hpp"
#include "sim/audit_log.hpp"
#include "sim/object_store.hpp"
#include "sim/pod_facts.hpp"
#include "sim/selectors.hpp"

namespace schedopt::sim {

using json = nlohmann::json;

namespace {

constexpr const char* disruption_controller_name = "disruption-controller";

using clock_type = std::chrono::system_clock;

struct sync_error {
  std::string message;
};

/// intstr.GetScaledValueFromIntOrPercent: an integer as is, "N%" of `total` rounded up
/// (both callers here round up); anything else is an error.
std::optional<int64_t> scaled(const json& value, int64_t total, std::string& why) {
  if (value.is_number_integer())
    return value.get<int64_t>();
  if (value.is_string()) {
    auto text = value.get<std::string>();
    if (!text.empty() && text.back() == '%') {
      try {
        std::size_t used = 0;
        auto percent = std::stoll(text.substr(0, text.size() - 1), &used);
        if (used == text.size() - 1)
          return static_cast<int64_t>(std::ceil(static_cast<double>(percent) * static_cast<double>(total) / 100.0));
      } catch (...) {
      }
      why = "invalid value for IntOrString: invalid value \"" + text + "\": strconv.Atoi: parsing \""
            + text.substr(0, text.size() - 1) + "\": invalid syntax";
      return std::nullopt;
    }
    why = "invalid value for IntOrString: invalid type: string is not a percentage";
    return std::nullopt;
  }
  why = "invalid value for IntOrString: invalid type: neither int nor percentage";
  return std::nullopt;
}

/// The group of an apiVersion ("apps/v1" -> "apps", "v1" -> "").
std::string group_of(const std::string& api_version) {
  auto slash = api_version.find('/');
  return slash == std::string::npos ? std::string{} : api_version.substr(0, slash);
}

/// getExpectedScale's finders: the scale of the controller `ref` names, nullopt for an
/// unknown controller (then an error, as the scale finder's).
struct scale_lookup {
  object_store& store;
  std::string ns;

  std::optional<int64_t> replicas_of(const char* key, const std::string& name, const std::string& uid,
                                     std::shared_ptr<const json>* found = nullptr) {
    auto object = store.get(key, ns, name);
    if (!object || uid_of(*object) != uid)
      return std::nullopt;
    if (found)
      *found = std::make_shared<const json>(*object);
    return object->value("/spec/replicas"_json_pointer, int64_t{1});
  }

  /// (controller uid, scale) or an error.
  std::variant<std::pair<std::string, int64_t>, sync_error, std::monostate> find(const json& ref) {
    auto kind = ref.value("kind", std::string{});
    auto group = group_of(ref.value("apiVersion", std::string{}));
    auto name = ref.value("name", std::string{});
    auto uid = ref.value("uid", std::string{});
    if (kind == "ReplicaSet" && (group == "apps" || group == "extensions")) {
      std::shared_ptr<const json> rs;
      auto scale = replicas_of(replicasets_key, name, uid, &rs);
      if (scale) {
        // getPodDeployment: a ReplicaSet under a Deployment counts the Deployment's scale.
        auto owner = controller_of(*rs);
        if (owner.is_object() && owner.value("kind", "") == "Deployment") {
          auto deploy = replicas_of("deployments.apps", owner.value("name", ""), owner.value("uid", ""));
          if (deploy)
            return std::make_pair(owner.value("uid", std::string{}), *deploy);
          return std::monostate{};
        }
        return std::make_pair(uid, *scale);
      }
      return std::monostate{};
    }
    if (kind == "StatefulSet" && group == "apps") {
      if (auto scale = replicas_of(statefulsets_key, name, uid))
        return std::make_pair(uid, *scale);
      return std::monostate{};
    }
    // getScaleController: any other kind must serve /scale; none here does.
    std::string plural = kind;
    for (auto& c : plural)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    plural += "s";
    return sync_error{plural + (group.empty() ? "" : "." + group) + " does not implement the scale subresource"};
  }
};

void set_condition(json& status, bool allowed, const std::string& reason, const std::string& message,
                   const std::string& now) {
  auto& conditions = status["conditions"];
  if (!conditions.is_array())
    conditions = json::array();
  std::string want = allowed ? "True" : "False";
  for (auto& c : conditions)
    if (c.value("type", "") == "DisruptionAllowed") {
      if (c.value("status", "") != want)
        c["lastTransitionTime"] = now;
      c["status"] = want;
      c["reason"] = reason;
      c["message"] = message;
      c["observedGeneration"] = status.value("observedGeneration", 0);
      return;
    }
  conditions.push_back({{"type", "DisruptionAllowed"},
                        {"status", want},
                        {"reason", reason},
                        {"message", message},
                        {"observedGeneration", status.value("observedGeneration", 0)},
                        {"lastTransitionTime", now}});
}

} // namespace

disruption_controller::disruption_controller(object_store& store) : store_(store) {
  for (const char* key : {pods_key, pdbs_key, statefulsets_key, replicasets_key, "deployments.apps"})
    store_.add_observer(key, [dirty = dirty_](const object_store::change&) { dirty->store(true); });
}

void disruption_controller::tick(clock_type::time_point now) {
  bool recheck = recheck_at_ && now >= *recheck_at_;
  if (!dirty_->exchange(false) && !recheck)
    return;
  recheck_at_.reset();
  auto budgets = store_.list_stored(pdbs_key).items;
  if (budgets.empty())
    return;
  component_identity_scope as{disruption_controller_name};
  auto stamp = format_rfc3339(now);
  std::map<std::string, std::vector<std::shared_ptr<const json>>> pods_by_ns;
  for (const auto& stored : store_.list_stored(pods_key).items) {
    auto pod = stored->parsed();
    pods_by_ns[namespace_of(*pod)].push_back(pod);
  }
  for (const auto& stored : budgets) {
    auto pdb = stored->parsed();
    auto ns = namespace_of(*pdb);
    auto name = name_of(*pdb);
    auto generation = pdb->value("/metadata/generation"_json_pointer, int64_t{1});
    // getPodsForPdb: LabelSelectorAsSelector (nil matches nothing, {} everything).
    std::vector<std::shared_ptr<const json>> pods;
    auto selector_object = pdb->value("/spec/selector"_json_pointer, json());
    auto selector = label_selector::from_object(selector_object);
    std::optional<std::string> failure;
    if (!selector)
      failure = selector.err().message;
    else if (selector_object.is_object())
      for (const auto& pod : pods_by_ns[ns])
        if (selector->matches(pod->value("/metadata/labels"_json_pointer, json::object())))
          pods.push_back(pod);

    // getExpectedPodCount
    int64_t expected = 0, desired = 0;
    auto max_unavailable = pdb->value("/spec/maxUnavailable"_json_pointer, json());
    auto min_available = pdb->value("/spec/minAvailable"_json_pointer, json());
    auto expected_scale = [&]() -> std::optional<int64_t> {
      std::map<std::string, int64_t> scales;
      scale_lookup lookup{store_, ns};
      for (const auto& pod : pods) {
        auto ref = controller_of(*pod);
        if (!ref.is_object())
          continue; // unmanaged: an UnmanagedPods event upstream, not an error
        if (scales.count(ref.value("uid", std::string{})))
          continue;
        auto found = lookup.find(ref);
        if (auto* scale = std::get_if<std::pair<std::string, int64_t>>(&found)) {
          scales[scale->first] = scale->second;
          continue;
        }
        if (auto* err = std::get_if<sync_error>(&found))
          failure = err->message;
        else
          failure = "found no controllers for pod \"" + name_of(*pod) + "\"";
        return std::nullopt;
      }
      int64_t total = 0;
      for (const auto& [uid, scale] : scales)
        total += scale;
      return total;
    };
    if (!failure) {
      std::string why;
      if (!max_unavailable.is_null()) {
        if (auto scale = expected_scale()) {
          expected = *scale;
          if (auto unavailable = scaled(max_unavailable, expected, why))
            desired = std::max<int64_t>(0, expected - *unavailable);
          else
            failure = why;
        }
      } else if (!min_available.is_null()) {
        if (min_available.is_number_integer()) {
          desired = min_available.get<int64_t>();
          expected = static_cast<int64_t>(pods.size());
        } else if (auto scale = expected_scale()) {
          expected = *scale;
          if (auto minimum = scaled(min_available, expected, why))
            desired = *minimum;
          else
            failure = why;
        }
      }
    }

    // buildDisruptedPodMap and countHealthyPods
    auto recorded = pdb->value("/status/disruptedPods"_json_pointer, json::object());
    json disrupted = json::object();
    std::set<std::string> still_disrupted;
    for (const auto& pod : pods) {
      if (is_terminating(*pod) || !recorded.is_object() || !recorded.contains(name_of(*pod)))
        continue;
      auto when = recorded[name_of(*pod)];
      if (!when.is_string())
        continue;
      auto at = parse_rfc3339(when.get<std::string>());
      if (!at)
        continue;
      auto expires = *at + deletion_timeout;
      if (expires < now)
        continue; // "pod was expected to be deleted but it wasn't"
      disrupted[name_of(*pod)] = when;
      still_disrupted.insert(name_of(*pod));
      if (!recheck_at_ || expires < *recheck_at_)
        recheck_at_ = expires;
    }
    int64_t healthy = 0;
    for (const auto& pod : pods)
      if (!is_terminating(*pod) && !still_disrupted.count(name_of(*pod)) && is_pod_ready(*pod))
        ++healthy;

    store_.modify(
      pdbs_key, ns, name,
      [&](json& object) {
        auto before = object.value("status", json::object());
        json status = before.is_object() ? before : json::object();
        if (failure) {
          // failSafe: nothing allowed, and the condition says why.
          status["disruptionsAllowed"] = 0;
          set_condition(status, false, "SyncFailed", *failure, stamp);
        } else {
          auto allowed = healthy - desired;
          if (expected <= 0 || allowed <= 0)
            allowed = 0;
          status["currentHealthy"] = healthy;
          status["desiredHealthy"] = desired;
          status["expectedPods"] = expected;
          status["disruptionsAllowed"] = allowed;
          status["observedGeneration"] = generation;
          if (disrupted.empty())
            status.erase("disruptedPods");
          else
            status["disruptedPods"] = disrupted;
          set_condition(status, allowed > 0, allowed > 0 ? "SufficientPods" : "InsufficientPods", "", stamp);
        }
        // updatePdbStatus writes only what changed; a condition's time alone is no change.
        auto comparable = [](json s) {
          if (s.contains("conditions"))
            for (auto& c : s["conditions"])
              c.erase("lastTransitionTime");
          return s;
        };
        if (comparable(status) == comparable(before))
          return false;
        object["status"] = status;
        return true;
      },
      true);
  }
}

} // namespace schedopt::sim
